// The document broker: one per open document (docKey). It owns the kit that hosts the document,
// the views (one per WebSocket session), the WOPI state (LastModifiedTime, tokens) and the save
// state machine:
//
//   idle ──save requested──▶ saving ──200──▶ idle (stored)
//                              ├──409────▶ conflict   (no automatic retry; a forced save may overwrite)
//                              ├──413────▶ too large  (every session becomes read-only)
//                              ├──401/403/404─▶ unauthorized (that token is dropped; another editor's token is tried next time)
//                              └──other / no answer ─▶ retry after a back-off (the document is kept)
//
// Saves run one at a time; a save requested while one runs is run after it. Saves happen on
// request (the page's save / Action_Save), as autosave while the document is modified (every
// SVC_EDSRV_AUTOSAVE_SECONDS), and as an exit save when the last view leaves. The document and
// its kit stay until the last change is stored; only then is the kit recycled.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Journal, JOURNALLED_OPS, journalDirFor, tokenHashOf } from "./journal";
import { lastActionSeqs, replay, ReplayCrash, type RecoveredView } from "./recovery";
import path from "node:path";
import type { Logger } from "../log";
import { EDITABLE_EXTENSIONS } from "./discovery";
import { docKeyOf, type AliasGroup } from "../alias-groups";
import type { Kit, KitPool } from "./kits";
import { redactUrl, type CheckFileInfo, type WopiAuth, type WopiClient } from "./wopi-client";
import { parseArgs, runViewCommand, sendTiles, sendTilesStale, statusFrame } from "./view-commands";
import { exportName, type Downloads } from "./exports";
import { ViewTiles, firstScreenTiles } from "./tile-push";
import type { ClientSession, SaveOutcome, SaveReason } from "./session";
import { CALLBACK_NAMES, deliverAfterPushes } from "./view-callbacks";

export type { ClientSession, SaveOutcome } from "./session";

export interface AdminEvents {
  addView(doc: DocumentBroker, s: ClientSession): void;
  removeView(doc: DocumentBroker, s: ClientSession): void;
  modified(doc: DocumentBroker): void;
  uploaded(doc: DocumentBroker, ok: boolean): void;
}

export interface BrokerDeps {
  pool: KitPool;
  wopi: WopiClient;
  logger: Logger;
  workRoot: string;
  autosaveSeconds: number;
  /** A modified document is stored this long after its last input (0: never). */
  idleSaveSeconds: number;
  /** First retry delay of a failed save; doubles up to 60 s. */
  saveRetryMs: number;
  /** How long a preloaded document waits for its first session. */
  preloadWaitMs: number;
  admin: AdminEvents;
  /** Files written for "download as" and print, fetched once by the page. */
  downloads: Downloads;
  onClosed(doc: DocumentBroker): void;
  /** Where documents keep their input journals (journal.ts). */
  journalRoot: string;
  /** How long a view made again by a recovery waits for its page to come back. */
  orphanWaitMs?: number;
}

/** How long a recovered view waits for its page, by default. */
export const ORPHAN_WAIT_MS = 60_000;

let brokerSeq = 0;
/** How long a preloaded document waits for its first session, by default. */
export const PRELOAD_WAIT_MS = 15_000;
/** Callbacks kept for a view while it is attached (its first ones are a handful; a state dump is ~200). */
const MAX_HELD_CALLBACKS = 1000;

export class DocumentBroker {
  readonly docKey: string;
  readonly id = ++brokerSeq;
  readonly sessions = new Map<string, ClientSession>();
  kit: Kit | null = null;
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
  readonly startedAt = Date.now();
  lastActivity = Date.now();
  private readonly dir: string;
  private loadPromise: Promise<void> | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * While a view is being attached: the engine's callbacks for it (its first cursor, selection
   * and tile invalidation are emitted while the view is created, and can arrive in the same read
   * as the kit's answer, before the session knows its view id). They are handed to the session
   * once it has its first status, in the order they came. `viewId` is unknown until the kit answers.
   */
  private attaching: { viewId?: number; held: Map<number, string[]> } | null = null;
  private saving: Promise<SaveOutcome> | null = null;
  private saveQueued: { reason: SaveReason; force: boolean; extendedData?: string; session?: ClientSession } | null = null;
  private retryTimer: Timer | null = null;
  private retryDelay: number;
  private autosaveTimer: Timer | null = null;
  private idleSaveTimer: Timer | null = null;
  private lastAuth: WopiAuth | null = null;
  /** Every input sent to the kit, written before it is sent (journal.ts); null until loaded. */
  private journal: Journal | null = null;
  /** The kit as the sessions' commands reach it: each request that changes the document is journalled first. */
  private journaledKit: Kit | null = null;
  /** Views made again by a recovery, waiting for their page to reconnect, by the session's token hash. */
  private readonly orphans = new Map<string, RecoveredView & { actionDropped: boolean }>();
  private orphanTimer: Timer | null = null;
  private saveCounter = 0;
  private lastModifiedNotified = false;
  private readonly log: Logger;
  /** Loaded ahead of its first session (see preload); cleared when that wait is over. */
  preloading = false;
  /** Sessions queued behind the work in progress (a preload, another attach). */
  private waiting = 0;

