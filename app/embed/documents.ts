// Embedded documents and their versions. One document per document.key while it is open or
// retained: its source is downloaded once (concurrent sessions for a new key share the one
// download), version 0 is the original, every stored save is the next version, and the latest 5
// plus the original stay on disk (older ones answer 410 version_gone).

import type { Clock } from "../clock";
import { ServiceError } from "../errors";
import { newDocId } from "../ids";
import type { Logger } from "../log";
import type { EmbedFileType } from "../../schemas/embed";
import { checkZipContainer } from "../zip-guard";
import { TooLargeError, type VersionFiles, type WrittenFile } from "./files";
import type { DocumentRow, EmbedStore, VersionRow } from "./store";

/** Versions kept besides the original (spec: the latest 5 plus the original). */
export const KEPT_VERSIONS = 5;

/** Downloads a source URL into a file through the SSRF-safe client; throws ServiceError (413, 422). */
export type SourceDownload = (url: string, toFile: string, maxBytes: number) => Promise<void>;

/** Collabora compares LastModifiedTime as an opaque string; ISO 8601 with 6 fractional digits, as its test host writes it. */
export const lastModifiedTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, "000Z");

export interface NewDocument {
  key: string;
  url: string;
  title: string;
  fileType: EmbedFileType;
  ownerId: string;
  callbackUrl: string | null;
}

export interface SaveMeta {
  savedById: string | null;
  savedByName: string | null;
  autosave: boolean;
  final: boolean;
  modifiedByUser: boolean;
}

export class EmbedDocuments {
  private opening = new Map<string, Promise<DocumentRow>>();

  constructor(
    private readonly o: {
      store: EmbedStore;
      files: VersionFiles;
      download: SourceDownload;
      clock: Clock;
      logger: Logger;
      maxFileBytes: number;
    },
  ) {}

  get maxFileBytes(): number {
    return this.o.maxFileBytes;
  }

  /**
   * The document of a key: the one open or retained (a closed one is reopened with its last
   * working copy), else a new one made from one download of the source.
   */
  async open(d: NewDocument, requestId?: string): Promise<{ doc: DocumentRow; created: boolean }> {
    const existing = this.o.store.documentByKey(d.key);
    if (existing) {
      if (existing.state === "closed") {
        this.o.store.reopen(existing.doc_id, this.o.clock.now());
        this.o.logger.info("embed_document_reopened", { doc_id: existing.doc_id, version: existing.version, request_id: requestId });
      }
      if (d.callbackUrl && d.callbackUrl !== existing.callback_url) this.o.store.setCallbackUrl(existing.doc_id, d.callbackUrl);
      return { doc: this.o.store.document(existing.doc_id)!, created: false };
    }
    let p = this.opening.get(d.key);
    const created = !p;
    if (!p) {
      p = this.create(d, requestId).finally(() => this.opening.delete(d.key));
      this.opening.set(d.key, p);
    }
    const doc = await p;
    if (!created && d.callbackUrl && d.callbackUrl !== doc.callback_url) this.o.store.setCallbackUrl(doc.doc_id, d.callbackUrl);
    return { doc: created ? doc : this.o.store.document(doc.doc_id)!, created };
  }

