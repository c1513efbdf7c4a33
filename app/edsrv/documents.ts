// The document broker: one per open document (docKey), its life from the first view to the last.
// A view joins (CheckFileInfo asked again for it, the document loaded on the first one, its view
// made), leaves, and when no view is left the document is stored (an exit save, kept and retried
// until stored) and its kit recycled. What the broker does at each step is in its parts, each one
// idea: document-loading.ts, document-views.ts, document-saving.ts, document-recovery.ts; the state
// they share is document-state.ts.

import { rmSync } from "node:fs";
import path from "node:path";
import { JOURNALLED_OPS, refusalKind } from "../../workers/kit-protocol";
import { EDITABLE_EXTENSIONS } from "./discovery";
import type { AliasGroup } from "../alias-groups";
import type { Kit } from "./kits";
import { runViewCommand } from "./view-commands";
import { exportName } from "./exports";
import type { ClientSession, SaveOutcome } from "./session";
import { DocumentState, type BrokerDeps, type SaveRequest } from "./document-state";
import { DocumentLoading } from "./document-loading";
import { DocumentViews } from "./document-views";
import { DocumentSaving, type StopOutcome } from "./document-saving";
import { DocumentRecovery } from "./document-recovery";
import { closeFrame, commandName, errorFrame, parseCommandArgs } from "./protocol/frames";

export type { ClientSession, SaveOutcome } from "./session";
export type { AdminEvents, BrokerDeps } from "./document-state";
export { ORPHAN_WAIT_MS } from "./document-recovery";

/** How long a preloaded document waits for its first session, by default. */
export const PRELOAD_WAIT_MS = 15_000;
/**
 * How long a document whose storage refused its last token (PutFile 401/403/404) waits, once its
 * views have left, for its person to reopen it with a new one, before what was typed goes to the
 * quarantine folder (and its journal is kept).
 */
export const REFUSED_TOKEN_HOLD_MS = 10 * 60_000;

export class DocumentBroker extends DocumentState {
  private readonly loading: DocumentLoading;
  private readonly views: DocumentViews;
  private readonly saving: DocumentSaving;
  private readonly recovery: DocumentRecovery;

  constructor(wopiSrc: string, group: AliasGroup | null, deps: BrokerDeps) {
    super(wopiSrc, group, deps);
    const useKit = (kit: Kit) => this.useKit(kit);
    this.loading = new DocumentLoading(this, useKit);
    this.views = new DocumentViews(this);
    this.saving = new DocumentSaving(this);
    this.recovery = new DocumentRecovery(this, { useKit, requestSave: (req) => this.saving.requestSave(req) });
  }

  // ----------------------------------------------------------------------------- views joining and leaving

  /**
   * Attaches a session's view; "closed" when this broker closed while the session waited for it
   * (its last view left just before): the caller hands the session to a new broker instead.
   */
  addSession(s: ClientSession): Promise<boolean | "closed"> {
    this.loading.waiting++;
    return this.serial<boolean | "closed">(async () => {
      this.loading.waiting--;
      if (this.state === "closed") return "closed";
      try {
        return await this.attach(s);
      } catch (err) {
        return this.attachFailed(s, err);
      }
    });
  }

  /**
   * Making the view failed past its own checks: most often the kit died meanwhile (its recovery
   * asks the attached pages to reconnect; this page may not be one of them yet). The page is told
   * either way, never left waiting, and the failure never escapes as an unhandled rejection.
   */
  private attachFailed(s: ClientSession, err: unknown): false {
    const kitDied = !this.kit?.alive || this.state === "loading";
    this.log.warn("view_attach_failed", { session: s.id, kit_died: kitDied, error: err as Error });
    s.send(kitDied ? closeFrame("recovering") : errorFrame("load", "faileddocloading"));
    s.close();
    return false;
  }

