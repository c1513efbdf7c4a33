// Nothing typed is lost when a kit crashes or the editing server stops: a new kit loads the file
// the journal started from and replays every input (recovery.ts), the views it makes again wait
// for their pages, and what no stored version holds is stored at once.

import { readFileSync } from "node:fs";
import { CHART_WORKBOOK_FORMATS, originalHasChartWorkbooks } from "../ooxml/chart-workbooks";
import { Journal, tokenHashOf, type JournalEntry } from "./journal";
import type { KitStall } from "./kit-watchdog";
import { lastActionSeqs, replay, ReplayCrash } from "./recovery";
import type { Kit } from "./kits";
import type { ClientSession } from "./session";
import type { DocumentState, SaveRequest } from "./document-state";
import type { SaveOutcome } from "./session";
import type { OrphanView } from "./document-views";
import { closeFrame, errorFrame } from "./protocol/frames";

/**
 * Which input a recovery leaves out first: none, the last action, or among the inputs an engine
 * that stopped answering may have stopped on (kit-watchdog.ts).
 */
type Suspect = "none" | "last" | { stoppedOn: number[] };

/** VCL's key code of Escape. */
const KEY_ESCAPE = 1281;

/** How long a recovered view waits for its page, by default. */
export const ORPHAN_WAIT_MS = 60_000;
/** Recoveries in a row that the kit did not survive before any new input: then the document is given up (journal kept). */
const MAX_RECOVERIES_WITHOUT_INPUT = 3;

export class DocumentRecovery {
  /** Views made again by a recovery, waiting for their page to reconnect, by the session's token hash. */
  private readonly orphans = new Map<string, OrphanView>();
  private orphanTimer: Timer | null = null;
  /** The journal's last entry when the last recovery ended: a crash with no input after it is that replay's. */
  private recoveredAtSeq: number | null = null;
  private recoveriesWithoutInput = 0;

  constructor(
    private readonly doc: DocumentState,
    private readonly parts: {
      /** Makes a kit the document's kit (its callbacks and its crash wired to the document). */
      useKit(kit: Kit): void;
      requestSave(req: SaveRequest): Promise<SaveOutcome>;
    },
  ) {}

  /** Recovered views still waiting for their pages: the document stays open for them. */
  get waitingForPages(): boolean {
    return this.orphans.size > 0;
  }

  /** The document is closing: nobody is waited for any more. */
  stop(): void {
    if (this.orphanTimer) clearTimeout(this.orphanTimer);
    this.orphans.clear();
  }

  /**
   * `signal`: how the kit ended (SIGKILL comes from outside the engine: an operator or the memory
   * ceiling, unless `stall` says the watchdog ended it for not answering: kit-watchdog.ts).
   */
  onKitCrash(signal: string | null = null, stall: KitStall | null = null): void {
    const doc = this.doc;
    doc.log.error("document_kit_crashed", { views: doc.sessions.size, unsaved: doc.modified, journal: !!doc.journal, signal, stopped_answering: stall ? stall.op : undefined });
    doc.kit = null;
    doc.journaledKit = null;
    if (!doc.journal || doc.journal.failed || doc.state === "closed") {
      for (const s of doc.sessions.values()) {
        s.send(errorFrame("internal", "crashed"));
        s.send(closeFrame("docdisconnected"));
      }
      doc.dispose();
      return;
    }
    // Every page is asked to reconnect; meanwhile a new kit replays the journal, and each page then
    // takes its own view back (takeOrphan).
    for (const s of doc.sessions.values()) {
      doc.deps.admin.removeView(doc, s);
      s.send(closeFrame("recovering"));
      s.close();
    }
    doc.sessions.clear();
    doc.state = "loading";
    const replayCrashed = this.crashedBeforeInput();
    if (replayCrashed) this.recoveriesWithoutInput++;
    else this.recoveriesWithoutInput = 0;
    doc.serialInBackground("recover", async () => {
      if (this.recoveriesWithoutInput >= MAX_RECOVERIES_WITHOUT_INPUT) return this.giveUp("kit_crash");
      // The engine's own crash (not a kill from outside) before anyone typed again: the replay
      // passed its grace but the input it replayed crashed the engine a moment later, as on a
      // loaded machine. The last action is the suspect, as for a crash during the replay.
      // An engine that stopped answering stopped on one input, which the watchdog names: left out.
      // With no input named (a save that never ended), the last action is the suspect, as after a crash.
      const suspect: Suspect = stall ? (stall.suspectSeqs.length ? { stoppedOn: stall.suspectSeqs } : "last") : replayCrashed && signal !== "SIGKILL" ? "last" : "none";
      // Recovered input that no stored version holds is stored at once: the host holds what was typed.
      if ((await this.recover("kit_crash", suspect)) && doc.modified) void this.parts.requestSave({ reason: "auto", force: false });
    });
  }

