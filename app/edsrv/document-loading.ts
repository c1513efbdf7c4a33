// Loading a document: from its WOPI host (CheckFileInfo, GetFile) into a kit of the pool, with
// its input journal begun; and loading it ahead of its first session (preload).

import { mkdirSync, writeFileSync } from "node:fs";
import { CHART_WORKBOOK_FORMATS, originalHasChartWorkbooks } from "../ooxml/chart-workbooks";
import path from "node:path";
import { Journal, journalDirFor } from "./journal";
import type { Kit } from "./kits";
import type { CheckFileInfo, WopiAuth } from "./wopi-client";
import type { DocumentState } from "./document-state";
import { errorFrame } from "./protocol/frames";

export class DocumentLoading {
  /** Sessions queued behind the work in progress (a preload, another attach). */
  waiting = 0;

  constructor(
    private readonly doc: DocumentState,
    /** Makes a kit the document's kit (its callbacks and its crash wired to the document). */
    private readonly useKit: (kit: Kit) => void,
  ) {}

  /** Fetches the file, loads it into a kit and begins its journal; the frame to send the page when it fails. */
  async load(auth: WopiAuth, info: CheckFileInfo): Promise<string | null> {
    const doc = this.doc;
    doc.state = "loading";
    doc.fileName = info.BaseFileName;
    doc.ext = path.extname(info.BaseFileName).slice(1).toLowerCase();
    doc.lastModifiedTime = info.LastModifiedTime ?? null;
    mkdirSync(doc.dir, { recursive: true });
    const file = await doc.deps.wopi.getFile(doc.wopiSrc, auth, typeof info.FileUrl === "string" && info.FileUrl ? info.FileUrl : undefined);
    if (!("bytes" in file)) {
      doc.log.warn("getfile_failed", { status: file.status });
      return errorFrame("load", "faileddocloading");
    }
    const local = path.join(doc.dir, `original${doc.ext ? "." + doc.ext : ""}`);
    writeFileSync(local, file.bytes);
    doc.chartWorkbooksInOriginal = CHART_WORKBOOK_FORMATS.has(doc.ext) && originalHasChartWorkbooks(file.bytes);
    let kit: Kit;
    try {
      kit = await doc.deps.pool.acquire();
    } catch (err) {
      doc.log.error("kit_unavailable", { error: err as Error });
      return errorFrame("internal", "kitunavailable");
    }
    this.useKit(kit);
    try {
      const st = await kit.request("load", { path: local, name: info.BaseFileName });
      doc.docType = st.type;
    } catch (err) {
      doc.log.warn("document_load_failed", { error: err as Error });
      return errorFrame("load", "faileddocloading");
    }
    try {
      doc.journal = Journal.begin(
        journalDirFor(doc.deps.journalRoot, doc.docKey),
        local,
        { wopiSrc: doc.wopiSrc, fileName: doc.fileName, ext: doc.ext, auth: info.UserCanWrite === true ? auth : null, lastModifiedTime: doc.lastModifiedTime },
        doc.log,
      );
    } catch (err) {
      // The data directory is full or read-only: the document opens, but a crash would lose input.
      doc.log.error("journal_unavailable", { error: err as Error, code: (err as NodeJS.ErrnoException).code ?? null });
    }
    doc.state = "loaded";
    doc.log.info("document_loaded", { kit_pid: kit.pid, ext: doc.ext, bytes: file.bytes.byteLength });
    return null;
  }

  /**
   * Loads the document before its first session connects. The editor page's request carries the
   * WOPISrc and the token; the page then takes 150-300 ms to load and open its WebSocket, the time
   * CheckFileInfo, GetFile and the kit's load need. Only on a ready idle kit; a document no
   * session joins within preloadWaitMs (PRELOAD_WAIT_MS) is closed again. A failed
   * preload leaves nothing behind: the session's own attempt then meets the failure and reports it.
   */
  preload(auth: WopiAuth): void {
    const doc = this.doc;
    if (doc.state !== "new") return;
    doc.preloading = true;
    doc.serialInBackground("preload", async () => {
      if (doc.state !== "new") return;
      const cfi = await doc.deps.wopi.checkFileInfo(doc.wopiSrc, auth);
      if (cfi.kind !== "ok" || doc.state !== "new") return this.endPreload();
      const failed = await this.load(auth, cfi.info);
      if (failed) return this.endPreload();
      doc.log.info("document_preloaded", {});
      const timer = setTimeout(() => {
        doc.preloading = false;
        doc.maybeClose();
      }, doc.deps.preloadWaitMs);
      timer.unref?.();
    });
  }

  private endPreload(): void {
    const doc = this.doc;
    doc.preloading = false;
    if (this.waiting === 0) return doc.dispose();
    // A session is queued behind the preload: it tries again from the start and reports what fails.
    if (doc.kit) doc.deps.pool.release(doc.kit);
    doc.kit = null;
    doc.state = "new";
  }
}
