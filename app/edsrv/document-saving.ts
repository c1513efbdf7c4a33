// Storing a document through its WOPI host: the save state machine.
//
//   idle ──save requested──▶ saving ──200──▶ idle (stored)
//                              ├──409────▶ conflict   (no automatic retry; a forced save may overwrite)
//                              ├──413────▶ too large  (every session becomes read-only)
//                              ├──401/403/404─▶ unauthorized (that token is dropped; another editor's token is tried next time;
//                              │                 with none, the document waits for its person to reopen it with a new one)
//                              └──other / no answer ─▶ retry after a back-off (the document is kept)
//
// Saves run one at a time; a save requested while one runs is run after it. Saves happen on
// request (the page's save / Action_Save), as autosave while the document is modified (every
// SVC_EDSRV_AUTOSAVE_SECONDS), a few seconds after the last input (SVC_EDSRV_IDLE_SAVE_SECONDS),
// and as an exit save when the last view leaves or the server stops.

import { mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { keepChartWorkbooks } from "../ooxml/chart-workbooks";
import type { DocumentState, IdleSaveTimers, SaveRequest } from "./document-state";
import type { SaveOutcome } from "./session";
import { errorFrame, serverFrame } from "./protocol/frames";

const systemTimers: IdleSaveTimers = { set: (fire, ms) => setTimeout(fire, ms), clear: (handle) => clearTimeout(handle as Timer) };

export type StopOutcome = "stored" | "unmodified" | "quarantined" | "lost";

export class DocumentSaving {
  private saving: Promise<SaveOutcome> | null = null;
  private saveQueued: SaveRequest | null = null;
  private retryTimer: Timer | null = null;
  private retryDelay: number;
  private autosaveTimer: Timer | null = null;
  private idleSaveTimer: unknown = null;
  /** When the host last took a version of this document (ms since the epoch). */
  lastStoredAt = 0;

  constructor(private readonly doc: DocumentState) {
    this.retryDelay = doc.deps.saveRetryMs;
  }

  /** A save is running or waiting for its retry: the document is not done with its host yet. */
  get busy(): boolean {
    return this.saving !== null || this.retryTimer !== null;
  }
  get running(): boolean {
    return this.saving !== null;
  }

  /** Whether a timed save (autosave, idle save) may start now. */
  private mayAutosave(): boolean {
    const doc = this.doc;
    return doc.modified && !this.busy && !doc.conflict && !doc.tooLarge && doc.state === "loaded";
  }

  startAutosave(): void {
    if (this.autosaveTimer || this.doc.deps.autosaveSeconds <= 0) return;
    this.autosaveTimer = setInterval(() => {
      if (this.mayAutosave()) void this.requestSave({ reason: "auto", force: false });
    }, this.doc.deps.autosaveSeconds * 1000);
  }

  /** Collabora's idle save: a few seconds after the last input the document is stored, so a version rarely lags the screen. */
  scheduleIdleSave(): void {
    if (this.doc.deps.idleSaveSeconds <= 0) return;
    const timers = this.doc.deps.idleSaveTimers ?? systemTimers;
    if (this.idleSaveTimer) timers.clear(this.idleSaveTimer);
    this.idleSaveTimer = timers.set(() => {
      this.idleSaveTimer = null;
      if (this.mayAutosave()) void this.requestSave({ reason: "auto", force: false });
    }, this.doc.deps.idleSaveSeconds * 1000);
  }

  /** The document is closing: no timed save starts again. */
  stop(): void {
    if (this.autosaveTimer) clearInterval(this.autosaveTimer);
    if (this.idleSaveTimer) (this.doc.deps.idleSaveTimers ?? systemTimers).clear(this.idleSaveTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** The edit count the save under way holds (its store marks everything up to it saved). */
  private savingSeq = -1;

  /** Queues a save (one runs at a time) and resolves with its outcome. */
  requestSave(req: SaveRequest): Promise<SaveOutcome> {
    // A person's save that meets a save under way holding every edit (the idle save, an autosave):
    // that save is theirs too, and they get its answer; a second, identical version would be stored
    // otherwise, and a person saving an unmodified document hears of no save.
    if (this.saving && req.reason !== "exit" && this.savingSeq === this.doc.editSeq) return this.saving;
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
      else if (this.doc.sessions.size === 0) this.doc.maybeClose();
    });
    this.saving = p;
    return p;
  }

  private async runSave(req: SaveRequest): Promise<SaveOutcome> {
    const doc = this.doc;
    const kit = doc.kit;
    if (!kit?.alive || doc.state === "closed") return { success: false, result: "unavailable", errorMsg: "document not loaded" };
    const auth = doc.authFor(req);
    if (!auth) return { success: false, result: "unauthorized", errorMsg: "no editing session token" };
    if (doc.conflict && !req.force) {
      return { success: false, result: "conflict", errorMsg: "the file was changed by someone else" };
    }
    const seq = (this.savingSeq = doc.editSeq);
    const modifiedByUser = doc.modified;
    const file = doc.nextFile("save", doc.ext);
    // The kit runs requests in order: the file holds every journal entry written before this one.
    const journalSeq = doc.journal?.seq ?? 0;
    mkdirSync(doc.dir, { recursive: true });
    let body: Buffer;
    try {
      await kit.request("save", { path: file, format: doc.ext });
      // Read back here: the document's folder can be gone when the server stops during a save.
      body = readFileSync(file);
    } catch (err) {
      doc.log.error("document_save_failed", { error: err as Error });
      this.scheduleRetry(req);
      return { success: false, result: "failed", errorMsg: "the engine could not save" };
    } finally {
      rmSync(file, { force: true });
    }
    // What LibreOffice dropped and the original had (its charts' workbooks) goes back in first.
    const kept = await keepChartWorkbooks(doc.chartWorkbooksInOriginal, body, doc.log);
    if (kept !== body) body = Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength);
    const t0 = performance.now();
    const res = await doc.deps.wopi.putFile(doc.wopiSrc, auth, body, {
      isModifiedByUser: modifiedByUser,
      isAutosave: req.reason === "auto",
      isExitSave: req.reason === "exit",
      timestamp: req.force ? null : doc.lastModifiedTime,
      extendedData: req.extendedData,
    });
    const ms = Math.round(performance.now() - t0);
    doc.log.info("putfile", { reason: req.reason, outcome: res.kind, status: "status" in res ? res.status : 200, bytes: body.byteLength, ms });
    switch (res.kind) {
      case "ok":
        if (res.lastModifiedTime !== null) doc.lastModifiedTime = res.lastModifiedTime;
        doc.journal?.stored(journalSeq, doc.lastModifiedTime, auth);
        doc.savedSeq = Math.max(doc.savedSeq, seq);
        doc.conflict = false;
        doc.tokenRefused = false;
        doc.everUploaded = true;
        this.retryDelay = doc.deps.saveRetryMs;
        doc.notifyModified();
        if (doc.lastModifiedTime !== null) doc.broadcast(serverFrame("lastmodtime", doc.lastModifiedTime));
        doc.deps.admin.uploaded(doc, true);
        this.lastStoredAt = Date.now();
        return { success: true, result: "stored" };
      case "conflict":
        doc.conflict = true;
        doc.broadcast(errorFrame("storage", "documentconflict"));
        return { success: false, result: "conflict", errorMsg: "the file was changed by someone else" };
      case "toolarge":
        doc.tooLarge = true;
        for (const s of doc.sessions.values()) {
          s.readOnly = true;
          s.send(errorFrame("storage", "savetoolarge"));
          s.send(serverFrame("perm", "readonly"));
          s.send(serverFrame("filemode", JSON.stringify({ readOnly: true })));
        }
        doc.broadcastViews();
        return { success: false, result: "toolarge", errorMsg: "the file is too large for the storage" };
      case "unauthorized":
        if (req.session) req.session.send(errorFrame("storage", "saveunauthorized"));
        else doc.broadcast(errorFrame("storage", "saveunauthorized"));
        if (auth === doc.lastAuth) doc.lastAuth = null;
        for (const s of doc.sessions.values()) if (s.auth === auth) s.readOnly = true;
        // What was typed is kept for a retry: the document waits for a new token when its views
        // leave (documents.ts), and its journal outlives it should it close unstored.
        doc.tokenRefused = true;
        doc.keepJournal = true;
        return { success: false, result: "unauthorized", errorMsg: "the storage refused the token" };
      default:
        doc.broadcast(errorFrame("storage", "savefailed"));
        doc.deps.admin.uploaded(doc, false);
        this.scheduleRetry(req);
        return { success: false, result: "failed", errorMsg: res.message };
    }
  }

  private scheduleRetry(req: SaveRequest): void {
    if (this.retryTimer || this.doc.state === "closed") return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 60_000);
    this.doc.log.warn("save_retry_scheduled", { reason: req.reason, delay_ms: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.doc.modified && req.reason !== "user") {
        this.doc.maybeClose();
        return;
      }
      // A person's save tried again is still theirs (the host's callback says autosave: false).
      void this.requestSave({ reason: this.doc.sessions.size === 0 ? "exit" : req.reason, force: req.force, extendedData: req.extendedData });
    }, delay);
  }

  /** Whether the host would take a save now without a person deciding (no conflict, not too large, a token). */
  get storable(): boolean {
    return !this.doc.conflict && !this.doc.tooLarge && this.doc.authFor({}) !== null;
  }

  /** Keeps a copy of unsaved changes that cannot be stored (conflict, too large) in the work root. */
  async quarantine(): Promise<void> {
    const doc = this.doc;
    if (!doc.kit?.alive) return;
    const dir = path.join(doc.deps.workRoot, "quarantine");
    mkdirSync(dir, { recursive: true });
    const target = path.join(dir, `${Date.now()}-${doc.id}.${doc.ext || "bin"}`);
    try {
      await doc.kit.request("save", { path: target, format: doc.ext });
      doc.log.error("document_quarantined", { reason: doc.conflict ? "conflict" : "toolarge", file: path.basename(target) });
    } catch (err) {
      doc.log.error("document_quarantine_failed", { error: err as Error });
    }
  }

  /**
   * Server shutdown: stores what is unsaved through the WOPI host. A save under way (an exit save
   * started when the last view left) is waited for, and a failed one is tried again until the
   * deadline, so a stop loses nothing while the host answers. Changes the host will not take
   * (conflict, too large, token refused) are quarantined, as on close.
   */
  async storeBeforeStop(deadline: number, stopBegan: number): Promise<StopOutcome> {
    const doc = this.doc;
    // Stored since the stop began counts as stored at the stop: the exit save when its last page
    // left (the proxy stops first) may come before the server's own stop gets to this document.
    let outcome: StopOutcome = this.lastStoredAt >= stopBegan ? "stored" : "unmodified";
    while (doc.state !== "closed") {
      if (this.saving) {
        await this.saving.catch(() => {});
        // The save under way (the exit save) may be the one that stored what was typed.
        if (this.lastStoredAt >= stopBegan) outcome = "stored";
      }
      if (!doc.modified || !doc.kit?.alive) break;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      const r = this.storable ? await this.requestSave({ reason: "exit", force: false }) : null;
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
        doc.keepJournal = true;
        doc.log.error("document_unsaved_at_stop", { result: r.result, journal_kept: !!doc.journal });
        break;
      }
      await Bun.sleep(500);
    }
    return outcome;
  }
}