  /** Whether the journal holds no person's action since the last recovery ended. */
  private crashedBeforeInput(): boolean {
    const journal = this.doc.journal;
    if (this.recoveredAtSeq === null || !journal) return false;
    journal.flush();
    const read = Journal.read(journal.dir);
    if (!read) return false;
    const last = lastActionSeqs(read.entries, new Set(journal.meta.poison));
    return last.every((seq) => seq <= this.recoveredAtSeq!);
  }

  private giveUp(cause: "kit_crash" | "restart"): false {
    const doc = this.doc;
    doc.log.error("document_not_recovered", { cause });
    doc.keepJournal = true;
    doc.dispose();
    return false;
  }

  /**
   * A new kit loads the file the journal started from and replays every input; a replay the
   * engine crashes on again is made once more one input at a time, which finds the input, and
   * then without it (its people are told when they come back). The views open at the end wait for
   * their pages (ORPHAN_WAIT_MS); an orphan nobody takes back is ended then.
   */
  private async recover(cause: "kit_crash" | "restart", suspect: Suspect = "none"): Promise<boolean> {
    const doc = this.doc;
    const journal = doc.journal!;
    journal.flush();
    const t0 = performance.now();
    const dropped = new Set<number>();
    /** Leaves out the action of `before` (a seq: the action ending there; Infinity: the last one). */
    const drop = (entries: JournalEntry[], before: number, reason: string): boolean => {
      const action = lastActionSeqs(entries, new Set(journal.meta.poison), before);
      for (const seq of action) {
        journal.markPoison(seq);
        dropped.add(seq);
      }
      if (action.length) doc.log.error("document_input_dropped", { seqs: action, op: entries.find((e) => e.seq === action[0])?.op, reason });
      return action.length > 0;
    };
    // The whole journal first, or without the input the engine stopped on; after a crash of the
    // replay, without the last action, then the one before.
    /** From which entry a replay hands the engine one input at a time, so that its watchdog names the input it stops on. */
    let carefulFrom: number | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      const read = Journal.read(journal.dir);
      if (!read) break;
      if (attempt === 0 && suspect === "last") drop(read.entries, Infinity, "the engine crashed again right after its replay");
      if (attempt === 0 && typeof suspect === "object") {
        // One person's inputs: their last action is left out. Several people's: told apart by a careful replay.
        const views = new Set(read.entries.filter((e) => suspect.stoppedOn.includes(e.seq)).map((e) => e.viewId));
        if (views.size === 1) drop(read.entries, Math.max(...suspect.stoppedOn) + 1, "the engine stopped answering on it");
        else carefulFrom = Math.min(...suspect.stoppedOn);
      }
      let kit: Kit;
      try {
        kit = await doc.deps.pool.acquire();
      } catch (err) {
        doc.log.error("kit_unavailable", { error: err as Error });
        break;
      }
      kit.onCallback = () => {}; // nobody to tell until the views are handed back
      const skip = new Set([...journal.meta.poison]);
      try {
        const r = await replay(kit, journal.basePath, journal.meta.fileName, read.entries, skip, { dropped, carefulFrom });
        this.parts.useKit(kit);
        doc.docType = String(r.status.type ?? doc.docType);
        doc.state = "loaded";
        for (const v of r.views) {
          // Its id in the new kit, for the replay after a later crash.
          journal.append("viewmade", { ref: v.ref, viewId: v.viewId });
          // A cell left in edit mode by the action left out (typically its Enter) would be committed
          // by the next save and stop the engine again: cancelled, as Escape does, and journalled.
          if (v.inputDropped && doc.docType === "spreadsheet") {
            for (const type of ["input", "up"] as const) await doc.journaledKit!.request("key", { viewId: v.viewId, type, char: 0, key: KEY_ESCAPE }).catch(() => {});
          }
          if (v.tokenHash) this.orphans.set(v.tokenHash, v);
          else await doc.journaledKit!.request("unview", { viewId: v.viewId }).catch(() => {});
        }
        if (this.orphanTimer) clearTimeout(this.orphanTimer);
        this.orphanTimer = setTimeout(() => doc.serialInBackground("end_orphans", () => this.endOrphans()), doc.deps.orphanWaitMs ?? ORPHAN_WAIT_MS);
        this.recoveredAtSeq = journal.seq;
        doc.log.info("document_recovered", { cause, entries: r.replayed, views: r.views.length, attempts: attempt + 1, dropped_entries: dropped.size, ms: Math.round(performance.now() - t0) });
        return true;
      } catch (err) {
        kit.kill();
        if (!(err instanceof ReplayCrash)) {
          doc.log.error("document_recovery_failed", { error: err as Error });
          break;
        }
        // Killed from outside (SIGKILL: the OOM killer, an operator, the spare killed with the
        // document's kit) is no sign against the input: LibreOffice crashing on an input dies of
        // SIGSEGV or SIGABRT. The whole journal is replayed again in another kit; a person's typing
        // was dropped as "the engine crashed replaying it" when both kits of a document died at once.
        const exit = await Promise.race([kit.exited, Bun.sleep(1000).then(() => null)]);
        // The replay's engine stopped answering (its watchdog ended it): on the input it names.
        if (kit.stall) {
          // A pipelined replay hands the engine many inputs at once: replayed carefully from the
          // first of them, which names the one; a careful replay's suspect is that input, left out.
          const stoppedOn = kit.stall.suspectSeqs;
          if (carefulFrom === undefined || (stoppedOn.length && Math.min(...stoppedOn) < carefulFrom)) {
            carefulFrom = stoppedOn.length ? Math.min(...stoppedOn) : 0;
            doc.log.warn("document_replay_stopped_answering", { suspect_seqs: stoppedOn, next: "careful" });
            continue;
          }
          if (!drop(read.entries, stoppedOn.length ? Math.max(...stoppedOn) + 1 : Infinity, "the engine stopped answering replaying it")) break;
          continue;
        }
        if (exit?.signal === "SIGKILL") {
          doc.log.warn("document_replay_kit_lost", { signal: exit?.signal ?? null, code: exit?.code ?? null, at_seq: err.atSeq });
          continue;
        }
        if (!drop(read.entries, Infinity, "the engine crashed replaying it")) break;
      }
    }
    return this.giveUp(cause);
  }

  /** The recovered view of a reconnecting session (same token, same permission), taken once. */
  takeOrphan(s: ClientSession): OrphanView | null {
    const key = tokenHashOf(s.auth.token);
    const v = this.orphans.get(key);
    if (!v || v.readOnly !== s.readOnly) return null;
    this.orphans.delete(key);
    return v;
  }

  /** Recovered views whose page did not come back: ended, and the document closes when nobody is left. */
  private async endOrphans(): Promise<void> {
    this.orphanTimer = null;
    for (const v of this.orphans.values()) await this.doc.journaledKit?.request("unview", { viewId: v.viewId }).catch(() => {});
    this.orphans.clear();
    this.doc.maybeClose();
  }

  /**
   * After a restart of the editing server: the document of a journal the previous process left,
   * replayed into a kit and stored through its WOPI host as a new version (an autosave), so the
   * host holds what was typed. Its pages, reconnecting, take their views back.
   */
  async recoverJournal(dir: string): Promise<boolean> {
    const doc = this.doc;
    return doc.serial(async () => {
      const resumed = Journal.resume(dir, doc.log);
      if (!resumed) return false;
      const { journal } = resumed;
      doc.journal = journal;
      doc.fileName = journal.meta.fileName;
      doc.ext = journal.meta.ext;
      doc.chartWorkbooksInOriginal = CHART_WORKBOOK_FORMATS.has(doc.ext) && originalHasChartWorkbooks(readFileSync(journal.basePath));
      doc.lastModifiedTime = journal.meta.lastModifiedTime;
      doc.lastAuth = journal.meta.auth;
      doc.state = "loading";
      if (!(await this.recover("restart"))) return false;
      if (journal.unstored) {
        doc.editSeq = doc.savedSeq + 1;
        const out = await this.parts.requestSave({ reason: "auto", force: false });
        doc.log.info("document_recovered_stored", { outcome: out.result });
      }
      return true;
    });
  }
}
