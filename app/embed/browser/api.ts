// api.js: the browser library integrators load with <script src="https://<service>/svc/api.js">.
// `new SVC.Editor(elementId, config)` creates the embed session (or takes one the integrator's
// backend created), frames the editor with the form POST the spec describes, and maps the editor
// page's Collabora postMessage protocol and the session API onto seven events and five methods.
// Declarations: svc-api.d.ts (served at /svc/api.d.ts). Built into one script by app/embed/api-bundle.ts.

/// <reference path="./svc-api.d.ts" />

import type { Texts } from "../../i18n";
import { enApi } from "../../i18n/en";
import { languageOf } from "../../i18n/language";
import { viApi } from "../../i18n/vi";

declare const __SVC_API_VERSION__: string;

const LOAD_TIMEOUT_MS = 120_000;
const SAVE_TIMEOUT_MS = 30_000;

// The service's origin is where this script came from (captured while it runs, before any await).
const scriptOrigin = (() => {
  const s = document.currentScript as HTMLScriptElement | null;
  try {
    return s?.src ? new URL(s.src).origin : location.origin;
  } catch {
    return location.origin;
  }
})();

type Msg = { MessageId: string; Values?: Record<string, any> };

/**
 * api.js's own texts in the editor's language (`editor.lang`, in the config or its token; "vi" by
 * default, as the config's), from the one language table (app/i18n). Set by each Editor as it starts.
 */
let A: Texts["api"] = viApi;

/** The integrator's message of an error code (ErrorInfo.message). */
function messageOf(code: string): string | undefined {
  const m: Record<string, string> = {
    network_error: A.network_error, origin_not_allowed: A.origin_not_allowed, load_failed: A.load_failed, load_timeout: A.load_timeout,
    save_failed: A.save_failed, save_timeout: A.save_timeout, not_loaded: A.not_loaded,
  };
  return m[code];
}

// What the person in front of the editor is told when it cannot open: a plain sentence (the
// integrator's message is technical), then the code and request id for a support ticket.
const SETUP = ["invalid_config", "token_required", "invalid_token", "token_expired", "embed_auth_not_configured", "origin_not_allowed", "bad_request", "not_found"];

/** Failures that may pass on their own (a busy, paused or restarting server, the network): the error screen offers to try again. */
const RETRYABLE = new Set(["load_failed", "network_error", "internal", "editor_unavailable", "download_failed"]);

function personSentence(code: string): string {
  const person: Record<string, string> = {
    download_failed: A.personDownload, url_not_allowed: A.personDownload, file_too_large: A.personTooLarge,
    unsupported_file_type: A.personUnsupported, corrupt_source: A.personCorrupt, editor_unavailable: A.personUnavailable,
    network_error: A.personNetwork, internal: A.personInternal, load_failed: A.personLoad,
  };
  if (person[code]) return person[code]!;
  if (SETUP.includes(code)) return A.personSetup;
  return A.personOther;
}

/** The editor's language as the config gives it, or its signed token's payload (read, not verified: only for texts). */
function configLanguage(config: SVC.EditorConfig): string {
  const direct = (config as { editor?: { lang?: string } }).editor?.lang;
  if (direct) return direct;
  const token = (config as { token?: string }).token;
  if (typeof token === "string") {
    try {
      const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { editor?: { lang?: string } };
      if (payload.editor?.lang) return payload.editor.lang;
    } catch {
      // not a readable token: the default language
    }
  }
  return "vi";
}

function errorInfo(code: string, message?: string, detail: Record<string, unknown> = {}): SVC.ErrorInfo {
  return { code, message: message || messageOf(code) || A.unknownError, detail };
}

let frameSeq = 0;

class Editor implements SVC.Editor {
  static readonly version = __SVC_API_VERSION__;