  constructor(
    readonly wopiSrc: string,
    readonly group: AliasGroup | null,
    private readonly deps: BrokerDeps,
  ) {
    this.docKey = docKeyOf(wopiSrc, group);
    this.dir = path.join(deps.workRoot, `doc-${process.pid}-${this.id}`);
    this.retryDelay = deps.saveRetryMs;
    this.log = deps.logger.child({ component: "document", doc: this.id, wopi: redactUrl(wopiSrc) });
  }

  get wopiHost(): string {
    return new URL(this.wopiSrc).hostname;
  }
  get modified(): boolean {
    return this.editSeq > this.savedSeq;
  }
  get pid(): number {
    return this.kit?.pid ?? 0;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => {});
    return p;
  }

  // ----------------------------------------------------------------------------- sessions

  /** CheckFileInfo for the new view, load on the first view, then create the view. */
  /**
   * Attaches a session's view; "closed" when this broker closed while the session waited for it
   * (its last view left just before): the caller hands the session to a new broker instead.
   */
  addSession(s: ClientSession): Promise<boolean | "closed"> {
    this.waiting++;
    return this.serial<boolean | "closed">(async () => {
      this.waiting--;
      if (this.state === "closed") return "closed";
      return this.attach(s);
    });
  }

  private async attach(s: ClientSession): Promise<boolean> {
    if (this.state === "closed" || (this.state === "closing" && !this.kit?.alive)) {
      s.send("error: cmd=internal kind=docunloading");
      s.close();
      return false;
    }
    s.send('progress: {"id":"find"}');
    // Always asked again for the view, never the preload's answer: the session may have been
    // switched to view or deleted since the page was requested (the permission is the view's).
    const cfi = await this.deps.wopi.checkFileInfo(this.wopiSrc, s.auth);
    if (cfi.kind !== "ok") {
      this.log.warn("checkfileinfo_failed", { session: s.id, kind: cfi.kind, status: cfi.status });
      s.send(cfi.kind === "unauthorized" ? "error: cmd=internal kind=unauthorized" : "error: cmd=load kind=faileddocloading");
      s.close();
      if (this.state === "new") this.dispose();
      else this.maybeClose();
      return false;
    }
    const info = cfi.info;
    s.info = info;
    s.userId = String(info.UserId ?? "");
    s.userName = typeof info.UserFriendlyName === "string" && info.UserFriendlyName ? info.UserFriendlyName : `UnknownUser${s.userId ? "_" + s.userId : ""}`;
    const ext = path.extname(info.BaseFileName).slice(1).toLowerCase();
    s.readOnly = info.UserCanWrite !== true || s.requestedReadOnly || !EDITABLE_EXTENSIONS.has(ext) || this.tooLarge;

    if (this.state === "closing") this.state = "loaded"; // a view came back during the exit save
    if (this.state === "loaded") {
      // Every new view re-reads CheckFileInfo; a different LastModifiedTime means someone else changed the file.
      const lmt = info.LastModifiedTime ?? null;
      if (lmt !== null && this.lastModifiedTime !== null && lmt !== this.lastModifiedTime && !this.saving) {
        this.conflict = true;
        this.log.warn("document_conflict", { reason: "checkfileinfo" });
        this.broadcast("error: cmd=storage kind=documentconflict");
      }
    } else {
      const failed = await this.load(s.auth, info);
      if (failed) {
        s.send(failed);
        s.close();
        this.dispose();
        return false;
      }
    }
    if (!this.kit || this.state !== "loaded") {
      s.send("error: cmd=internal kind=docunloading");
      s.close();
      return false;
    }
    if (!s.readOnly) await this.replaceEarlierViews(s);
    this.attaching = { held: new Map() };
    try {
      return await this.attachView(s, info);
    } finally {
      this.attaching = null;
    }
  }

  private async attachView(s: ClientSession, info: CheckFileInfo): Promise<boolean> {
    const kit = this.kit!;
    let viewId: number;
    const adopted = this.takeOrphan(s);
    if (adopted) {
      // The page of a view a recovery made again: it takes that view back, caret and selection as they were.
      viewId = adopted.viewId;
      if (adopted.actionDropped) s.send("error: cmd=recovery kind=actiondropped");
      this.log.info("view_recovered", { session: s.id, view_id: viewId });
    } else {
      try {
        const ref = this.journal?.append("view", { readOnly: s.readOnly, author: s.userName, token: tokenHashOf(s.auth.token) });
        viewId = (await kit.request<{ viewId: number }>("view", { readOnly: s.readOnly, author: s.userName })).viewId;
        if (ref !== undefined) this.journal?.append("viewmade", { ref, viewId });
      } catch (err) {
        this.log.error("view_create_failed", { error: err as Error });
        s.send("error: cmd=load kind=faileddocloading");
        s.close();
        return false;
      }
    }
    this.attaching!.viewId = viewId;
    s.viewId = viewId;
    s.tiles = new ViewTiles((tiles) => (this.kit && this.sessions.has(s.id) ? sendTiles(this.kit, s, tiles, "push") : Promise.resolve(null)));
    this.sessions.set(s.id, s);
    this.preloading = false;
    if (!s.readOnly) {
      this.lastAuth = s.auth;
      this.journal?.setAuth(s.auth);
    }
    this.lastActivity = Date.now();
    const wopiInfo = {
      BaseFileName: info.BaseFileName,
      UserCanWrite: info.UserCanWrite === true,
      PostMessageOrigin: info.PostMessageOrigin,
      UserId: s.userId,
      UserFriendlyName: s.userName,
      IsOwner: info.OwnerId !== undefined && info.OwnerId === info.UserId,
      HideSaveOption: info.HideSaveOption,
      HidePrintOption: info.HidePrintOption === true,
      HideExportOption: info.HideExportOption === true,
      DisablePrint: info.DisablePrint === true,
      DisableExport: info.DisableExport === true,
      DisableCopy: info.DisableCopy === true,
      EnableOwnerTermination: info.EnableOwnerTermination,
    };
    s.send(`wopi: ${JSON.stringify(wopiInfo)}`);
    s.send(`perm: ${s.readOnly ? "readonly" : "edit"}`);
    s.send(`filemode: ${JSON.stringify({ readOnly: s.readOnly })}`);
    if (this.lastModifiedTime !== null) s.send(`lastmodtime: ${this.lastModifiedTime}`);
    const st = await kit.request<Record<string, unknown>>("status", { viewId });
    const ahead = firstScreenTiles(s.firstScreenArea, st);
    const grid = ahead[0];
    // Announced before the status, so the page's first request leaves these out.
    if (grid) s.send(`firstscreen: part=${grid.part} tileposx=${ahead.map((t) => t.x).join(",")} tileposy=${ahead.map((t) => t.y).join(",")} tilewidth=${grid.w} tileheight=${grid.h} width=${grid.width} height=${grid.height}`);
    s.send(statusFrame(st, viewId, this.docType));
    s.send(`statechanged: .uno:ModifiedStatus=${this.modified}`);
    if (grid) {
      s.tiles?.noteRequest(grid);
      void sendTiles(kit, s, ahead, "first").catch(() => sendTilesStale(s, ahead, "first")); // the page asks for them itself
    }
    for (const frame of this.attaching!.held.get(viewId) ?? []) s.send(frame);
    this.attaching = null;
    this.broadcastViews();
    this.deps.admin.addView(this, s);
    this.log.info("view_added", { session: s.id, view_id: viewId, read_only: s.readOnly, views: this.sessions.size });
    this.startAutosave();
    return true;
  }

  /**
   * One editing view per access token: a new editing view replaces an earlier one of the same
   * token (a reload or reconnect whose old socket has not closed yet, or the token reused in a
   * second tab), before it is made, so the document never holds both. The gate admits a token's
   * later connections as reconnects of the view it counted, so a reused token never holds more
   * than one connection of the cap. The earlier page is told why (`close: replaced`).
   */
  private async replaceEarlierViews(s: ClientSession): Promise<void> {
    for (const other of [...this.sessions.values()]) {
      if (other.readOnly || other.auth.token !== s.auth.token) continue;
      this.log.info("view_replaced", { session: other.id, by: s.id });
      other.send("close: replaced");
      await this.detachView(other);
      other.close();
    }
  }

  /** Makes `kit` the document's kit: its callbacks go to the views, its crash starts a recovery. */
  private useKit(kit: Kit): void {
    this.kit = kit;
    const journal = () => this.journal;
    const request = (op: string, fields: Record<string, unknown> = {}) => {
      if (JOURNALLED_OPS.has(op)) journal()?.append(op, fields);
      return kit.request(op, fields);
    };
    this.journaledKit = new Proxy(kit, { get: (target, prop) => (prop === "request" ? request : Reflect.get(target, prop, target)) });
    kit.onCallback = (e) => this.onKitCallback(e.viewId, e.cb, e.payload, e.version);
    kit.onExit = ({ crashed }) => {
      if (crashed && this.kit === kit) this.onKitCrash();
    };
  }

  private async load(auth: WopiAuth, info: CheckFileInfo): Promise<string | null> {
    this.state = "loading";
    this.fileName = info.BaseFileName;
    this.ext = path.extname(info.BaseFileName).slice(1).toLowerCase();
    this.lastModifiedTime = info.LastModifiedTime ?? null;
    mkdirSync(this.dir, { recursive: true });
    const file = await this.deps.wopi.getFile(this.wopiSrc, auth, typeof info.FileUrl === "string" && info.FileUrl ? info.FileUrl : undefined);
    if (!("bytes" in file)) {
      this.log.warn("getfile_failed", { status: file.status });
      return "error: cmd=load kind=faileddocloading";
    }
    const local = path.join(this.dir, `original${this.ext ? "." + this.ext : ""}`);
    writeFileSync(local, file.bytes);
    let kit: Kit;
    try {
      kit = await this.deps.pool.acquire();
    } catch (err) {
      this.log.error("kit_unavailable", { error: err as Error });
      return "error: cmd=internal kind=kitunavailable";
    }
    this.useKit(kit);
    try {
      const st = await kit.request<{ type: string }>("load", { path: local, name: info.BaseFileName });
      this.docType = st.type;
    } catch (err) {
      this.log.warn("document_load_failed", { error: err as Error });
      return "error: cmd=load kind=faileddocloading";
    }
    try {
      this.journal = Journal.begin(journalDirFor(this.deps.journalRoot, this.docKey), local, { wopiSrc: this.wopiSrc, fileName: this.fileName, ext: this.ext, auth: info.UserCanWrite === true ? auth : null, lastModifiedTime: this.lastModifiedTime }, this.log);
    } catch (err) {
      // The data directory is full or read-only: the document opens, but a crash would lose input.
      this.log.error("journal_unavailable", { error: err as Error, code: (err as NodeJS.ErrnoException).code ?? null });
    }
    this.state = "loaded";
    this.log.info("document_loaded", { kit_pid: kit.pid, ext: this.ext, bytes: file.bytes.byteLength });
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
    if (this.state !== "new") return;
    this.preloading = true;
    void this.serial(async () => {
      if (this.state !== "new") return;
      const cfi = await this.deps.wopi.checkFileInfo(this.wopiSrc, auth);
      if (cfi.kind !== "ok" || this.state !== "new") return this.endPreload();
      const failed = await this.load(auth, cfi.info);
      if (failed) return this.endPreload();
      this.log.info("document_preloaded", {});
      const timer = setTimeout(() => {
        this.preloading = false;
        this.maybeClose();
      }, this.deps.preloadWaitMs);
      timer.unref?.();
    });
  }

  private endPreload(): void {
    this.preloading = false;
    if (this.waiting === 0) return this.dispose();
    // A session is queued behind the preload: it tries again from the start and reports what fails.
    if (this.kit) this.deps.pool.release(this.kit);
    this.kit = null;
    this.state = "new";
  }

  removeSession(s: ClientSession): void {
    void this.serial(async () => {
      if (!(await this.detachView(s))) return;
      this.broadcastViews();
      this.maybeClose();
    });
  }

  /** Takes a session's view out of the document (inside the serial chain); false when it was not in. */
  private async detachView(s: ClientSession): Promise<boolean> {
    if (!this.sessions.delete(s.id)) return false;
    this.deps.admin.removeView(this, s);
    this.log.info("view_removed", { session: s.id, views: this.sessions.size });
    if (this.kit?.alive && this.journaledKit && s.viewId !== undefined) {
      try {
        await this.journaledKit.request("unview", { viewId: s.viewId });
      } catch {
        // the kit is going away anyway
      }
    }
    return true;
  }

  /** When no view is left: exit save if needed (kept and retried until stored), then recycle the kit. */
  private maybeClose(): void {
    if (this.sessions.size > 0 || this.state === "closed" || this.state === "loading" || this.state === "new") return;
    if (this.preloading) return; // loaded ahead of a session that is on its way (preload's timer ends the wait)
    if (this.orphans.size > 0) return; // recovered views waiting for their pages (endOrphans ends the wait)
    if (this.saving || this.retryTimer) return;
    if (this.modified && this.kit?.alive) {
      const storable = !this.conflict && !this.tooLarge && this.authFor({}) !== null;
      if (storable && this.state === "loaded") {
        this.state = "closing";
        void this.requestSave({ reason: "exit", force: false });
        return;
      }
      // Unsaved changes that the storage will not take without a person deciding: keep a copy.
      this.state = "closing";
      void this.quarantine().then(() => this.dispose());
      return;
    }
    this.dispose();
  }

  /** Keeps a copy of unsaved changes that cannot be stored (conflict, too large) in the work root. */
  private async quarantine(): Promise<void> {
    if (!this.kit?.alive) return;
    const dir = path.join(this.deps.workRoot, "quarantine");
    mkdirSync(dir, { recursive: true });
    const target = path.join(dir, `${Date.now()}-${this.id}.${this.ext || "bin"}`);
    try {
      await this.kit.request("save", { path: target, format: this.ext });
      this.log.error("document_quarantined", { reason: this.conflict ? "conflict" : "toolarge", file: path.basename(target) });
    } catch (err) {
      this.log.error("document_quarantine_failed", { error: err as Error });
    }
  }

  private dispose(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    if (this.autosaveTimer) clearInterval(this.autosaveTimer);
    if (this.idleSaveTimer) clearTimeout(this.idleSaveTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const s of this.sessions.values()) {
      this.deps.admin.removeView(this, s);
      s.close();
    }
    this.sessions.clear();
    if (this.orphanTimer) clearTimeout(this.orphanTimer);
    this.orphans.clear();
    if (this.kit) this.deps.pool.release(this.kit);
    rmSync(this.dir, { recursive: true, force: true });
    // Kept only while it holds input no stored version has: the next start recovers it.
    const keep = !!this.journal?.unstored && this.keepJournal;
    this.journal?.close(!keep);
    this.journal = null;
    this.log.info("document_closed", keep ? { journal_kept: true } : {});
    this.deps.onClosed(this);
  }

  private onKitCrash(): void {
    this.log.error("document_kit_crashed", { views: this.sessions.size, unsaved: this.modified, journal: !!this.journal });
    this.kit = null;
    this.journaledKit = null;
    if (!this.journal || this.journal.failed || this.state === "closed") {
      for (const s of this.sessions.values()) {
        s.send("error: cmd=internal kind=crashed");
        s.send("close: docdisconnected");
      }
      this.dispose();
      return;
    }
    // Every page is asked to reconnect; meanwhile a new kit replays the journal, and each page then
    // takes its own view back (takeOrphan).
    for (const s of this.sessions.values()) {
      this.deps.admin.removeView(this, s);
      s.send("close: recovering");
      s.close();
    }
    this.sessions.clear();
    this.state = "loading";
    void this.serial(async () => {
      // Recovered input that no stored version holds is stored at once: the host holds what was typed.
      if ((await this.recover("kit_crash")) && this.modified) void this.requestSave({ reason: "auto", force: false });
    });
  }

  /** Set when the journal must outlive the document (a stop that could not store it). */
  private keepJournal = false;

  /**
   * A new kit loads the file the journal started from and replays every input; a replay the
   * engine crashes on again is made once more one input at a time, which finds the input, and
   * then without it (its people are told when they come back). The views open at the end wait for
   * their pages (ORPHAN_WAIT_MS); an orphan nobody takes back is ended then.
   */
  private async recover(cause: "kit_crash" | "restart"): Promise<boolean> {
    const journal = this.journal!;
    journal.flush();
    const t0 = performance.now();
    let dropped: number[] = [];
    // The whole journal first; after a crash of the replay, without the last action, then the one before.
    for (let attempt = 0; attempt < 4; attempt++) {
      const read = Journal.read(journal.dir);
      if (!read) break;
      let kit: Kit;
      try {
        kit = await this.deps.pool.acquire();
      } catch (err) {
        this.log.error("kit_unavailable", { error: err as Error });
        break;
      }
      kit.onCallback = () => {}; // nobody to tell until the views are handed back
      const skip = new Set([...journal.meta.poison]);
      try {
        const r = await replay(kit, journal.basePath, journal.meta.fileName, read.entries, skip);
        this.useKit(kit);
        this.docType = String(r.status.type ?? this.docType);
        this.state = "loaded";
        for (const v of r.views) {
          // Its id in the new kit, for the replay after a later crash.
          journal.append("viewmade", { ref: v.ref, viewId: v.viewId });
          if (v.tokenHash) this.orphans.set(v.tokenHash, { ...v, actionDropped: dropped.length > 0 });
          else await this.journaledKit!.request("unview", { viewId: v.viewId }).catch(() => {});
        }
        this.orphanTimer = setTimeout(() => void this.serial(() => this.endOrphans()), this.deps.orphanWaitMs ?? ORPHAN_WAIT_MS);
        this.log.info("document_recovered", { cause, entries: r.replayed, views: r.views.length, attempts: attempt + 1, dropped_entries: dropped.length, ms: Math.round(performance.now() - t0) });
        return true;
      } catch (err) {
        kit.kill();
        if (!(err instanceof ReplayCrash)) {
          this.log.error("document_recovery_failed", { error: err as Error });
          break;
        }
        const action = lastActionSeqs(read.entries, skip);
        if (!action.length) break;
        for (const seq of action) journal.markPoison(seq);
        dropped = [...dropped, ...action];
        this.log.error("document_input_dropped", { seqs: action, op: read.entries.find((e) => e.seq === action[0])?.op, reason: "the engine crashed replaying it" });
      }
    }
    this.log.error("document_not_recovered", { cause });
    this.keepJournal = true;
    this.dispose();
    return false;
  }

  /** The recovered view of a reconnecting session (same token, same permission), taken once. */
  private takeOrphan(s: ClientSession): (RecoveredView & { actionDropped: boolean }) | null {
    const key = tokenHashOf(s.auth.token);
    const v = this.orphans.get(key);
    if (!v || v.readOnly !== s.readOnly) return null;
    this.orphans.delete(key);
    return v;
  }

  /** Recovered views whose page did not come back: ended, and the document closes when nobody is left. */
  private async endOrphans(): Promise<void> {
    this.orphanTimer = null;
    for (const v of this.orphans.values()) await this.journaledKit?.request("unview", { viewId: v.viewId }).catch(() => {});
    this.orphans.clear();
    this.maybeClose();
  }

  /**
   * After a restart of the editing server: the document of a journal the previous process left,
   * replayed into a kit and stored through its WOPI host as a new version (an autosave), so the
   * host holds what was typed. Its pages, reconnecting, take their views back.
   */
  async recoverJournal(dir: string): Promise<boolean> {
    return this.serial(async () => {
      const resumed = Journal.resume(dir, this.log);
      if (!resumed) return false;
      const { journal } = resumed;
      this.journal = journal;
      this.fileName = journal.meta.fileName;
      this.ext = journal.meta.ext;
      this.lastModifiedTime = journal.meta.lastModifiedTime;
      this.lastAuth = journal.meta.auth;
      this.state = "loading";
      if (!(await this.recover("restart"))) return false;
      if (journal.unstored) {
        this.editSeq = this.savedSeq + 1;
        const out = await this.requestSave({ reason: "auto", force: false });
        this.log.info("document_recovered_stored", { outcome: out.result });
      }
      return true;
    });
  }

  // ----------------------------------------------------------------------------- messages

  private broadcast(frame: string): void {
    for (const s of this.sessions.values()) s.send(frame);
  }

  private broadcastViews(): void {
    const list = [...this.sessions.values()].map((v) => ({ viewid: v.viewId, userid: v.userId, username: v.userName, readonly: v.readOnly }));
    for (const s of this.sessions.values()) s.send(`viewinfo: ${JSON.stringify(list.map((v) => ({ ...v, current: v.viewid === s.viewId })))}`);
  }

  private onKitCallback(viewId: number, cb: number, payload: string, version?: number): void {
    if (cb === 13) {
      // The document size changed: send that view its new status.
      const s = [...this.sessions.values()].find((x) => x.viewId === viewId);
      if (s && this.kit) void this.kit.request("status", { viewId }).then((st) => s.send(statusFrame(st, viewId, this.docType)), () => {});
      return;
    }
    const name = CALLBACK_NAMES[cb];
    if (!name) return;
    if (cb === 8 && payload.startsWith(".uno:ModifiedStatus")) return; // the broker owns the modified state
    const frame = version === undefined ? `${name}: ${payload}` : `${name}: ${payload} ver=${version}`;
    if (this.attaching && (this.attaching.viewId === viewId || ![...this.sessions.values()].some((x) => x.viewId === viewId))) {
      const held = this.attaching.held.get(viewId) ?? [];
      // Bounded: a view being attached cannot grow the server's memory without limit.
      if (held.length >= MAX_HELD_CALLBACKS) held.shift();
      held.push(frame);
      this.attaching.held.set(viewId, held);
      return;
    }
    for (const s of this.sessions.values()) {
      if (s.viewId !== viewId) continue;
      const pushed = cb === 0 && version !== undefined ? s.tiles?.onInvalidation(payload, version) : null;
      deliverAfterPushes(s, frame, pushed ?? null);
    }
  }

  /**
   * Counts an edit when its input is sent to the kit, not when the kit answers: the kit runs input
   * and saves in the order they were sent, so a save requested after this input contains it and
   * may mark it saved. Counted on the answer instead, an edit sent just before a save was counted
   * after the save took its sequence number, and the document stayed "modified" once stored.
   */
  markEdited(): void {
    this.editSeq++;
    this.lastActivity = Date.now();
    this.notifyModified();
    this.scheduleIdleSave();
  }

  /** Collabora's idle save: a few seconds after the last input the document is stored, so a version rarely lags the screen. */
  private scheduleIdleSave(): void {
    if (this.deps.idleSaveSeconds <= 0) return;
    if (this.idleSaveTimer) clearTimeout(this.idleSaveTimer);
    this.idleSaveTimer = setTimeout(() => {
      this.idleSaveTimer = null;
      if (this.modified && !this.saving && !this.retryTimer && !this.conflict && !this.tooLarge && this.state === "loaded") {
        void this.requestSave({ reason: "auto", force: false });
      }
    }, this.deps.idleSaveSeconds * 1000);
  }

  private notifyModified(): void {
    const m = this.modified;
    if (m === this.lastModifiedNotified) return;
    this.lastModifiedNotified = m;
    this.broadcast(`statechanged: .uno:ModifiedStatus=${m}`);
    this.deps.admin.modified(this);
  }

  /** Writes the document with its edits in `format` for a download or print; answers the download id. */
  async exportAs(format: string): Promise<string> {
    const kit = this.kit;
    if (!kit?.alive || this.state === "closed") throw new Error("document not loaded");
    const file = path.join(this.dir, `export-${++this.saveCounter}.${format}`);
    await kit.request("save", { path: file, format });
    return this.deps.downloads.add(file, exportName(this.fileName, format), format);
  }

  /** One text frame from a session (after `load`), run by view-commands.ts. */
  async handleMessage(s: ClientSession, text: string): Promise<void> {
    if (!this.sessions.has(s.id) || !this.kit || this.state === "closed") return;
    s.lastActivity = Date.now();
    const sp = text.indexOf(" ");
    const cmd = sp < 0 ? text : text.slice(0, sp);
    try {
      await runViewCommand({ doc: this, kit: this.journaledKit ?? this.kit, session: s }, cmd, parseArgs(sp < 0 ? "" : text.slice(sp + 1)));
    } catch (err) {
      this.log.warn("command_failed", { cmd, error: err as Error });
      s.send(`error: cmd=${cmd} kind=failed`);
    }
  }

  // ----------------------------------------------------------------------------- saving

  private startAutosave(): void {
    if (this.autosaveTimer || this.deps.autosaveSeconds <= 0) return;
    this.autosaveTimer = setInterval(() => {
      if (this.modified && !this.saving && !this.retryTimer && !this.conflict && !this.tooLarge && this.state === "loaded") {
        void this.requestSave({ reason: "auto", force: false });
      }
    }, this.deps.autosaveSeconds * 1000);
  }

  /** Queues a save (one runs at a time) and resolves with its outcome. */
  requestSave(req: { reason: SaveReason; force: boolean; extendedData?: string; session?: ClientSession }): Promise<SaveOutcome> {
    if (this.saving) {
      // Run once more after the current one (the latest request wins; an exit save stays an exit save).
      const exit = this.saveQueued?.reason === "exit" || req.reason === "exit";
      this.saveQueued = { ...req, reason: exit ? "exit" : req.reason };
      return this.saving.then(() => (this.saving ? this.saving : this.requestSave(this.saveQueued ?? req)));
    }
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    const p = this.runSave(req).finally(() => {
      this.saving = null;
      const next = this.saveQueued;
      this.saveQueued = null;
      if (next) void this.requestSave(next);
      else if (this.sessions.size === 0) this.maybeClose();
    });
    this.saving = p;
    return p;
  }

  private authFor(req: { session?: ClientSession }): WopiAuth | null {
    if (req.session && !req.session.readOnly) return req.session.auth;
    for (const s of this.sessions.values()) if (!s.readOnly) return s.auth;
    return this.lastAuth;
  }

  private async runSave(req: { reason: SaveReason; force: boolean; extendedData?: string; session?: ClientSession }): Promise<SaveOutcome> {
    const kit = this.kit;
    if (!kit?.alive || this.state === "closed") return { success: false, result: "unavailable", errorMsg: "document not loaded" };
    const auth = this.authFor(req);
    if (!auth) return { success: false, result: "unauthorized", errorMsg: "no editing session token" };
    if (this.conflict && !req.force) {
      return { success: false, result: "conflict", errorMsg: "the file was changed by someone else" };
    }
    const seq = this.editSeq;
    const modifiedByUser = this.modified;
    const file = path.join(this.dir, `save-${++this.saveCounter}${this.ext ? "." + this.ext : ""}`);
    // The kit runs requests in order: the file holds every journal entry written before this one.
    const journalSeq = this.journal?.seq ?? 0;
    mkdirSync(this.dir, { recursive: true });
    let body: Buffer;
    try {
      await kit.request("save", { path: file, format: this.ext });
      // Read back here: the document's folder can be gone when the server stops during a save.
      body = readFileSync(file);
    } catch (err) {
      this.log.error("document_save_failed", { error: err as Error });
      this.scheduleRetry(req);
      return { success: false, result: "failed", errorMsg: "the engine could not save" };
    } finally {
      rmSync(file, { force: true });
    }
    const t0 = performance.now();
    const res = await this.deps.wopi.putFile(this.wopiSrc, auth, body, {
      isModifiedByUser: modifiedByUser,
      isAutosave: req.reason === "auto",
      isExitSave: req.reason === "exit",
      timestamp: req.force ? null : this.lastModifiedTime,
      extendedData: req.extendedData,
    });
    const ms = Math.round(performance.now() - t0);
    this.log.info("putfile", { reason: req.reason, outcome: res.kind, status: "status" in res ? res.status : 200, bytes: body.byteLength, ms });
    switch (res.kind) {
      case "ok":
        if (res.lastModifiedTime !== null) this.lastModifiedTime = res.lastModifiedTime;
        this.journal?.stored(journalSeq, this.lastModifiedTime, auth);
        this.savedSeq = Math.max(this.savedSeq, seq);
        this.conflict = false;
        this.everUploaded = true;
        this.retryDelay = this.deps.saveRetryMs;
        this.notifyModified();
        if (this.lastModifiedTime !== null) this.broadcast(`lastmodtime: ${this.lastModifiedTime}`);
        this.deps.admin.uploaded(this, true);
        return { success: true, result: "stored" };
      case "conflict":
        this.conflict = true;
        this.broadcast("error: cmd=storage kind=documentconflict");
        return { success: false, result: "conflict", errorMsg: "the file was changed by someone else" };
      case "toolarge":
        this.tooLarge = true;
        for (const s of this.sessions.values()) {
          s.readOnly = true;
          s.send("error: cmd=storage kind=savetoolarge");
          s.send("perm: readonly");
          s.send(`filemode: ${JSON.stringify({ readOnly: true })}`);
        }
        this.broadcastViews();
        return { success: false, result: "toolarge", errorMsg: "the file is too large for the storage" };
      case "unauthorized":
        if (req.session) req.session.send("error: cmd=storage kind=saveunauthorized");
        else this.broadcast("error: cmd=storage kind=saveunauthorized");
        if (auth === this.lastAuth) this.lastAuth = null;
        for (const s of this.sessions.values()) if (s.auth === auth) s.readOnly = true;
        return { success: false, result: "unauthorized", errorMsg: "the storage refused the token" };
      default:
        this.broadcast("error: cmd=storage kind=savefailed");
        this.deps.admin.uploaded(this, false);
        this.scheduleRetry(req);
        return { success: false, result: "failed", errorMsg: res.message };
    }
  }

  private scheduleRetry(req: { reason: SaveReason; force: boolean; extendedData?: string }): void {
    if (this.retryTimer || this.state === "closed") return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 60_000);
    this.log.warn("save_retry_scheduled", { reason: req.reason, delay_ms: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.modified && req.reason !== "user") {
        this.maybeClose();
        return;
      }
      // A person's save tried again is still theirs (the host's callback says autosave: false).
      void this.requestSave({ reason: this.sessions.size === 0 ? "exit" : req.reason, force: req.force, extendedData: req.extendedData });
    }, delay);
  }

  /**
   * Server shutdown: stores what is unsaved through the WOPI host before closing every session. A
   * save under way (an exit save started when the last view left) is waited for, and a failed one
   * is tried again until the deadline, so a stop loses nothing while the host answers. Changes
   * the host will not take (conflict, too large, token refused) are quarantined, as on close.
   */
  async shutdown(deadline: number): Promise<"stored" | "unmodified" | "quarantined" | "lost"> {
    let outcome: "stored" | "unmodified" | "quarantined" | "lost" = "unmodified";
    while (this.state !== "closed") {
      if (this.saving) await this.saving.catch(() => {});
      if (!this.modified || !this.kit?.alive) break;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      const unstorable = this.conflict || this.tooLarge || this.authFor({}) === null;
      const r = unstorable ? null : await this.requestSave({ reason: "exit", force: false });
      if (r?.success) {
        outcome = "stored";
        continue; // typing may have gone on during the save
      }
      if (!r || ["conflict", "toolarge", "unauthorized"].includes(r.result)) {
        await this.quarantine();
        outcome = "quarantined";
        break;
      }
      if (Date.now() + 500 >= deadline) {
        // Not lost for good: the journal stays, and the next start stores it (recoverJournal).
        outcome = "lost";
        this.keepJournal = true;
        this.log.error("document_unsaved_at_stop", { result: r.result, journal_kept: !!this.journal });
        break;
      }
      await Bun.sleep(500);
    }
    for (const s of this.sessions.values()) s.send("close: shuttingdown");
    this.dispose();
    return outcome;
  }
}
