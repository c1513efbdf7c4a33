// What one open document is, shared by the parts that act on it: its identity, the kit that hosts
// it, its views, its edit and save counters, its journal. The parts each hold one idea —
// document-loading.ts (from the WOPI host into a kit), document-views.ts (the views and the
// engine's callbacks to them), document-saving.ts (the save state machine), document-recovery.ts
// (a crashed kit or a stopped server replayed from the journal) — and documents.ts (the broker)
// is the document's life from the first view to the last, which wires them together. The parts
// depend on this module and not on each other or on the broker.

import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Logger } from "../log";
import { EMPTY_ALLOW_LIST, type AllowList } from "../net/ssrf";
import { docKeyOf, type AliasGroup } from "../alias-groups";
import type { Kit, KitPool } from "./kits";
import { redactUrl, type WopiAuth, type WopiClient } from "./wopi-client";
import type { Downloads } from "./exports";
import type { Journal } from "./journal";
import type { ClientSession, SaveReason } from "./session";
import { serverFrame } from "./protocol/frames";

/** The admin channel's view of a document's life (admin.ts). */
export interface AdminEvents {
  addView(doc: DocumentState, s: ClientSession): void;
  removeView(doc: DocumentState, s: ClientSession): void;
  modified(doc: DocumentState): void;
  uploaded(doc: DocumentState, ok: boolean): void;
}

export interface BrokerDeps {
  pool: KitPool;
  wopi: WopiClient;
  logger: Logger;
  workRoot: string;
  autosaveSeconds: number;
  /** A modified document is stored this long after its last input (0: never). */
  idleSaveSeconds: number;
  /** Arms and calls off the idle save's timer (default setTimeout/clearTimeout); a test passes its own to fire it itself. */
  idleSaveTimers?: IdleSaveTimers;
  /** First retry delay of a failed save; doubles up to 60 s. */
  saveRetryMs: number;
  /** How long a preloaded document waits for its first session. */
  preloadWaitMs: number;
  admin: AdminEvents;
  /** Files written for "download as" and print, fetched once by the page. */
  downloads: Downloads;
  onClosed(doc: DocumentState): void;
  /** Where documents keep their input journals (journal.ts). */
  journalRoot: string;
  /** How long a view made again by a recovery waits for its page to come back. */
  orphanWaitMs?: number;
  /** What may be fetched for a page (Action_InsertGraphic's URL): SVC_FETCH_ALLOW_HOSTS; none beyond the public internet when absent. */
  fetchAllow?: AllowList;
}

/**
 * The picture of a person in the people list, as Collabora takes it from CheckFileInfo's
 * `UserExtraInfo: {avatar}`: an http(s) URL (the page's CSP lets it load from the WOPI host's
 * origin only) or a `data:image/…` URL of at most 64 KB; anything else is not passed on.
 */
export function avatarOf(info: Record<string, unknown> | undefined | null): string | null {
  const extra = info?.UserExtraInfo;
  const a = extra && typeof extra === "object" ? (extra as { avatar?: unknown }).avatar : undefined;
  if (typeof a !== "string" || a.length > 64 * 1024) return null;
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+$/.test(a)) return a;
  try {
    const u = new URL(a);
    return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password && a.length <= 2048 ? u.href : null;
  } catch {
    return null;
  }
}

