// Replaying a document's journal (journal.ts) into a fresh kit: the file it was loaded from, then
// every input in the order the dead kit received it, each view made again where it was made. The
// views still open at the end are handed back by their session's token hash, so a page that
// reconnects takes its own view over, caret and selection where they were.
//
// An input that crashes the engine again (a "poison" input) crashes the replay too, often a little
// after it was worked through (LibreOffice acts on some input from its idle loop). The engine's
// crash almost always follows the last thing a person did, so the caller replays again without the
// last action (lastActionSeqs), then the one before, and tells the people that their last action
// could not be applied.

import type { Kit } from "./kits";
import type { KitOp } from "../../workers/kit-protocol";
import type { JournalEntry } from "./journal";

export interface RecoveredView {
  viewId: number;
  /** The seq of the journal's `view` entry that made it. */
  ref: number;
  readOnly: boolean;
  author: string;
  /** SHA-256 of the access token of the session the view belonged to (journal field `token`). */
  tokenHash: string;
  /** Input of this view was left out (`dropped`): its person is told. */
  inputDropped: boolean;
}

export interface ReplayResult {
  /** The views still open at the end of the journal, in the new kit. */
  views: RecoveredView[];
  /** Entries replayed (views made and ended included). */
  replayed: number;
  status: Record<string, unknown>;
}

/** The kit died during a replay; `atSeq` is the entry it was working on when known. */
export class ReplayCrash extends Error {
  constructor(readonly atSeq: number | null) {
    super(`the engine stopped during the replay${atSeq === null ? "" : ` at entry ${atSeq}`}`);
  }
}

/** How long a replayed kit must stay up after its last input before the replay counts as whole. */
export const REPLAY_GRACE_MS = 500;

/**
 * Loads `basePath` into `kit` and replays `entries` (skipping `skip`), pipelined: the kit runs
 * requests in the order they arrive, so only making a view is waited for (later entries name it).
 * Succeeds once the kit has worked through everything and is still up `graceMs` later.
 */
export interface ReplayOptions {
  /** How long the kit must stay up after its last input (REPLAY_GRACE_MS). */
  graceMs?: number;
  /** Entries of `skip` left out by this recovery: their people are told (RecoveredView.inputDropped). */
  dropped?: ReadonlySet<number>;
  /**
   * One action at a time, each worked through (`settle`) before the next is sent: an engine that
   * stops answering then stops on the action it was just given, which its watchdog names (a
   * pipelined replay hands the kit many inputs at once): from this entry on; none when absent.
   */
  carefulFrom?: number;
}

export async function replay(kit: Kit, basePath: string, fileName: string, entries: JournalEntry[], skip: ReadonlySet<number>, options: ReplayOptions = {}): Promise<ReplayResult> {
  const { graceMs = REPLAY_GRACE_MS, dropped = new Set<number>(), carefulFrom = Infinity } = options;
  const crashed = (err: unknown) => {
    if (!kit.alive) throw new ReplayCrash(null);
    return err;
  };
  const loaded = await kit.request("load", { path: basePath, name: fileName }).catch(crashed);
  if (loaded instanceof Error) throw loaded;
  const status = loaded as Record<string, unknown>;
  const madeBySeq = new Map<number, RecoveredView>(); // the `view` entry's seq → the view made for it
  const byOldId = new Map<number, RecoveredView>(); // the dead kit's viewId → the view made for it
  const open = new Set<RecoveredView>();
  const inFlight: Promise<unknown>[] = [];
  let replayed = 0;
  // A request the kit refuses (it refused it the first time too) changes nothing and is passed
  // over; a kit that is gone ends the replay.
  // Entries come back from disk as they were written: the kit checks their fields as it checks any request's.
  // Each entry's seq travels with it: should the kit stop answering on one, its watchdog names it.
  const run = (op: string, fields: Record<string, unknown>, seq?: number) => kit.request(op as KitOp, fields as never, seq).catch(crashed);

  for (const e of entries) {
    if (skip.has(e.seq)) {
      // Left out now: the view whose input it was is told (`dropped`); earlier leavings were told then.
      const v = dropped.has(e.seq) ? byOldId.get(Number(e.viewId)) : undefined;
      if (v) v.inputDropped = true;
      continue;
    }
    const { seq: _seq, op, ...fields } = e;
    replayed++;
    if (op === "view") {
      // A journal written before views were made in their language has none: the replayed `viewlanguage` gives it.
      const made = await run("view", { readOnly: fields.readOnly === true, author: fields.author ?? "", ...(typeof fields.lang === "string" ? { lang: fields.lang } : {}) });
      if (made instanceof Error) continue;
      const v: RecoveredView = { viewId: (made as { viewId: number }).viewId, ref: e.seq, readOnly: fields.readOnly === true, author: String(fields.author ?? ""), tokenHash: String(fields.token ?? ""), inputDropped: false };
      madeBySeq.set(e.seq, v);
      open.add(v);
      continue;
    }
    if (op === "viewmade") {
      const v = madeBySeq.get(Number(fields.ref));
      if (v) byOldId.set(Number(fields.viewId), v);
      continue;
    }
    const v = byOldId.get(Number(fields.viewId));
    if (!v) continue; // an input for a view that was never made (cannot happen in a whole journal)
    if (op === "unview") open.delete(v);
    const done = run(op, { ...fields, viewId: v.viewId }, e.seq);
    inFlight.push(done);
    done.catch(() => {});
    if (e.seq >= carefulFrom && ACTION_OPS.has(op)) {
      await done;
      await run("settle", {});
    }
  }
  await Promise.all(inFlight);
  // A dialog open when the engine died is open again after the replay, where nobody sees it:
  // closed (as Cancel), its unapplied changes with it, as the page's dialog went with its socket.
  for (const v of open) await run("closedialogs", { viewId: v.viewId });
  await run("settle", {});
  await Bun.sleep(graceMs);
  await run("ping", {});
  return { views: [...open], replayed, status };
}

const ACTION_OPS = new Set(["key", "textinput", "mouse", "uno", "paste", "insertgraphic", "moveparts"]);

/**
 * The entries of the last action a person made before `before` (a seq; Infinity: the end), not
 * counting `skip`: one UNO command, paste or text, or a key or mouse press with its release.
 */
export function lastActionSeqs(entries: JournalEntry[], skip: ReadonlySet<number>, before = Infinity): number[] {
  const list = entries.filter((e) => ACTION_OPS.has(e.op) && !skip.has(e.seq) && e.seq < before);
  const last = list.at(-1);
  if (!last) return [];
  const released = (last.op === "key" && last.type === "up") || (last.op === "mouse" && last.type === "buttonup");
  if (!released) return [last.seq];
  // The press that goes with this release: the latest one of the same view before it.
  for (let i = list.length - 2; i >= 0; i--) {
    const e = list[i]!;
    if (e.viewId !== last.viewId || e.op !== last.op) continue;
    const press = last.op === "key" ? e.type !== "up" && e.key === last.key : e.type === "buttondown";
    if (press) return [e.seq, last.seq];
  }
  return [last.seq];
}
