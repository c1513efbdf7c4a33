// Embed sessions (spec: "Embed session", "Embed session state", the session state table):
// creation in the spec's order of checks (origin and CORS are the HTTP layer's; then token,
// config, download, cap, discovery), the state read, the mode switch and the close.

import type { Clock } from "../clock";
import { iso } from "../clock";
import { ServiceError } from "../errors";
import { newSessionId } from "../ids";
import type { Logger } from "../log";
import { fetchErrorToService } from "../net/fetch-errors";
import type { EditorMode, EmbedUiValue } from "../../schemas/embed";
import type { Decision } from "../gate/admission";
import { resolveConfig, uiDefaults, type EmbedAuthSettings, type SessionBody } from "./embed-config";
import { editorUrl, type EditorDiscovery } from "./discovery-client";
import type { EmbedDocuments } from "./documents";
import type { DocumentPresence } from "./presence";
import type { CallbackView, DeliveryHistoryView, SaveCallbacks } from "./save-callbacks";
import { accessTokenHash, newAccessToken, sameDigest } from "./secrets";
import type { DocumentRow, EmbedStore, SessionRow } from "./store";

/** What both the session object and its state read say of the session. */
interface SessionIdentity {
  session_id: string;
  key: string;
  doc_id: string;
  mode: EditorMode;
  requested_mode: EditorMode;
  limited: boolean;
  version: number;
  expires_at: string;
}

export interface SessionResponse extends SessionIdentity {
  limit: { limit: number; current: number; edition: string } | null;
  message: string | null;
  editor_url: string;
  form: { access_token: string; access_token_ttl: number; ui_defaults: string };
}

export interface SessionStateResponse extends SessionIdentity {
  state: "active" | "closed";
  document_state: "open" | "closed";
  modified: boolean;
  saved_at: string;
  size: number;
  sha256: string;
  download_url: string;
  users: { id: string; name: string }[];
  /** Beyond the spec: the document's last callback delivery, so an integrator can see why one did not arrive. */
  callback: CallbackView | null;
  /** Beyond the spec: the document's latest save callbacks (up to 10, newest first), each with every attempt. */
  callback_history: DeliveryHistoryView[];
}

export interface EmbedSessionsOptions {
  store: EmbedStore;
  documents: EmbedDocuments;
  discovery: EditorDiscovery;
  callbacks: SaveCallbacks;
  presence: DocumentPresence;
  clock: Clock;
  logger: Logger;
  auth: EmbedAuthSettings;
  sessionTtlMs: number;
  /** Admission of a session asking to edit (the connection cap). */
  /** The cap's decision for an edit session; admitted, the session's token holds the seat. */
  admitEdit: (docKey: string, token: string) => Decision;
  /** SSRF check of a callbackUrl when the session is made; throws FetchError. */
  checkCallbackUrl: (url: string) => Promise<void>;
  /** The WOPISrc of a document: the gate's internal address (alias group 1) + /svc/wopi/files/{doc_id}. */
  wopiSrc: (docId: string) => string;
  /** The document key the counter uses for that WOPISrc. */
  docKey: (docId: string) => string;
  downloadUrl: (docId: string, version: number) => string;
  /** Asks the editing server to start loading a session's document (fire and forget; see embed-gate.ts). */
  warmStart?: (editorUrl: string, form: SessionResponse["form"]) => void;
}

const limitMessage = (d: { limit: number; current: number }) =>
  `Đã đạt giới hạn ${d.limit} kết nối chỉnh sửa đồng thời: tài liệu được mở ở chế độ chỉ xem. Hãy thử chỉnh sửa lại khi có người rời tài liệu.`;

export class EmbedSessions {
  constructor(private readonly o: EmbedSessionsOptions) {}

