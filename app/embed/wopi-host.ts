// The gate as WOPI host of its embedded documents (/svc/wopi/files/{doc_id}), for our editing
// server and a real Collabora Online alike (protocol notes §4): CheckFileInfo, GetFile, PutFile.
// Every call re-checks the access token: bound to one document, one user (the session's) and one
// permission (the session's mode). PutFile stores the version durably and answers at once; the
// document.saved callback goes out in the background and never delays the editing server.

import type { Clock } from "../clock";
import { ServiceError } from "../errors";
import type { Logger } from "../log";
import type { EmbedUiValue } from "../../schemas/embed";
import { baseFileName } from "./embed-config";
import type { EmbedDocuments } from "./documents";
import type { DocumentPresence } from "./presence";
import type { SaveCallbacks } from "./save-callbacks";
import { accessTokenHash } from "./secrets";
import type { DocumentRow, EmbedStore, SessionRow, VersionRow } from "./store";

/**
 * How long after a session lost its write permission (token expired, switched to view, closed)
 * its PutFile is still taken: the editor's last save of what the person typed must not be lost
 * (spec: the final PutFile of a session whose token just expired is still accepted).
 */
export const FINAL_SAVE_GRACE_MS = 30 * 60_000;

export type WopiNeed = "open" | "write";

export interface PutHeaders {
  override: string | null;
  timestamp: string | null;
  isModifiedByUser: boolean;
  isAutosave: boolean;
  isExitSave: boolean;
}

const refused = (reason: string, message: string) => new ServiceError("invalid_session_token", message, { reason });

/** The last moment this session may write (null: never could), before the final-save grace. */
export function writeEndsAt(s: SessionRow): number | null {
  if (s.write_ended_at !== null) return s.write_ended_at;
  return s.mode === "edit" ? s.expires_at : null;
}

export class WopiHost {
  constructor(
    private readonly o: {
      store: EmbedStore;
      documents: EmbedDocuments;
      callbacks: SaveCallbacks;
      presence: DocumentPresence;
      clock: Clock;
      logger: Logger;
      /** PostMessageOrigin when the session was not created from a browser (the only configured origin, if there is one). */
      defaultPostMessageOrigin: string | null;
    },
  ) {}

  /** The session and document of a token, checked for this document and this need. */
  authorise(docId: string, token: string | null, need: WopiNeed): { doc: DocumentRow; session: SessionRow } {
    if (!token) throw refused("missing", "Thiếu access_token cho thao tác WOPI.");
    const session = this.o.store.sessionByTokenHash(accessTokenHash(token));
    if (!session) throw refused("unknown", "access_token không thuộc phiên nhúng nào.");
    if (session.doc_id !== docId) throw refused("other_document", "access_token thuộc một tài liệu khác.");
    const doc = this.o.store.document(docId);
    if (!doc) throw new ServiceError("not_found", "Tài liệu không tồn tại.", { doc_id: docId });
    const now = this.o.clock.now();
    if (need === "open") {
      if (session.state !== "active") throw refused("closed", "Phiên nhúng đã đóng: không mở thêm được.");
      if (now >= session.expires_at) throw refused("expired", "access_token đã hết hạn.");
      return { doc, session };
    }
    const end = writeEndsAt(session);
    if (end === null) throw refused("read_only", "Phiên nhúng này chỉ được xem, không được lưu.");
    if (now >= end + FINAL_SAVE_GRACE_MS) throw refused("expired", "Quyền lưu của access_token đã hết hạn.");
    return { doc, session };
  }

