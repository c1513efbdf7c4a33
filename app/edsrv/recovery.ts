// Replaying a document's journal (journal.ts) into a fresh kit: the file it was loaded from, then
// every input in the order the dead kit received it, each view made again where it was made. The
// views still open at the end are handed back by their session's token hash, so a page that
// reconnects takes its own view over, caret and selection where they were.
//
// An input that crashes the engine again (a "poison" input) is found by a second, careful replay
// (one input at a time, each worked through before the next); it is then left out, the replay is
// made once more without it, and the people are told that their last action could not be applied.

import type { Kit } from "./kits";
import type { JournalEntry } from "./journal";

export interface RecoveredView {
  viewId: number;
  /** The seq of the journal's `view` entry that made it. */
  ref: number;
  readOnly: boolean;
  author: string;
  /** SHA-256 of the access token of the session the view belonged to (journal field `token`). */
  tokenHash: string;
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

/**
 * Loads `basePath` into `kit` and replays `entries` (skipping `skip`). Pipelined by default: the kit
 * runs requests in the order they arrive, so only making a view is waited for (later entries name
 * it). `careful`: each entry is worked through (the kit's `settle`) before the next is sent, so a
 * crash names the entry that caused it.
 */
export async function replay(kit: Kit, basePath: string, fileName: string, entries: JournalEntry[], skip: ReadonlySet<number>, careful = false): Promise<ReplayResult> {
  const status = await kit.request<Record<string, unknown>>("load", { path: basePath, name: fileName });
  const madeBySeq = new Map<number, RecoveredView>(); // the `view` entry's seq → the view made for it
  const byOldId = new Map<number, RecoveredView>(); // the dead kit's viewId → the view made for it
  const open = new Set<RecoveredView>();
  const inFlight: Promise<unknown>[] = [];
  let replayed = 0;

  // A request the kit refuses (it refused it the first time too) changes nothing and is passed
  // over; a kit that is gone ends the replay.
  const run = (e: JournalEntry, op: string, fields: Record<string, unknown>) =>
    kit.request(op, fields).catch((err) => {
      if (!kit.alive) throw new ReplayCrash(careful ? e.seq : null);
      return err;
    });

  for (const e of entries) {
    if (skip.has(e.seq)) continue;
    const { seq: _seq, op, ...fields } = e;
    replayed++;
    if (op === "view") {
      const made = await run(e, "view", { readOnly: fields.readOnly === true, author: fields.author ?? "" });
      if (made instanceof Error) continue;
      const v: RecoveredView = { viewId: (made as { viewId: number }).viewId, ref: e.seq, readOnly: fields.readOnly === true, author: String(fields.author ?? ""), tokenHash: String(fields.token ?? "") };
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
    const done = run(e, op, { ...fields, viewId: v.viewId });
    if (careful) {
      await done;
      await run(e, "settle", {});
    } else {
      inFlight.push(done);
      done.catch(() => {});
    }
  }
  await Promise.all(inFlight);
  await run({ seq: 0, op: "settle" }, "settle", {});
  return { views: [...open], replayed, status };
}
