// Builds minimal, valid Word packages for the template tests and writes the committed fixtures
// under fixtures/templates/. Run: bun run app/templates/make-fixtures.ts
// The helpers are exported so tests can build the error cases in place; the output is
// deterministic (fixed timestamps), so the committed files can be compared with a fresh build.

import { strToU8, zipSync, type Zippable } from "fflate";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
export const DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const FIXED_MTIME = new Date("2025-01-01T00:00:00Z");

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One paragraph; each string of `runs` becomes its own run, so a tag can be split across runs as Word does. */
export function para(...runs: string[]): string {
  return `<w:p>${runs.map((t) => `<w:r><w:t xml:space="preserve">${esc(t)}</w:t></w:r>`).join("")}</w:p>`;
}

/** A cell holding one paragraph per string (an empty cell still needs one paragraph). */
export function cell(...paragraphs: string[]): string {
  const ps = paragraphs.length ? paragraphs.map((t) => para(t)) : [para()];
  return `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${ps.join("")}</w:tc>`;
}

export function row(...cells: string[]): string {
  return `<w:tr>${cells.join("")}</w:tr>`;
}

/** A table; rows are built with row()/cell() or given as arrays of cell texts. */
export function table(...rows: (string | string[])[]): string {
  const body = rows.map((r) => (typeof r === "string" ? r : row(...r.map((t) => cell(t))))).join("");
  return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>${body}</w:tbl>`;
}

export interface DocxOptions {
  /** Content type of word/document.xml (a .dotm or .docm main type, for the macro tests). */
  mainContentType?: string;
  /** Extra <Default>/<Override> elements for [Content_Types].xml. */
  extraContentTypes?: string;
  /** Extra relationships of word/document.xml. */
  extraRels?: string;
  /** Extra parts, path → content. */
  extraFiles?: Record<string, string | Uint8Array>;
  /** Header part content (body XML of <w:hdr>), wired as the default header. */
  header?: string;
}

/** A complete minimal .docx whose body is `bodyXml` (paragraphs and tables). */
export function buildDocx(bodyXml: string, opts: DocxOptions = {}): Uint8Array {
  const headerRel = opts.header
    ? `<Relationship Id="rIdH1" Type="${R_NS}/header" Target="header1.xml"/>`
    : "";
  const headerCt = opts.header
    ? `<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>`
    : "";
  const sectPr = `<w:sectPr>${opts.header ? `<w:headerReference w:type="default" r:id="rIdH1"/>` : ""}<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`;
  const files: Record<string, string | Uint8Array> = {
    "[Content_Types].xml":
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/word/document.xml" ContentType="${opts.mainContentType ?? DOCX_MAIN}"/>` +
      `<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
      headerCt +
      (opts.extraContentTypes ?? "") +
      `</Types>`,
    "_rels/.rels":
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${R_NS}/officeDocument" Target="word/document.xml"/>` +
      `</Relationships>`,
    "word/_rels/document.xml.rels":
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${R_NS}/styles" Target="styles.xml"/>` +
      headerRel +
      (opts.extraRels ?? "") +
      `</Relationships>`,
    "word/styles.xml":
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<w:styles xmlns:w="${W_NS}"><w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/>` +
      `<w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/>` +
      `<w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/>` +
      `<w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr>` +
      `</w:style></w:styles>`,
    "word/document.xml":
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<w:document xmlns:w="${W_NS}" xmlns:r="${R_NS}"><w:body>${bodyXml}${sectPr}</w:body></w:document>`,
    ...(opts.header
      ? { "word/header1.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:hdr xmlns:w="${W_NS}" xmlns:r="${R_NS}">${opts.header}</w:hdr>` }
      : {}),
    ...(opts.extraFiles ?? {}),
  };
  return zipFiles(files);
}

/** Zips path → content with fixed timestamps (deterministic bytes). */
export function zipFiles(files: Record<string, string | Uint8Array>): Uint8Array {
  const z: Zippable = {};
  for (const [name, content] of Object.entries(files)) {
    z[name] = [typeof content === "string" ? strToU8(content) : content, { mtime: FIXED_MTIME }];
  }
  return zipSync(z, { level: 6, mtime: FIXED_MTIME });
}

/** The invoice template: fields, a dotted path, a table row loop and a total. */
export function invoiceTemplate(): Uint8Array {
  return buildDocx(
    para("HÓA ĐƠN") +
      // "{{customer.name}}" split over three runs, the way Word often stores a typed tag.
      para("Khách hàng: ", "{{custo", "mer.na", "me}}") +
      para("Địa chỉ: {{customer.address}}") +
      para("Ngày: {{date}}") +
      table(
        ["Mặt hàng", "Số lượng", "Đơn giá"],
        row(cell("{{#items}}{{name}}"), cell("{{qty}}"), cell("{{price}}{{/items}}")),
        row(cell("Tổng cộng"), cell(""), cell("{{total}}")),
      ) +
      para("Cảm ơn quý khách."),
    { header: para("Số hóa đơn: {{number}}") },
  );
}

/** An invoice whose loop is never closed: 422 template_error for the HTTP tests. */
export function unbalancedLoopTemplate(): Uint8Array {
  return buildDocx(
    para("Khách hàng: {{customer.name}}") +
      table(["Mặt hàng", "Số lượng"], row(cell("{{#items}}{{name}}"), cell("{{qty}}"))),
  );
}

export const FIXTURES: Record<string, () => Uint8Array> = {
  "invoice.docx": invoiceTemplate,
  "unbalanced-loop.docx": unbalancedLoopTemplate,
};

/** Data that fills every field of invoice.docx. */
export const INVOICE_DATA = {
  number: "HD-0001",
  customer: { name: "Công ty TNHH Ánh Dương", address: "12 Lê Lợi, Quận 1, TP.HCM" },
  date: "2025-03-14",
  items: [
    { name: "Giấy A4", qty: 10, price: "65.000" },
    { name: "Bút bi", qty: 24, price: "5.000" },
  ],
  total: "770.000",
};

export const FIXTURE_DIR = path.resolve(import.meta.dir, "../../fixtures/templates");

if (import.meta.main) {
  mkdirSync(FIXTURE_DIR, { recursive: true });
  for (const [name, build] of Object.entries(FIXTURES)) {
    const bytes = build();
    writeFileSync(path.join(FIXTURE_DIR, name), bytes);
    console.log(`wrote fixtures/templates/${name} (${bytes.length} bytes)`);
  }
}