  /** CheckFileInfo for the new view, load on the first view, then create the view. */
  private async attach(s: ClientSession): Promise<boolean> {
    if (this.state === "closed" || (this.state === "closing" && !this.kit?.alive)) {
      s.send(errorFrame("internal", "docunloading"));
      s.close();
      return false;
    }
    s.send('progress: {"id":"find"}');
    // Always asked again for the view, never the preload's answer: the session may have been
    // switched to view or deleted since the page was requested (the permission is the view's).
    const cfi = await this.deps.wopi.checkFileInfo(this.wopiSrc, s.auth);
    if (cfi.kind !== "ok") {
      this.log.warn("checkfileinfo_failed", { session: s.id, kind: cfi.kind, status: cfi.status });
      s.send(cfi.kind === "unauthorized" ? errorFrame("internal", "unauthorized") : errorFrame("load", "faileddocloading"));
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
    if (this.refusedHold) {
      // The person is back (with a token the storage may take): the document is theirs again.
      clearTimeout(this.refusedHold);
      this.refusedHold = null;
    }
    if (this.state === "loaded") {
      // Every new view re-reads CheckFileInfo; a different LastModifiedTime means someone else changed the file.
      const lmt = info.LastModifiedTime ?? null;
      if (lmt !== null && this.lastModifiedTime !== null && lmt !== this.lastModifiedTime && !this.saving.running) {
        if (!this.modified) {
          // Nothing unsaved here: Collabora's answer is `close: documentconflict` to every page,
          // which opens the stored version again; nobody is asked, nothing is lost.
          this.log.info("document_changed_in_storage", { reloaded: true });
          for (const other of this.sessions.values()) other.send(closeFrame("documentconflict"));
          s.send(closeFrame("documentconflict"));
          this.dispose();
          return false;
        }
        this.conflict = true;
        this.log.warn("document_conflict", { reason: "checkfileinfo" });
        this.broadcast(errorFrame("storage", "documentconflict"));
      }
    } else {
      const failed = await this.loading.load(s.auth, info);
      if (failed) {
        s.send(failed);
        s.close();
        this.dispose();
        return false;
      }
    }
    if (!this.kit || this.state !== "loaded") {
      s.send(errorFrame("internal", "docunloading"));
      s.close();
      return false;
    }
    if (!s.readOnly) await this.views.replaceEarlierViews(s);
    if (!(await this.views.attach(s, info, this.recovery.takeOrphan(s)))) return false;
    this.saving.startAutosave();
    return true;
  }

  removeSession(s: ClientSession): void {
    // A page that has gone frees its seat at once, never after work queued before it (a save
    // waiting on the kit): the cap counts the people connected, whatever the engine is doing.
    const kit = this.kit;
    const attached = this.views.forget(s);
    this.serialInBackground("remove_session", async () => {
      if (!(attached ? await this.views.unview(s, kit) : await this.views.detach(s))) return;
      this.broadcastViews();
      this.maybeClose();
    });
  }

  /** Loads the document ahead of its first session (document-loading.ts). */
  preload(auth: ClientSession["auth"]): void {
    this.loading.preload(auth);
  }

  /** Makes `kit` the document's kit: its callbacks go to the views, its crash starts a recovery. */
  private useKit(kit: Kit): void {
    this.kit = kit;
    const journal = () => this.journal;
    // Whether an op is journalled is a property of the op (KIT_OPS in workers/kit-protocol.ts).
    // The entry's seq travels with the request: should the kit stop answering on it, the watchdog names it.
    const request: Kit["request"] = (op, fields) => kit.request(op, fields, JOURNALLED_OPS.has(op) ? journal()?.append(op, fields) : undefined);
    this.journaledKit = new Proxy(kit, { get: (target, prop) => (prop === "request" ? request : Reflect.get(target, prop, target)) });
    kit.onCallback = (e) => this.views.onKitCallback(e.viewId, e.cb, e.payload, e.version);
    kit.onExit = ({ crashed, signal, stall }) => {
      if (crashed && this.kit === kit) this.recovery.onKitCrash(signal, stall);
    };
  }

  // ----------------------------------------------------------------------------- closing

  /** While set, the document waits for its person to come back with a token the storage takes. */
  private refusedHold: Timer | null = null;

  /** When no view is left: exit save if needed (kept and retried until stored), then recycle the kit. */
  maybeClose(): void {
    if (this.sessions.size > 0 || this.state === "closed" || this.state === "loading" || this.state === "new") return;
    if (this.preloading) return; // loaded ahead of a session that is on its way (preload's timer ends the wait)
    if (this.refusedHold) return; // waiting for a new token (below); its timer ends the wait
    if (this.tokenRefused && this.modified && this.kit?.alive && this.state === "loaded" && !this.saving.busy && !this.saving.storable) {
      // The storage refused the token of the last save and no other view holds one: what was typed
      // stays in this document (its kit, its journal) while the person reopens it from the storage
      // (a new token), and their view's next save stores it. Past the wait: quarantined, journal kept.
      this.log.warn("document_held_for_token", { ms: REFUSED_TOKEN_HOLD_MS });
      this.refusedHold = setTimeout(() => {
        this.refusedHold = null;
        this.tokenRefused = false;
        this.maybeClose();
      }, REFUSED_TOKEN_HOLD_MS);
      return;
    }
    if (this.recovery.waitingForPages) return; // recovered views waiting for their pages (endOrphans ends the wait)
    if (this.saving.busy) return;
    if (this.modified && this.kit?.alive) {
      if (this.saving.storable && this.state === "loaded") {
        this.state = "closing";
        void this.saving.requestSave({ reason: "exit", force: false });
        return;
      }
      // Unsaved changes that the storage will not take without a person deciding: keep a copy.
      this.state = "closing";
      void this.saving.quarantine().then(() => this.dispose());
      return;
    }
    this.dispose();
  }

  /**
   * Collabora's "Discard" of a document conflict, chosen by an editing view: the storage's version
   * for everyone. The unsaved version goes to the quarantine folder first (nothing is lost), every
   * page is told `close: documentconflict` and opens the document again, loaded anew from storage.
   */
  async reloadFromStorage(by: ClientSession): Promise<void> {
    if (!this.conflict || by.readOnly || this.state !== "loaded") return;
    this.log.warn("document_conflict_resolved", { session: by.id, kept: "storage" });
    if (this.modified) await this.saving.quarantine();
    for (const s of this.sessions.values()) s.send(closeFrame("documentconflict"));
    this.dispose();
  }

  dispose(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    if (this.refusedHold) clearTimeout(this.refusedHold);
    this.refusedHold = null;
    this.saving.stop();
    for (const s of this.sessions.values()) {
      this.deps.admin.removeView(this, s);
      s.close();
    }
    this.sessions.clear();
    this.recovery.stop();
    if (this.kit) this.deps.pool.release(this.kit);
    rmSync(this.dir, { recursive: true, force: true });
    // Kept only while it holds input no stored version has: the next start recovers it.
    const keep = !!this.journal?.unstored && this.keepJournal;
    this.journal?.close(!keep);
    this.journal = null;
    this.log.info("document_closed", keep ? { journal_kept: true } : {});
    this.deps.onClosed(this);
  }

  /**
   * Server shutdown: stores what is unsaved through the WOPI host (document-saving.ts) before
   * closing every session.
   */
  /** When the host last took a version of this document (ms since the epoch; 0: never). */
  get lastStoredAt(): number {
    return this.saving.lastStoredAt;
  }

  async shutdown(deadline: number, stopBegan = Date.now()): Promise<StopOutcome> {
    const outcome = await this.saving.storeBeforeStop(deadline, stopBegan);
    for (const s of this.sessions.values()) s.send(closeFrame("shuttingdown"));
    this.dispose();
    return outcome;
  }

  /** After a restart: the document of a journal the previous process left (document-recovery.ts). */
  recoverJournal(dir: string): Promise<boolean> {
    return this.recovery.recoverJournal(dir);
  }

  // ----------------------------------------------------------------------------- what a page asks

  /** One text frame from a session (after `load`), run by view-commands.ts. */
  async handleMessage(s: ClientSession, text: string): Promise<void> {
    if (!this.sessions.has(s.id) || !this.kit || this.state === "closed") return;
    s.lastActivity = Date.now();
    const sp = text.indexOf(" ");
    const cmd = commandName(text);
    try {
      await runViewCommand({ doc: this, kit: this.journaledKit ?? this.kit, session: s }, cmd, parseCommandArgs(sp < 0 ? "" : text.slice(sp + 1)));
    } catch (err) {
      this.log.warn("command_failed", { cmd, error: err as Error });
      s.send(errorFrame(cmd, refusalKind(String((err as Error)?.message ?? "")) ?? "failed"));
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
    this.saving.scheduleIdleSave();
  }

  /** Queues a save (one runs at a time) and resolves with its outcome (document-saving.ts). */
  requestSave(req: SaveRequest): Promise<SaveOutcome> {
    return this.saving.requestSave(req);
  }

  /** Writes the document with its edits in `format` for a download or print; answers the download id. */
  async exportAs(format: string): Promise<string> {
    const kit = this.kit;
    if (!kit?.alive || this.state === "closed") throw new Error("document not loaded");
    const file = this.nextFile("export", format);
    await kit.request("save", { path: file, format });
    return this.deps.downloads.add(file, exportName(this.fileName, format), format);
  }
}
