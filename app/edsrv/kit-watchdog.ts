// The watchdog of a kit: no input of one person may stop a document for the others (issue 44).
//
// A kit runs LibreOffice's main loop on its one thread (workers/kit-loop.ts). Some input makes
// the engine stop coming back to the kit: a modal window that never reaches the page, a formula
// that reads a file, megabytes of text laid out at once, and causes nobody has found yet. The
// kit can then answer nothing, and every co-editor's typing and saves wait on it for good. The
// watchdog does not look for causes: it watches whether the kit answers. A kit that has requests
// waiting and has said nothing for longer than the bound of the slowest kind of work among them
// (KIT_OPS' `answer`, workers/kit-protocol.ts) has stopped: it is ended, and the document's
// recovery replays the journal into a fresh kit without the input it stopped on
// (document-recovery.ts), as for a crash.
//
// The kit says `begin` when it starts a person's input or any work slower than input (a command,
// a load, a save: workers/kit/dispatch.ts), with the office's turn (how many times its loop came
// back to the kit), so the watchdog knows what is under way and what the engine was last given.
// Which input the engine stopped on: an input begun and never answered is the one (a handler stuck
// inside LibreOffice). When every begun input was answered, the engine stopped while working
// through what it was handed in its last turn (key presses and text are posted and answered at
// once, and worked through just after): the inputs begun in that turn are the suspects. One
// person's suspects are one person's doing (their last action is left out); several people's are
// told apart by a careful replay (recovery.ts), which hands the engine one input at a time.
//
// A kit with nothing asked of it is asked `ping` every IDLE_PING_MS, so that an engine that stopped
// between two inputs is found before anyone types again (and a document whose people all left is
// stored and closed instead of waiting for its kit).

import type { AnswerKind } from "../../workers/kit-protocol";

/** How long each kind of work may go unanswered; `document` grows with the document's size. */
export const ANSWER_BOUNDS_MS: Record<AnswerKind, number> = { input: 15_000, command: 30_000, document: 30_000 };
/** A load or a save takes longer for a larger document: this much more per MiB of the file loaded. */
export const DOCUMENT_MS_PER_MIB = 20_000;
/** How often a kit with nothing asked of it is asked whether it still answers. */
export const IDLE_PING_MS = 5_000;
/** How often the pool looks at its kits. */
export const WATCH_EVERY_MS = 1_000;

export interface WatchdogBounds {
  answerMs: Record<AnswerKind, number>;
  documentMsPerMib: number;
  idlePingMs: number;
}

export const DEFAULT_WATCHDOG_BOUNDS: WatchdogBounds = { answerMs: ANSWER_BOUNDS_MS, documentMsPerMib: DOCUMENT_MS_PER_MIB, idlePingMs: IDLE_PING_MS };

/** A request sent to a kit and not answered yet, as the watchdog sees it. */
export interface WaitingRequest {
  op: string;
  answer: AnswerKind;
  /** The journal entry it carries (a person's input), when it is one. */
  seq?: number;
  /** The kit said it started on it. */
  begun: boolean;
}

/** What the watchdog found when it ended a kit: what it waited for, and the inputs it may have stopped on. */
export interface KitStall {
  op: string;
  waitedMs: number;
  boundMs: number;
  /**
   * The journal entries of the inputs the engine may have stopped on, in order: one when an input
   * was begun and never answered, else those handed to the engine in its last turn (empty: none
   * known, e.g. a load).
   */
  suspectSeqs: number[];
}

/** The journalled inputs a kit answered in the office's latest turn that had any (the suspects when it stops). */
export class LastTurnInputs {
  private turn = -1;
  seqs: number[] = [];

  note(seq: number, turn: number): void {
    if (turn > this.turn) {
      this.turn = turn;
      this.seqs = [];
    }
    if (turn === this.turn) this.seqs.push(seq);
  }
}

/**
 * The bound of the slowest work under way. A request the kit has not begun gets the bound of input
 * whatever its kind: reading and starting a request takes no time, so it either waits behind work
 * under way (whose own bound then counts) or the engine is not coming back to read it (a save
 * queued behind a stopped engine must not lend it a save's minutes).
 */
export function boundFor(waiting: Iterable<WaitingRequest>, bounds: WatchdogBounds, documentBytes: number): { op: string; boundMs: number } | null {
  let worst: { op: string; boundMs: number } | null = null;
  for (const r of waiting) {
    const kind = r.begun ? r.answer : "input";
    let ms = bounds.answerMs[kind];
    if (kind === "document") ms += Math.ceil(documentBytes / (1024 * 1024)) * bounds.documentMsPerMib;
    if (!worst || ms > worst.boundMs) worst = { op: r.op, boundMs: ms };
  }
  return worst;
}

/**
 * Whether the kit has stopped: requests wait and it has said nothing for longer than their bound.
 * `silentMs`: since its last line (a reply, a callback, a `begin`) or since requests began to wait.
 */
export function findStall(waiting: WaitingRequest[], silentMs: number, bounds: WatchdogBounds, documentBytes: number, lastTurn: readonly number[]): KitStall | null {
  if (!waiting.length) return null;
  const worst = boundFor(waiting, bounds, documentBytes)!;
  if (silentMs <= worst.boundMs) return null;
  const begun = waiting.find((r) => r.begun && r.seq !== undefined);
  return { op: begun?.op ?? worst.op, waitedMs: Math.round(silentMs), boundMs: worst.boundMs, suspectSeqs: begun ? [begun.seq!] : [...lastTurn] };
}
