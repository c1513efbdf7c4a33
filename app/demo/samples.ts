// The development demo's sample documents (fixtures/), by the name the demo page offers.

import path from "node:path";
import type { EmbedFileType } from "../../schemas/embed";

const FIXTURES = path.resolve(import.meta.dir, "../../fixtures");

export interface DemoSample {
  /** What the demo page's picker says and the `sample` query parameter takes. */
  id: string;
  label: string;
  /** Path under /svc/demo/ where the file is served (sample.docx is the spec's). */
  file: string;
  fileType: EmbedFileType;
  title: string;
  source: string;
}

export const DEMO_SAMPLES: DemoSample[] = [
  { id: "docx", label: "Văn bản (docx)", file: "sample.docx", fileType: "docx", title: "Thư chào.docx", source: path.join(FIXTURES, "demo", "letter.docx") },
  { id: "xlsx", label: "Bảng tính (xlsx)", file: "sample.xlsx", fileType: "xlsx", title: "Bảng tính.xlsx", source: path.join(FIXTURES, "hello.xlsx") },
  { id: "pptx", label: "Trình chiếu (pptx)", file: "sample.pptx", fileType: "pptx", title: "Trình chiếu.pptx", source: path.join(FIXTURES, "hello.pptx") },
  { id: "odt", label: "OpenDocument (odt)", file: "sample.odt", fileType: "odt", title: "Tài liệu ODF.odt", source: path.join(FIXTURES, "demo", "sample.odt") },
  { id: "vi", label: "Hợp đồng tiếng Việt (docx)", file: "sample-vi.docx", fileType: "docx", title: "Hợp đồng dịch vụ.docx", source: path.join(FIXTURES, "demo", "hop-dong.docx") },
];

export const sampleById = (id: string) => DEMO_SAMPLES.find((s) => s.id === id) ?? null;
