// Whether the editing server is saturated: the people already typing wait longer than the target
// for their keys to be answered. Read with each counting sample from our editing server's admin
// channel (`svc_input_lag`, app/edsrv/input-lag.ts); a Collabora server does not answer it, and
// then nothing is ever saturated. Only when the operator sets SVC_GATE_REFUSE_WHEN_SATURATED (outside
// v1, whose rule 3 admits every editor below the cap): while saturated, no new editor is admitted
// below the cap (rule 6 then decides: the limit page, or read-only with `limited`), so the machine's
// capacity is protected for the people on it.

import { SAMPLE_INTERVAL_MS } from "./counting";

/** Keystroke → answer p95 past which no new editor is admitted (issue 24: the capacity target). */
export const SATURATED_P95_MS = 50;
/** Fewer waits than this in the window say nothing about load (two people typing a few keys). */
export const MIN_SAMPLES = 30;

export interface InputLag {
  p95Ms: number;
  samples: number;
  /** Since the editing server last answered someone's typing, ms; null: nobody typed in its window. */
  lastMsAgo: number | null;
}
/** Nobody answered for this long: the people who made the reading stopped typing (they left). */
export const QUIET_AFTER_MS = 2_000;

export class EditorLoad {
  private last: (InputLag & { at: number }) | null = null;

  /** A reading counts for one sample period: the next one replaces it (soon after a document opens or closes). */
  constructor(private readonly staleAfterMs = SAMPLE_INTERVAL_MS) {}

  record(lag: InputLag, at: number): void {
    this.last = { ...lag, at };
  }

  /** The input lag that makes the server saturated now, or null. */
  saturated(now: number): InputLag | null {
    const l = this.last;
    if (!l || now - l.at >= this.staleAfterMs) return null;
    // Typing that had stopped when the reading was taken (everyone left) is no load for who comes next.
    if (l.lastMsAgo === null || l.lastMsAgo > QUIET_AFTER_MS) return null;
    return l.samples >= MIN_SAMPLES && l.p95Ms > SATURATED_P95_MS ? { p95Ms: l.p95Ms, samples: l.samples, lastMsAgo: l.lastMsAgo } : null;
  }
}

/** `svc_input_lag {"p95Ms":…,"samples":…}` → InputLag; null when unreadable. Never throws. */
export function parseInputLagReply(text: string): InputLag | null {
  if (!text.startsWith("svc_input_lag ")) return null;
  try {
    const v = JSON.parse(text.slice("svc_input_lag ".length)) as Record<string, unknown>;
    const p95Ms = Number(v.p95Ms), samples = Number(v.samples);
    const lastMsAgo = v.lastMsAgo === null || v.lastMsAgo === undefined ? null : Number(v.lastMsAgo);
    if (!Number.isFinite(p95Ms) || p95Ms < 0 || !Number.isInteger(samples) || samples < 0) return null;
    if (lastMsAgo !== null && !(Number.isFinite(lastMsAgo) && lastMsAgo >= 0)) return null;
    return { p95Ms, samples, lastMsAgo };
  } catch {
    return null;
  }
}