  private readonly host: HTMLElement;
  private readonly events: SVC.Events;
  private readonly server: string;
  private readonly loadMs: number;
  private readonly saveMs: number;
  private readonly width: string;
  private readonly height: string;
  private readonly errorScreen: boolean;
  private session: SVC.Session | null = null;
  private frame: HTMLIFrameElement | null = null;
  private loaded = false;
  private ready = false;
  private destroyed = false;
  private openedAt = 0;
  private loadTimer: ReturnType<typeof setTimeout> | null = null;
  private version = 0;
  private versionCheck: Promise<SVC.SavedEvent> | null = null;
  private pendingSave: { resolve: (v: Msg["Values"]) => void; reject: (e: SVC.ErrorInfo) => void; timer: ReturnType<typeof setTimeout> } | null = null;
  /** The save under way: a second save() joins it (one version, one answer for both). */
  private saving: Promise<SVC.SavedEvent> | null = null;
  /** Settles when the frame has its document (Document_Loaded) or cannot open it (load_failed). */
  private loadWait: { promise: Promise<void>; resolve: () => void; reject: (e: SVC.ErrorInfo) => void } | null = null;
  private readonly started: Promise<boolean>;
  private readonly config: SVC.EditorConfig;
  private readonly onMessage = (e: MessageEvent) => this.receive(e);

  constructor(elementId: string, config: SVC.EditorConfig) {
    const host = document.getElementById(elementId);
    if (!host) throw new TypeError(`SVC.Editor: no element with id "${elementId}"`);
    this.host = host;
    this.events = config.events ?? {};
    this.server = (config.serverUrl ?? scriptOrigin).replace(/\/+$/, "");
    this.loadMs = config.timeouts?.loadMs ?? LOAD_TIMEOUT_MS;
    this.saveMs = config.timeouts?.saveMs ?? SAVE_TIMEOUT_MS;
    this.width = config.ui?.width ?? "100%";
    this.height = config.ui?.height ?? "100%";
    this.errorScreen = config.errorScreen !== false;
    this.openedAt = performance.now();
    A = languageOf(configLanguage(config)) === "vi" ? viApi : enApi;
    window.addEventListener("message", this.onMessage);
    this.config = config;
    this.started = this.start(config);
  }

  // ------------------------------------------------------------------ events

  private emit<K extends keyof SVC.Events>(name: K, payload: Parameters<NonNullable<SVC.Events[K]>>[0]): void {
    if (this.destroyed) return;
    const fn = this.events[name] as ((p: unknown) => void) | undefined;
    if (!fn) {
      if (name === "onError") console.error("SVC.Editor", payload);
      return;
    }
    try {
      fn.call(this, payload);
    } catch (e) {
      console.error(`SVC.Editor: ${name} threw`, e);
    }
  }

  private fail(e: SVC.ErrorInfo): SVC.ErrorInfo {
    this.emit("onError", e);
    return e;
  }

  /**
   * The error screen, in place of the editor when it cannot open: a plain sentence for the person,
   * and the code and request id for the integrator (a support ticket starts with the answer).
   */
  private showError(e: SVC.ErrorInfo): void {
    if (!this.errorScreen || this.destroyed) return;
    const box = document.createElement("div");
    box.className = "svc-error";
    box.setAttribute("role", "alert");
    box.style.cssText = `width:${this.width};height:${this.height};display:flex;flex-direction:column;justify-content:center;align-items:center;gap:8px;font:15px/1.4 system-ui,sans-serif;color:#1d2330;background:#f6f7f9;text-align:center;padding:16px;box-sizing:border-box`;
    const sentence = document.createElement("p");
    sentence.className = "svc-error-sentence";
    sentence.style.cssText = "margin:0;font-size:17px";
    sentence.textContent = personSentence(e.code);
    const help = document.createElement("p");
    help.style.cssText = "margin:0;color:#4a5160";
    help.textContent = A.help;
    const codes = document.createElement("p");
    codes.className = "svc-error-codes";
    codes.style.cssText = "margin:0;font:13px ui-monospace,monospace;color:#4a5160";
    // The request that failed, or else the session (an editor that did not load answered no request of ours).
    const rid = typeof e.detail.request_id === "string" ? e.detail.request_id : null;
    codes.textContent = rid ? A.codes(e.code, rid) : this.session ? A.codesSession(e.code, this.session.session_id) : A.codes(e.code, "—");
    box.append(sentence, help, codes);
    if (RETRYABLE.has(e.code)) {
      // What may pass (a busy or restarting server, the network) gets a second chance from the person.
      const retry = document.createElement("button");
      retry.type = "button";
      retry.className = "svc-error-retry";
      retry.textContent = A.retry;
      retry.style.cssText = "font:inherit;padding:6px 16px;border:1px solid #8a93a3;border-radius:4px;background:#fff;cursor:pointer";
      retry.addEventListener("click", () => this.retry());
      box.append(retry);
    }
    this.frame?.remove();
    this.frame = null;
    this.host.replaceChildren(box);
  }