  async create(input: { origin: string | null; body: SessionBody; requestId?: string }): Promise<SessionResponse> {
    const { o } = this;
    const t0 = performance.now();
    const cfg = await resolveConfig(input.body, o.auth, o.clock.now());
    if (cfg.editor.callbackUrl) {
      try {
        await o.checkCallbackUrl(cfg.editor.callbackUrl);
      } catch (e) {
        const err = fetchErrorToService(e, 0);
        if (err instanceof ServiceError) throw new ServiceError(err.code, `editor.callbackUrl: ${err.message}`, { ...err.detail, field: "editor.callbackUrl" });
        throw err;
      }
    }
    let doc: DocumentRow;
    try {
      ({ doc } = await o.documents.open(
        {
          key: cfg.document.key,
          url: cfg.document.url,
          title: cfg.document.title,
          fileType: cfg.document.fileType,
          ownerId: cfg.editor.user.id,
          callbackUrl: cfg.editor.callbackUrl,
        },
        input.requestId,
      ));
    } catch (e) {
      const err = fetchErrorToService(e, o.documents.maxFileBytes);
      if (err instanceof ServiceError && (err.code === "url_not_allowed" || err.code === "download_failed" || err.code === "file_too_large" || err.code === "corrupt_source")) {
        throw new ServiceError(err.code, `document.url: ${err.message}`, { ...err.detail, field: "document.url" });
      }
      throw err;
    }

    const token = newAccessToken();
    let mode = cfg.editor.mode;
    let limit: SessionResponse["limit"] = null;
    if (mode === "edit") {
      const d = o.admitEdit(o.docKey(doc.doc_id), token);
      if (!d.admit) {
        mode = "view";
        limit = { limit: d.limit, current: d.current, edition: d.edition };
      }
    }
    const urlsrc = await o.discovery.urlsrc(doc.file_type, mode === "view");

    const now = o.clock.now();
    const session: SessionRow = {
      session_id: newSessionId(),
      doc_id: doc.doc_id,
      token_hash: accessTokenHash(token),
      user_id: cfg.editor.user.id,
      user_name: cfg.editor.user.name,
      mode,
      requested_mode: cfg.editor.mode,
      limited: limit ? 1 : 0,
      lang: cfg.editor.lang,
      ui: JSON.stringify(cfg.ui),
      origin: input.origin,
      state: "active",
      created_at: now,
      expires_at: now + o.sessionTtlMs,
      write_ended_at: null,
      closed_at: null,
    };
    o.store.insertSession(session);
    o.logger.info("embed_session_created", {
      session_id: session.session_id,
      doc_id: doc.doc_id,
      mode,
      limited: !!limit,
      signed: cfg.signed,
      ms: Math.round((performance.now() - t0) * 10) / 10,
      request_id: input.requestId,
    });
    const res = this.response(session, doc, token, urlsrc, limit);
    o.warmStart?.(res.editor_url, res.form);
    return res;
  }

  private response(s: SessionRow, doc: DocumentRow, token: string, urlsrc: string, limit: SessionResponse["limit"]): SessionResponse {
    const ui = JSON.parse(s.ui) as EmbedUiValue;
    return {
      session_id: s.session_id,
      key: doc.key,
      doc_id: doc.doc_id,
      mode: s.mode,
      requested_mode: s.requested_mode,
      limited: s.limited === 1,
      limit: s.limited === 1 ? limit : null,
      message: s.limited === 1 && limit ? limitMessage(limit) : null,
      editor_url: editorUrl(urlsrc, { wopiSrc: this.o.wopiSrc(doc.doc_id), lang: s.lang, closeButton: ui.closeButton, readOnly: s.mode === "view" }),
      form: { access_token: token, access_token_ttl: s.expires_at, ui_defaults: uiDefaults(ui) },
      version: doc.version,
      expires_at: iso(s.expires_at),
    };
  }