  checkFileInfo(docId: string, token: string | null): Record<string, unknown> {
    const { doc, session } = this.authorise(docId, token, "open");
    const cur = this.o.documents.current(doc);
    const ui = JSON.parse(session.ui) as EmbedUiValue;
    this.o.presence.noteActivity(doc.doc_id);
    const info: Record<string, unknown> = {
      BaseFileName: baseFileName(doc.title, doc.file_type),
      BreadcrumbDocName: doc.title,
      Size: cur.size,
      Version: String(cur.version),
      LastModifiedTime: cur.lmt,
      OwnerId: doc.owner_id,
      UserId: session.user_id,
      UserFriendlyName: session.user_name,
      UserCanWrite: session.mode === "edit",
      UserCanNotWriteRelative: true,
      UserCanRename: false,
      SupportsRename: false,
      SupportsLocks: false,
      SupportsUpdate: true,
      HidePrintOption: !ui.print,
      DisablePrint: !ui.print,
      HideExportOption: !ui.export,
      DisableExport: !ui.export,
      DisableCopy: !ui.copy,
    };
    if (!ui.userList) info.HideUserList = "true";
    const origin = session.origin ?? this.o.defaultPostMessageOrigin;
    if (origin) info.PostMessageOrigin = origin;
    return info;
  }

  getFile(docId: string, token: string | null): { path: string; version: VersionRow } {
    const { doc } = this.authorise(docId, token, "open");
    const cur = this.o.documents.current(doc);
    return { path: this.o.documents.path(doc, cur.version), version: cur };
  }

  /** Overrides other than PUT on either WOPI path: not in v1. */
  notImplemented(docId: string, token: string | null, override: string | null): never {
    this.authorise(docId, token, "open");
    throw new ServiceError("not_implemented", `Thao tác WOPI ${override || "(không có X-WOPI-Override)"} không được hỗ trợ trong v1.`, { override });
  }

  async putFile(docId: string, token: string | null, h: PutHeaders, body: ReadableStream<Uint8Array> | null, requestId?: string): Promise<{ lastModifiedTime: string; version: number }> {
    if (h.override !== null && h.override.toUpperCase() !== "PUT") this.notImplemented(docId, token, h.override);
    const { doc, session } = this.authorise(docId, token, "write");
    const { store, documents } = this.o;
    // A stale timestamp is refused before the body is read, unless it can be the replay below.
    const before = documents.current(doc);
    if (h.timestamp !== null && h.timestamp !== before.lmt && h.timestamp !== this.previousLmt(doc, before)) throw this.conflict();
    const written = await documents.receive(body);
    const fresh = store.document(docId);
    if (!fresh) {
      documents.discard(written);
      throw new ServiceError("not_found", "Tài liệu không tồn tại.", { doc_id: docId });
    }
    const cur = documents.current(fresh);
    if (h.timestamp !== null && h.timestamp !== cur.lmt) {
      documents.discard(written);
      // The save before this one was stored but its answer was lost (the gate restarted): the
      // editing server retries it with the timestamp it knew. Same bytes: it is that version.
      if (h.timestamp === this.previousLmt(fresh, cur) && written.sha256 === cur.sha256) {
        this.o.logger.info("wopi_putfile_replayed", { doc_id: docId, version: cur.version, request_id: requestId });
        return { lastModifiedTime: cur.lmt, version: cur.version };
      }
      throw this.conflict();
    }
    const v = documents.commitVersion(fresh, written, {
      savedById: session.user_id,
      savedByName: session.user_name,
      autosave: h.isAutosave,
      final: h.isExitSave,
      modifiedByUser: h.isModifiedByUser,
    });
    // A save arriving after the document was closed (a late exit save) opens it again, so a
    // new document.closed follows this document.saved.
    if (fresh.state === "closed") {
      store.reopen(docId, this.o.clock.now());
      store.markViewSeen(docId);
    }
    this.o.logger.info("wopi_putfile_stored", {
      doc_id: docId,
      session_id: session.session_id,
      version: v.version,
      bytes: v.size,
      autosave: h.isAutosave,
      exit: h.isExitSave,
      request_id: requestId,
    });
    this.o.callbacks.saved(store.document(docId)!, v, requestId);
    return { lastModifiedTime: v.lmt, version: v.version };
  }

  private previousLmt(doc: DocumentRow, cur: VersionRow): string | null {
    return cur.version > 0 ? (this.o.store.version(doc.doc_id, cur.version - 1)?.lmt ?? null) : null;
  }

  private conflict(): ServiceError {
    return new ServiceError("conflict", "Tài liệu đã được lưu bởi nơi khác kể từ lần đọc trước (X-COOL-WOPI-Timestamp cũ).", { reason: "stale_timestamp" });
  }
}