  /** The error screen's "Try again": the editor framed again for the session, or the session asked for again. */
  private retry(): void {
    if (this.destroyed) return;
    if (this.session) {
      this.openedAt = performance.now();
      this.open();
    } else {
      void this.start(this.config);
    }
  }

  // ------------------------------------------------------------------ session API

  /** A call to the session API; an error body becomes ErrorInfo, a failed connection network_error. */
  private async api(path: string, init: RequestInit = {}): Promise<any> {
    let res: Response;
    try {
      res = await fetch(this.server + path, { ...init, credentials: "omit", headers: { ...(init.headers as Record<string, string>) } });
    } catch {
      // The browser hides a CORS refusal behind the same TypeError as a dead server: ask the
      // server without CORS; if it answers, this page's origin is what was refused.
      const reachable = await fetch(`${this.server}/svc/healthz`, { mode: "no-cors", credentials: "omit" }).then(
        () => true,
        () => false,
      );
      throw reachable ? errorInfo("origin_not_allowed", undefined, { origin: location.origin, inferred: true }) : errorInfo("network_error", undefined, { server: this.server });
    }
    if (res.status === 204) return null;
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const e = body?.error;
      throw errorInfo(e?.code ?? (res.status >= 500 ? "internal" : "bad_request"), e?.message, { ...(e?.detail ?? {}), status: res.status, request_id: e?.request_id });
    }
    return body;
  }

  private auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.session!.form.access_token}` };
  }

  private async start(config: SVC.EditorConfig): Promise<boolean> {
    let session = config.session ?? null;
    if (!session) {
      const body: Record<string, unknown> = {};
      for (const k of ["token", "document", "editor", "ui"] as const) if (config[k] !== undefined) body[k] = config[k];
      try {
        session = (await this.api("/svc/embed/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })) as SVC.Session;
      } catch (e) {
        this.showError(this.fail(e as SVC.ErrorInfo));
        return false;
      }
    }
    if (this.destroyed) return false;
    this.session = session;
    this.version = session.version;
    if (session.limited) this.emit("onLimitReached", { message: session.message ?? "", limit: session.limit });
    this.open();
    return true;
  }

  // ------------------------------------------------------------------ the frame

  private newLoadWait(): void {
    let resolve!: () => void, reject!: (e: SVC.ErrorInfo) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => {});
    this.loadWait = { promise, resolve, reject };
  }

  /** Frames the editor: an iframe, a form POST of the session's form fields into it, the form removed. */
  private open(): void {
    const s = this.session!;
    this.loaded = this.ready = false;
    this.newLoadWait();
    const frame = document.createElement("iframe");
    frame.name = `svc-editor-${++frameSeq}-${Math.random().toString(36).slice(2, 8)}`;
    frame.title = A.frameTitle;
    frame.setAttribute("allow", "clipboard-read; clipboard-write; fullscreen");
    frame.setAttribute("allowfullscreen", "true");
    frame.style.cssText = `width:${this.width};height:${this.height};border:0;display:block`;
    this.host.replaceChildren(frame);
    this.frame = frame;
    const form = document.createElement("form");
    form.method = "post";
    form.target = frame.name;
    form.action = this.server + s.editor_url;
    form.style.display = "none";
    const fields: Record<string, string> = { ...Object.fromEntries(Object.entries(s.form).map(([k, v]) => [k, String(v)])), postmessage_origin: location.origin };
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
    form.remove();
    if (this.loadTimer) clearTimeout(this.loadTimer);
    this.loadTimer = setTimeout(() => {
      if (this.loaded) return;
      const failed = this.fail(errorInfo("load_failed", A.load_timeout, { reason: "timeout", timeout_ms: this.loadMs }));
      this.loadWait?.reject(failed);
      this.showError(failed);
    }, this.loadMs);
  }

  private post(id: string, values: Record<string, unknown> = {}): void {
    this.frame?.contentWindow?.postMessage(JSON.stringify({ MessageId: id, SendTime: Date.now(), Values: values }), this.server);
  }

  /** Only the editor frame, only from the service's origin. */
  private receive(e: MessageEvent): void {
    if (this.destroyed || e.origin !== this.server || !this.frame || e.source !== this.frame.contentWindow) return;
    let m: Msg;
    try {
      m = typeof e.data === "string" ? JSON.parse(e.data) : e.data;
    } catch {
      return;
    }
    if (!m || typeof m.MessageId !== "string") return;
    const v = m.Values ?? {};
    switch (m.MessageId) {
      case "App_LoadingStatus":
        if (v.Status === "Frame_Ready") {
          this.post("Host_PostmessageReady");
          if (!this.ready) {
            this.ready = true;
            const s = this.session!;
            this.emit("onReady", { sessionId: s.session_id, docId: s.doc_id, key: s.key, mode: s.mode, limited: s.limited, version: this.version });
          }
        } else if (v.Status === "Document_Loaded" && !this.loaded) {
          this.loaded = true;
          this.loadWait?.resolve();
          void this.checkDowngrade();
          if (this.loadTimer) clearTimeout(this.loadTimer);
          this.emit("onDocumentLoaded", { loadTimeMs: Math.round(performance.now() - this.openedAt) });
        } else if (v.Status === "Failed") {
          if (this.loadTimer) clearTimeout(this.loadTimer);
          const failed = this.fail(errorInfo("load_failed", undefined, { status: "Failed" }));
          this.loadWait?.reject(failed);
          this.showError(failed);
        }
        return;
      case "Doc_ModifiedStatus":
        this.emit("onModified", { modified: !!v.Modified });
        if (!v.Modified) void this.checkVersion();
        return;
      case "Action_Save_Resp":
        if (this.pendingSave) {
          const p = this.pendingSave;
          this.pendingSave = null;
          clearTimeout(p.timer);
          if (v.success) p.resolve(v);
          else p.reject(this.fail(errorInfo("save_failed", v.errorMsg ? `${A.save_failed} ${v.errorMsg}` : undefined, { result: v.result, errorMsg: v.errorMsg })));
        }
        return;
      case "UI_Close":
        this.emit("onClose", { reason: "user" });
        return;
      case "Session_Closed":
        // The editor gave up reconnecting to its server: the host hears why, then that it closed.
        if (v.Reason === "Disconnected") this.fail(errorInfo("network_error", undefined, { reason: "editing_server_unreachable" }));
        this.emit("onClose", { reason: String(v.Reason ?? "closed") });
        return;
    }
  }

  /**
   * An edit session can become read-only when its editor connects (its seat expired, or the cap
   * was reached meanwhile: the gate opens it read-only rather than refusing it). The answer that
   * created it said `edit`; the session's state says what it became, and the page hears of it as
   * the spec's `onLimitReached` (a backend-created session connected later is the usual case).
   */
  private async checkDowngrade(): Promise<void> {
    const s = this.session;
    if (!s || s.mode !== "edit" || s.limited) return;
    try {
      const st = await this.api(`/svc/embed/session/${s.session_id}`, { headers: this.auth() });
      if (!st.limited || this.session !== s) return;
      this.session = { ...s, mode: st.mode, limited: true, message: A.limitedOnOpen };
      this.emit("onLimitReached", { message: A.limitedOnOpen, limit: null });
    } catch {
      // The state could not be read: the editor itself shows what it opened as.
    }
  }

  /** After a save: the session state says whether a new version is stored; onSaved once per version. */
  private readSavedVersion(): Promise<SVC.SavedEvent> {
    if (!this.session) return Promise.reject(errorInfo("not_found", A.noSession, {}));
    this.versionCheck ??= this.api(`/svc/embed/session/${this.session.session_id}`, { headers: this.auth() })
      .then((st) => {
        const saved: SVC.SavedEvent = { version: st.version, url: st.download_url, size: st.size, sha256: st.sha256, savedAt: st.saved_at };
        if (st.version > this.version) {
          this.version = st.version;
          this.emit("onSaved", saved);
        }
        return saved;
      })
      .catch((e) => {
        throw this.fail(e as SVC.ErrorInfo);
      })
      .finally(() => {
        this.versionCheck = null;
      });
    return this.versionCheck;
  }

  /** The same, where nobody awaits it (a save the editor made itself): a failure is reported, not thrown. */
  private checkVersion(): void {
    this.readSavedVersion().catch(() => {});
  }

  // ------------------------------------------------------------------ methods

  /**
   * Saves now. `save_failed` only when the editing server reported the save failed (the spec's
   * meaning): called before the document is loaded it waits for the load (a load that fails is
   * `load_failed`), called while a save runs it joins that save, and a state that cannot be read
   * afterwards rejects with what went wrong reading it (`network_error`, `internal`…).
   */
  save(): Promise<SVC.SavedEvent> {
    this.saving ??= this.saveOnce().finally(() => {
      this.saving = null;
    });
    return this.saving;
  }

  private async saveOnce(): Promise<SVC.SavedEvent> {
    if (!(await this.started)) throw this.fail(errorInfo("not_found", A.noSession, {}));
    if (!this.loaded) await this.loadWait!.promise;
    if (!this.frame) throw this.fail(errorInfo("not_found", A.noSession, {}));
    await new Promise<Msg["Values"]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingSave = null;
        reject(this.fail(errorInfo("save_timeout", undefined, { timeout_ms: this.saveMs })));
      }, this.saveMs);
      this.pendingSave = { resolve, reject, timer };
      this.post("Action_Save", { DontTerminateEdit: true, DontSaveIfUnmodified: true, Notify: true });
    });
    return this.readSavedVersion();
  }

  async close(): Promise<void> {
    if (!(await this.started) || this.destroyed) return this.destroy();
    // The editing server stores what is unsaved when the document's socket closes (the final save).
    this.post("Action_Close");
    await new Promise((r) => setTimeout(r, 50));
    try {
      await this.api(`/svc/embed/session/${this.session!.session_id}`, { method: "DELETE", headers: this.auth() });
    } catch (e) {
      this.fail(e as SVC.ErrorInfo);
    }
    this.emit("onClose", { reason: "host" });
    this.destroy();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    window.removeEventListener("message", this.onMessage);
    if (this.loadTimer) clearTimeout(this.loadTimer);
    if (this.pendingSave) clearTimeout(this.pendingSave.timer);
    this.pendingSave = null;
    this.frame?.remove();
    this.frame = null;
  }

  async setReadOnly(readOnly = true): Promise<SVC.Info> {
    if (!(await this.started)) throw errorInfo("not_found", A.noSession, {});
    const next = (await this.api(`/svc/embed/session/${this.session!.session_id}/mode`, {
      method: "POST",
      headers: { ...this.auth(), "Content-Type": "application/json" },
      body: JSON.stringify({ mode: readOnly ? "view" : "edit" }),
    }).catch((e) => {
      throw this.fail(e as SVC.ErrorInfo);
    })) as SVC.Session;
    const changed = next.mode !== this.session!.mode;
    this.session = next;
    if (next.limited) this.emit("onLimitReached", { message: next.message ?? "", limit: next.limit });
    if (changed) {
      this.openedAt = performance.now();
      this.open();
    }
    return this.getInfo();
  }

  async getInfo(): Promise<SVC.Info> {
    if (!(await this.started)) throw errorInfo("not_found", A.noSession, {});
    const st = await this.api(`/svc/embed/session/${this.session!.session_id}`, { headers: this.auth() });
    return {
      sessionId: st.session_id,
      docId: st.doc_id,
      key: st.key,
      mode: st.mode,
      requestedMode: st.requested_mode,
      limited: st.limited,
      state: st.state,
      documentState: st.document_state,
      version: st.version,
      modified: st.modified,
      savedAt: st.saved_at,
      size: st.size,
      sha256: st.sha256,
      downloadUrl: st.download_url,
      users: st.users,
      expiresAt: st.expires_at,
      loaded: this.loaded,
      callback: st.callback ?? null,
      callbackHistory: st.callback_history ?? [],
    };
  }
}

(window as unknown as { SVC: unknown }).SVC = { Editor };
