// "Download as" and print (Collabora's `downloadas`): the kit writes the open document, with every
// edit so far, in the asked format to a file beside the document; the page then fetches it once
// from `/ed/<doc>/download/<id>`. The id is 128 random bits, single use and short-lived: it is the
// only credential of that request (the WOPI token never leaves the WebSocket), so it must not be
// guessable or reusable.

import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";

/** What each family can be downloaded as (LibreOffice's export filters through the kit's `save`). */
export const EXPORT_FORMATS: Record<string, readonly string[]> = {
  text: ["docx", "odt", "pdf", "rtf", "txt", "html", "epub"],
  spreadsheet: ["xlsx", "ods", "pdf", "csv", "html"],
  presentation: ["pptx", "odp", "pdf"],
  drawing: ["odg", "pdf", "png"],
};

const MIME: Record<string, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  odg: "application/vnd.oasis.opendocument.graphics",
  pdf: "application/pdf",
  rtf: "application/rtf",
  txt: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  html: "text/html; charset=utf-8",
  epub: "application/epub+zip",
  png: "image/png",
};

/** How long a prepared download waits to be fetched. */
export const DOWNLOAD_TTL_MS = 60_000;

interface Prepared {
  file: string;
  name: string;
  format: string;
  expires: number;
}

export interface Download {
  body: Buffer<ArrayBuffer>;
  name: string;
  contentType: string;
}

export class Downloads {
  private prepared = new Map<string, Prepared>();

  constructor(private readonly ttlMs = DOWNLOAD_TTL_MS) {}

  /** Registers a written file; answers the id the page fetches it with. */
  add(file: string, name: string, format: string): string {
    this.sweep();
    const id = randomBytes(16).toString("hex");
    this.prepared.set(id, { file, name, format, expires: Date.now() + this.ttlMs });
    return id;
  }

  /** The file of an id, once (the file is removed); null for an unknown, used or expired id. */
  take(id: string): Download | null {
    this.sweep();
    const p = this.prepared.get(id);
    if (!p) return null;
    this.prepared.delete(id);
    try {
      return { body: readFileSync(p.file), name: p.name, contentType: MIME[p.format] ?? "application/octet-stream" };
    } catch {
      return null; // the document closed and its folder went with it
    } finally {
      rmSync(p.file, { force: true });
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, p] of this.prepared) {
      if (p.expires > now) continue;
      this.prepared.delete(id);
      rmSync(p.file, { force: true });
    }
  }

  /** Forgets everything (server stopping). */
  clear(): void {
    for (const p of this.prepared.values()) rmSync(p.file, { force: true });
    this.prepared.clear();
  }
}

/** The downloaded file's name: the document's base name with the format's extension. */
export function exportName(fileName: string, format: string): string {
  const base = fileName.replace(/\.[^./\\]*$/, "") || "document";
  return `${base}.${format}`;
}

/** Content-Disposition for a file name of any script (RFC 6266 with an ASCII fallback). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