  private async create(d: NewDocument, requestId?: string): Promise<DocumentRow> {
    const { files, store, clock } = this.o;
    const tmp = files.tmpPath();
    const t0 = performance.now();
    try {
      await this.o.download(d.url, tmp, this.o.maxFileBytes);
      // Before the document exists: a zip bomb would otherwise hold an editing kit at its first open.
      await checkZipContainer(tmp);
    } catch (e) {
      files.discard(tmp);
      throw e;
    }
    const { size, sha256 } = await files.describe(tmp);
    const now = clock.now();
    const docId = newDocId();
    files.commit(tmp, docId, 0, d.fileType);
    const doc: DocumentRow = {
      doc_id: docId,
      key: d.key,
      title: d.title,
      file_type: d.fileType,
      owner_id: d.ownerId,
      callback_url: d.callbackUrl,
      state: "open",
      version: 0,
      created_at: now,
      opened_at: now,
      closed_at: null,
      view_seen: 0,
    };
    store.insertDocument(doc, {
      doc_id: docId,
      version: 0,
      size,
      sha256,
      saved_at: now,
      lmt: lastModifiedTime(now),
      saved_by_id: null,
      saved_by_name: null,
      autosave: 0,
      final: 0,
      modified_by_user: 0,
      gone: 0,
    });
    this.o.logger.info("embed_document_created", { doc_id: docId, bytes: size, ms: Math.round(performance.now() - t0), request_id: requestId });
    return doc;
  }

  current(doc: DocumentRow): VersionRow {
    return this.o.store.version(doc.doc_id, doc.version)!;
  }

  path(doc: DocumentRow, version: number): string {
    return this.o.files.path(doc.doc_id, version, doc.file_type);
  }

  /** Streams a PutFile body to a temporary file (413 past the size cap, 400 when empty). */
  async receive(body: ReadableStream<Uint8Array> | null): Promise<WrittenFile> {
    let written: WrittenFile;
    try {
      written = await this.o.files.writeStream(body, this.o.maxFileBytes);
    } catch (e) {
      if (e instanceof TooLargeError) {
        throw new ServiceError("file_too_large", `Tệp lưu vượt quá SVC_EMBED_MAX_FILE_MB (${Math.round(this.o.maxFileBytes / 1048576)} MB).`, {
          limit_mb: Math.round(this.o.maxFileBytes / 1048576),
        });
      }
      throw e;
    }
    if (written.size === 0) {
      this.o.files.discard(written.tmp);
      throw new ServiceError("bad_request", "Nội dung PutFile rỗng: không có gì để lưu.", { reason: "empty_body" });
    }
    return written;
  }

  discard(w: WrittenFile): void {
    this.o.files.discard(w.tmp);
  }

  /**
   * Stores a received file as the document's next version. Synchronous from the timestamp check
   * to the commit: no other save of the same document can come in between.
   */
  commitVersion(doc: DocumentRow, w: WrittenFile, meta: SaveMeta): VersionRow {
    const { store, files } = this.o;
    const fresh = store.document(doc.doc_id)!;
    const prev = store.version(fresh.doc_id, fresh.version)!;
    // Strictly increasing times, so every version has its own LastModifiedTime.
    const savedAt = Math.max(this.o.clock.now(), prev.saved_at + 1);
    const v: VersionRow = {
      doc_id: fresh.doc_id,
      version: fresh.version + 1,
      size: w.size,
      sha256: w.sha256,
      saved_at: savedAt,
      lmt: lastModifiedTime(savedAt),
      saved_by_id: meta.savedById,
      saved_by_name: meta.savedByName,
      autosave: meta.autosave ? 1 : 0,
      final: meta.final ? 1 : 0,
      modified_by_user: meta.modifiedByUser ? 1 : 0,
      gone: 0,
    };
    files.commit(w.tmp, v.doc_id, v.version, fresh.file_type);
    store.addVersion(v);
    this.prune(fresh);
    return v;
  }

  /** Keeps the original and the latest KEPT_VERSIONS versions on disk. */
  private prune(doc: DocumentRow): void {
    const saves = this.o.store.liveVersions(doc.doc_id).filter((v) => v.version > 0);
    for (const old of saves.slice(KEPT_VERSIONS)) {
      this.o.files.remove(doc.doc_id, old.version, doc.file_type);
      this.o.store.markVersionGone(doc.doc_id, old.version);
    }
  }

  /** Deletes a document's files and rows (retention). */
  purge(doc: DocumentRow): void {
    this.o.files.removeDocument(doc.doc_id);
    this.o.store.deleteDocument(doc.doc_id);
  }
}