  /**
   * The session behind `Authorization: Bearer <access_token>` for GET, mode and DELETE.
   * 404 for an unknown session id, 401 invalid_session_token for a token that is missing, is not
   * this session's, has expired, or (for a change) belongs to a closed session.
   */
  authorise(sessionId: string, authorization: string | undefined, opts: { allowClosed: boolean }): { session: SessionRow; token: string } {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
    const session = this.o.store.session(sessionId);
    if (!session) throw new ServiceError("not_found", "Phiên nhúng không tồn tại.", { session_id: sessionId });
    if (!m) throw new ServiceError("invalid_session_token", "Thiếu tiêu đề Authorization: Bearer <access_token của phiên>.", { reason: "missing" });
    const token = m[1]!;
    if (!sameDigest(accessTokenHash(token), session.token_hash)) {
      throw new ServiceError("invalid_session_token", "access_token không khớp với phiên nhúng này.", { reason: "mismatch" });
    }
    if (this.o.clock.now() >= session.expires_at) throw new ServiceError("invalid_session_token", "access_token của phiên đã hết hạn.", { reason: "expired" });
    if (session.state !== "active" && !opts.allowClosed) throw new ServiceError("invalid_session_token", "Phiên nhúng đã đóng.", { reason: "closed" });
    return { session, token };
  }

  state(session: SessionRow): SessionStateResponse {
    const { o } = this;
    const doc = o.store.document(session.doc_id);
    if (!doc) throw new ServiceError("not_found", "Tài liệu của phiên không còn.", { doc_id: session.doc_id });
    const cur = o.documents.current(doc);
    return {
      session_id: session.session_id,
      key: doc.key,
      doc_id: doc.doc_id,
      mode: session.mode,
      requested_mode: session.requested_mode,
      limited: session.limited === 1,
      state: session.state,
      document_state: doc.state,
      version: cur.version,
      modified: o.presence.modified(doc.doc_id),
      saved_at: iso(cur.saved_at),
      size: cur.size,
      sha256: cur.sha256,
      download_url: o.downloadUrl(doc.doc_id, cur.version),
      users: this.usersOf(doc.doc_id),
      expires_at: iso(session.expires_at),
      callback: o.callbacks.view(doc.doc_id),
      callback_history: o.callbacks.history(doc.doc_id),
    };
  }

  /** The people with a view of the document now, with the names their sessions gave. */
  usersOf(docId: string): { id: string; name: string }[] {
    const ids = this.o.presence.userIds(docId);
    if (!ids.length) return [];
    const names = new Map<string, string>();
    for (const s of this.o.store.sessionsOf(docId)) names.set(s.user_id, s.user_name);
    return ids.map((id) => ({ id, name: names.get(id) ?? id }));
  }

  async switchMode(session: SessionRow, token: string, mode: EditorMode, requestId?: string): Promise<SessionResponse> {
    const { o } = this;
    const doc = o.store.document(session.doc_id)!;
    const now = o.clock.now();
    let limit: SessionResponse["limit"] = null;
    if (mode === "view") {
      o.store.setMode(session.session_id, "view", "view", false, session.mode === "edit" ? now : session.write_ended_at);
    } else if (session.mode === "edit") {
      o.store.setMode(session.session_id, "edit", "edit", false, null);
    } else {
      const d = o.admitEdit(o.docKey(doc.doc_id), token);
      if (d.admit) o.store.setMode(session.session_id, "edit", "edit", false, null);
      else {
        limit = { limit: d.limit, current: d.current, edition: d.edition };
        o.store.setMode(session.session_id, "view", "edit", true, session.write_ended_at);
      }
    }
    const updated = o.store.session(session.session_id)!;
    const urlsrc = await o.discovery.urlsrc(doc.file_type, updated.mode === "view");
    o.logger.info("embed_session_mode", { session_id: session.session_id, mode: updated.mode, requested_mode: mode, limited: !!limit, request_id: requestId });
    return this.response(updated, doc, token, urlsrc, limit);
  }

  /** Marks the session closed (204). The editor is not forced closed; the document stays. */
  close(session: SessionRow, requestId?: string): void {
    if (session.state === "closed") return;
    this.o.store.closeSession(session.session_id, this.o.clock.now());
    this.o.logger.info("embed_session_closed", { session_id: session.session_id, request_id: requestId });
  }
}