/** The idle save's timer, as a seam: set arms it, clear calls it off. */
export interface IdleSaveTimers {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** A save as asked for: by whom (a session's own token is used when it can write) and why. */
export interface SaveRequest {
  reason: SaveReason;
  force: boolean;
  extendedData?: string;
  session?: ClientSession;
}

let documentSeq = 0;

export abstract class DocumentState {
  readonly docKey: string;
  readonly id = ++documentSeq;
  readonly sessions = new Map<string, ClientSession>();
  kit: Kit | null = null;
  /** The kit as the sessions' commands reach it: each request that changes the document is journalled first. */
  journaledKit: Kit | null = null;
  /** Every input sent to the kit, written before it is sent (journal.ts); null until loaded. */
  journal: Journal | null = null;
  state: "new" | "loading" | "loaded" | "closing" | "closed" = "new";
  fileName = "";
  ext = "";
  docType = "";
  lastModifiedTime: string | null = null;
  editSeq = 0;
  savedSeq = 0;
  everUploaded = false;
  conflict = false;
  tooLarge = false;
  /**
   * The storage refused the token of the last save (401/403/404) and no version since holds what
   * was typed: when every view has left, the document waits (documents.ts, REFUSED_TOKEN_HOLD_MS)
   * for its person to come back with a new token, instead of closing.
   */
  tokenRefused = false;
  get fetchAllow(): AllowList {
    return this.deps.fetchAllow ?? EMPTY_ALLOW_LIST;
  }
  readonly startedAt = Date.now();
  lastActivity = Date.now();
  /** The token of the last editing view: an exit save after every view left still has one to store with. */
  lastAuth: WopiAuth | null = null;
  /** Loaded ahead of its first session (see DocumentLoading.preload); cleared when that wait is over. */
  preloading = false;
  /**
   * The file as opened had charts with embedded workbooks: each save gives them back (LibreOffice
   * drops them; app/ooxml/chart-workbooks.ts). Read once, from the file fetched or the journal's base.
   */
  chartWorkbooksInOriginal = false;
  /** Set when the journal must outlive the document (a stop or a recovery that could not store it). */
  keepJournal = false;
  /** The document's own folder in the work root: the file as fetched, saves and exports on their way out. */
  readonly dir: string;
  readonly log: Logger;
  private chain: Promise<unknown> = Promise.resolve();
  private fileCounter = 0;
  private lastModifiedNotified = false;

  constructor(
    readonly wopiSrc: string,
    readonly group: AliasGroup | null,
    readonly deps: BrokerDeps,
  ) {
    this.docKey = docKeyOf(wopiSrc, group);
    // Unguessable: no name a document or a command carries can point at another document's files.
    this.dir = path.join(deps.workRoot, `doc-${process.pid}-${randomBytes(16).toString("hex")}`);
    this.log = deps.logger.child({ component: "document", doc: this.id, wopi: redactUrl(wopiSrc) });
  }

  /** When no view is left: store what is unsaved, then let the kit go (documents.ts). */
  abstract maybeClose(): void;
  /** Ends the document at once: its views, timers, kit and (unless it must be kept) its journal. */
  abstract dispose(): void;

  get wopiHost(): string {
    return new URL(this.wopiSrc).hostname;
  }
  get modified(): boolean {
    return this.editSeq > this.savedSeq;
  }
  get pid(): number {
    return this.kit?.pid ?? 0;
  }

  /** Runs `fn` after everything queued before it: a document's loads, views and recoveries happen one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => {});
    return p;
  }

  /** serial() for work nobody waits on: a failure is logged as `task`, never an unhandled rejection. */
  serialInBackground(task: string, fn: () => Promise<unknown>): void {
    this.serial(fn).catch((err: unknown) => this.log.error("document_task_failed", { task, error: err as Error }));
  }

  /** A new name in the document's folder (saves and exports run side by side with typing). */
  nextFile(prefix: string, ext: string): string {
    return path.join(this.dir, `${prefix}-${++this.fileCounter}${ext ? "." + ext : ""}`);
  }

  broadcast(frame: string): void {
    for (const s of this.sessions.values()) s.send(frame);
  }

  broadcastViews(): void {
    const list = [...this.sessions.values()].map((v) => {
      const avatar = avatarOf(v.info);
      return { viewid: v.viewId, userid: v.userId, username: v.userName, readonly: v.readOnly, ...(avatar ? { userextrainfo: { avatar } } : {}) };
    });
    for (const s of this.sessions.values()) s.send(serverFrame("viewinfo", JSON.stringify(list.map((v) => ({ ...v, current: v.viewid === s.viewId })))));
  }

  /** Tells every view (and the admin channel) when the document turns modified or stored. */
  notifyModified(): void {
    const m = this.modified;
    if (m === this.lastModifiedNotified) return;
    this.lastModifiedNotified = m;
    this.broadcast(serverFrame("statechanged", `.uno:ModifiedStatus=${m}`));
    this.deps.admin.modified(this);
  }

  /** The token a save is stored with: the asking session's when it can write, else any editor's, else the last one. */
  authFor(req: { session?: ClientSession }): WopiAuth | null {
    if (req.session && !req.session.readOnly) return req.session.auth;
    for (const s of this.sessions.values()) if (!s.readOnly) return s.auth;
    return this.lastAuth;
  }
}
