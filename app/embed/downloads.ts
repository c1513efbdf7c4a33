// Signed download links of document versions: GET /svc/embed/files/{doc_id}?v={n}&exp={unix}&sig={hex}.
// The link is made by the gate for callbacks and state reads, valid SVC_EMBED_RETAIN_HOURS; it
// needs no header. Checked in this order: the signature (403 invalid_signature), the expiry
// (410 link_expired), then the version (410 version_gone when cleaned up or retention ended).

import type { Clock } from "../clock";
import { ServiceError } from "../errors";
import type { EmbedFileType } from "../../schemas/embed";
import type { EmbedDocuments } from "./documents";
import { baseFileName } from "./embed-config";
import type { LinkSigner } from "./secrets";
import type { EmbedStore, VersionRow } from "./store";

export const CONTENT_TYPES: Record<EmbedFileType, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  doc: "application/msword",
  odt: "application/vnd.oasis.opendocument.text",
  rtf: "application/rtf",
  txt: "text/plain; charset=utf-8",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xls: "application/vnd.ms-excel",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  csv: "text/csv; charset=utf-8",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ppt: "application/vnd.ms-powerpoint",
  odp: "application/vnd.oasis.opendocument.presentation",
};

export interface Download {
  path: string;
  filename: string;
  contentType: string;
  version: VersionRow;
}

export class DownloadLinks {
  constructor(
    private readonly o: { store: EmbedStore; documents: EmbedDocuments; signer: LinkSigner; clock: Clock; publicUrl: string; lifetimeMs: number },
  ) {}

  url(docId: string, version: number): string {
    const exp = Math.floor((this.o.clock.now() + this.o.lifetimeMs) / 1000);
    const sig = this.o.signer.sign(docId, version, exp);
    return `${this.o.publicUrl}/svc/embed/files/${docId}?v=${version}&exp=${exp}&sig=${sig}`;
  }

  open(docId: string, q: { v: number; exp: number; sig: string }): Download {
    if (!this.o.signer.verify(docId, q.v, q.exp, q.sig)) {
      throw new ServiceError("invalid_signature", "Chữ ký của liên kết tải xuống không đúng: hãy dùng nguyên liên kết do máy chủ cấp.");
    }
    if (Math.floor(this.o.clock.now() / 1000) > q.exp) {
      throw new ServiceError("link_expired", "Liên kết tải xuống đã hết hạn: hãy lấy liên kết mới từ trạng thái phiên hoặc callback mới nhất.", { exp: q.exp });
    }
    const doc = this.o.store.document(docId);
    const v = doc ? this.o.store.version(docId, q.v) : null;
    if (!doc || !v || v.gone) {
      throw new ServiceError("version_gone", undefined, { version: q.v });
    }
    const name = baseFileName(doc.title, doc.file_type);
    return { path: this.o.documents.path(doc, v.version), filename: name, contentType: CONTENT_TYPES[doc.file_type], version: v };
  }
}
