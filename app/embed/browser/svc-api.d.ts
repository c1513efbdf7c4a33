// Type declarations of the browser library api.js (served at /svc/api.d.ts). Copy this file into a
// project that loads <script src="https://<service>/svc/api.js"> and the editor's config, events
// and methods autocomplete. api.js itself is written against these declarations
// (app/embed/browser/api.ts), so they cannot drift apart.

declare namespace SVC {
  type FileType = "docx" | "doc" | "odt" | "rtf" | "txt" | "xlsx" | "xls" | "ods" | "csv" | "pptx" | "ppt" | "odp";
  type Mode = "edit" | "view";

  interface DocumentConfig {
    /** Where the service downloads the file from (the service downloads it, not the browser). */
    url: string;
    fileType: FileType;
    /** Groups co-editors: `^[A-Za-z0-9._-]{1,128}$`; a new key for every content version. */
    key: string;
    /** Display name; default: the file name of the URL. */
    title?: string;
  }

  interface EditorOptions {
    /** Default "edit". */
    mode?: Mode;
    /** Interface language; default "vi". */
    lang?: string;
    user?: { id: string | number; name?: string };
    /** Receives document.saved and document.closed (signed). */
    callbackUrl?: string;
  }

  interface UiOptions {
    /** Size of the editor frame (CSS length); default "100%". */
    width?: string;
    height?: string;
    /** "tabbed" (default): Home, Insert, Layout / Data / Slide, Review, View; "compact": one row, the rest in a "more" menu (also what a frame below 768 px wide gets). */
    toolbar?: "compact" | "tabbed";
    closeButton?: boolean;
    print?: boolean;
    export?: boolean;
    copy?: boolean;
    userList?: boolean;
    ruler?: boolean;
    statusbar?: boolean;
  }

  /** The session object that POST /svc/embed/session answers (201), for `config.session`. */
  interface Session {
    session_id: string;
    key: string;
    doc_id: string;
    mode: Mode;
    requested_mode: Mode;
    limited: boolean;
    limit: { limit: number; current: number; edition: string } | null;
    message: string | null;
    editor_url: string;
    form: { access_token: string; access_token_ttl: number; ui_defaults: string };
    version: number;
    expires_at: string;
  }

  interface ErrorInfo {
    /** A spec error code (invalid_config, origin_not_allowed, …) or a browser-only one:
     *  network_error, load_failed, save_failed, save_timeout. */
    code: string;
    /** A Vietnamese sentence for people; not to be parsed. */
    message: string;
    detail: Record<string, unknown>;
  }

  interface ReadyEvent {
    sessionId: string;
    docId: string;
    key: string;
    mode: Mode;
    limited: boolean;
    version: number;
  }

  interface LoadedEvent {
    /** From `new SVC.Editor(...)` (or the reload after setReadOnly) to the document shown. */
    loadTimeMs: number;
  }

  interface ModifiedEvent {
    modified: boolean;
  }

  interface SavedEvent {
    version: number;
    /** Signed download link of that version (valid SVC_EMBED_RETAIN_HOURS). */
    url: string;
    size: number;
    sha256: string;
    savedAt: string;
  }

  interface CloseEvent {
    /** "user": the editor's close button; "host": close() was called; otherwise the editing
     *  server's reason (OwnerTermination, DocumentIdle, ShuttingDown, DocumentDisconnected, …). */
    reason: string;
  }

  interface LimitEvent {
    message: string;
    limit: { limit: number; current: number; edition: string } | null;
  }

  interface Events {
    /** The editor frame is up and talking to this page. */
    onReady?(e: ReadyEvent): void;
    onDocumentLoaded?(e: LoadedEvent): void;
    onModified?(e: ModifiedEvent): void;
    /** A new version was stored (a save, an autosave, a person leaving). */
    onSaved?(e: SavedEvent): void;
    onClose?(e: CloseEvent): void;
    /** An edit request was opened read-only: the connection cap is reached. */
    onLimitReached?(e: LimitEvent): void;
    onError?(e: ErrorInfo): void;
  }

  interface EditorConfig {
    /** A session your backend created (the way for production: the JWT secret stays on the server). */
    session?: Session;
    /** Or: the config itself, signed by your backend into `token` … */
    token?: string;
    /** … or unsigned, where the operator allows it (development): `document` and `editor` are then
     *  both required (`editor: {}` takes every default). */
    document?: DocumentConfig;
    editor?: EditorOptions;
    ui?: UiOptions;
    events?: Events;
    /** The service's origin; default: the origin api.js was loaded from. */
    serverUrl?: string;
    /** For tests only: the spec's load time-out (120 s) and save() time-out (30 s). */
    timeouts?: { loadMs?: number; saveMs?: number };
    /** When the editor cannot open, show the person a plain sentence with the error code and the
     *  request id in its place (default true); false leaves the element to the page's onError. */
    errorScreen?: boolean;
  }

  /** One attempt of a save callback (the session state's `callback_history`). */
  interface CallbackAttempt {
    attempt: number;
    at: string;
    status: number | null;
    error: string | null;
    message: string | null;
    latency_ms: number | null;
    next_attempt_at: string | null;
    /** The attempt in words (Vietnamese): what happened and what to change. */
    explanation: string;
  }

  interface CallbackDelivery {
    delivery_id: string;
    event: string;
    version: number;
    url_host: string;
    state: "pending" | "delivered" | "failed" | string;
    created_at: string;
    attempts: CallbackAttempt[];
  }

  interface Info {
    sessionId: string;
    docId: string;
    key: string;
    mode: Mode;
    requestedMode: Mode;
    limited: boolean;
    /** "active" or "closed" (DELETE or close()). */
    state: string;
    documentState: string;
    version: number;
    modified: boolean;
    savedAt: string;
    size: number;
    sha256: string;
    downloadUrl: string;
    users: { id: string; name: string }[];
    expiresAt: string;
    /** The document is shown in the frame. */
    loaded: boolean;
    /** The document's last callback delivery (the state's `callback`); null before any. */
    callback: Record<string, unknown> | null;
    /** The document's latest save callbacks, newest first, with every attempt. */
    callbackHistory: CallbackDelivery[];
  }

  class Editor {
    /** Creates the session (or takes `config.session`) and opens the editor in the element. */
    constructor(elementId: string, config: EditorConfig);
    /** api.js's version. */
    static readonly version: string;
    /** Stores the document now. Resolves with the version stored (the current one when nothing
     *  changed); rejects with ErrorInfo save_failed, or save_timeout after 30 s. */
    save(): Promise<SavedEvent>;
    /** Ends editing: the editing server saves what is unsaved (the final save, sent by callback),
     *  the session is closed, the frame removed; onClose({reason: "host"}). */
    close(): Promise<void>;
    /** Removes the frame and every listener at once; no more events. */
    destroy(): void;
    /** Read-only (true, the default) or editing again (false, the connection cap applies: at
     *  the cap the editor stays read-only and onLimitReached fires). Reloads the frame. */
    setReadOnly(readOnly?: boolean): Promise<Info>;
    getInfo(): Promise<Info>;
  }
}

interface Window {
  SVC: typeof SVC;
}
