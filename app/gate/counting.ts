// Connection counting (spec "Editing connections", counting rules 1–7): what the latest sample of
// the editing server's admin channel says, the sessions admitted since (pending), the 5-minute
// peak, reconnect grace slots, and whether the gate enforces at all. Time comes from a Clock, so
// every rule is tested at its edges without waiting. No file or user names are kept: a document
// is its key (scheme://host:port/path), a view is its session id and read-only flag.

import type { Clock } from "../clock";

export const SAMPLE_INTERVAL_MS = 10_000;
export const PENDING_TTL_MS = 60_000;
export const RECONNECT_GRACE_MS = 120_000;
export const PEAK_WINDOW_MS = 300_000;
/** Rule 7: with no sample fresher than 3 periods the gate fails open. */
export const STALE_AFTER_PERIODS = 3;

export interface SampleDoc {
  /** Normalised document key (see normaliseWopiSrc). */
  docKey: string;
  /** Session ids of the views with edit rights. */
  editSessions: string[];
  /** Number of read-only views. */
  readonly: number;
  /**
   * The views with their user ids, and whether the editing server holds unsaved changes: read by
   * the embed gate for its own documents only (who is in a document, when it is closed). Counting
   * ignores both and keeps no user id.
   */
  views?: { userId: string; readonly: boolean }[];
  modified?: boolean;
}

interface DocState {
  edit: Set<string>;
  readonly: number;
}

export interface ConnectionsSnapshot {
  limit: number;
  current: number;
  pending: number;
  peak_5m: number;
  readonly: number;
  views_total: number;
  documents: number;
  limit_reached: boolean;
  source: "adminws" | "none";
  /**
   * The latest sample's time; before the first sample, the time counting started (the gate's
   * start), with source "none": the spec types it as a string, so it is never null.
   */
  sampled_at: string;
  /** Whole seconds since sampled_at (an integer, never null). */
  sample_age_seconds: number;
  enforcing: boolean;
}

export interface CounterOptions {
  clock: Clock;
  /** The effective cap, read at every decision (a token change or a lowered cap applies at once). */
  limit: () => number;
  intervalMs?: number;
  /** The spec's windows by default; tests and benchmarks shorten them (never an operator setting). */
  pendingTtlMs?: number;
  reconnectGraceMs?: number;
  staleAfterPeriods?: number;
}

export class ConnectionCounter {
  private docs = new Map<string, DocState>();
  private sampledAt: number | null = null;
  /** When counting started (the gate's start): what sampled_at shows before the first sample. */
  private readonly startedAt: number;
  private current = 0;
  private readonlyViews = 0;
  /** Pending admissions per document: admission times, oldest first. */
  private pending = new Map<string, number[]>();
  /** Reconnect grace slots per document: expiry times. */
  private grace = new Map<string, number[]>();
  /** (time, current, views_total) of recent samples, for peak_5m and the usage file. */
  private history: { at: number; current: number; views: number }[] = [];
  readonly intervalMs: number;
  readonly pendingTtlMs: number;
  /** Also how long admission remembers a session for reconnects: one grace for both. */
  readonly reconnectGraceMs: number;
  readonly staleAfterPeriods: number;

  constructor(private readonly opts: CounterOptions) {
    this.intervalMs = opts.intervalMs ?? SAMPLE_INTERVAL_MS;
    this.pendingTtlMs = opts.pendingTtlMs ?? PENDING_TTL_MS;
    this.reconnectGraceMs = opts.reconnectGraceMs ?? RECONNECT_GRACE_MS;
    this.staleAfterPeriods = opts.staleAfterPeriods ?? STALE_AFTER_PERIODS;
    this.startedAt = opts.clock.now();
  }

  private now() {
    return this.opts.clock.now();
  }

  /** Rule 1 (+2, 5): a new sample replaces the counts, confirms pending entries, opens grace slots. */
  applySample(docs: SampleDoc[], at = this.now()): void {
    const next = new Map<string, DocState>();
    let current = 0;
    let ro = 0;
    for (const d of docs) {
      const st = next.get(d.docKey) ?? { edit: new Set<string>(), readonly: 0 };
      for (const s of d.editSessions) st.edit.add(s);
      st.readonly += d.readonly;
      next.set(d.docKey, st);
    }
    for (const st of next.values()) {
      current += st.edit.size;
      ro += st.readonly;
    }
    this.expire(at);
    const first = this.sampledAt === null;
    for (const [key, st] of next) {
      const before = this.docs.get(key)?.edit;
      // Rule 2: each editing view new in this sample confirms the oldest pending entry of its document.
      let arrived = 0;
      for (const s of st.edit) if (!before?.has(s)) arrived++;
      const q = this.pending.get(key);
      if (q) {
        let i = 0;
        while (arrived > 0 && i < q.length) {
          if (q[i]! <= at) {
            q.splice(i, 1);
            arrived--;
          } else i++;
        }
        if (!q.length) this.pending.delete(key);
      }
    }
    // Rule 5: each editing view gone since the last sample leaves a 120 s reconnect slot.
    if (!first) {
      for (const [key, st] of this.docs) {
        const now = next.get(key)?.edit;
        let left = 0;
        for (const s of st.edit) if (!now?.has(s)) left++;
        if (left > 0) {
          const slots = this.grace.get(key) ?? [];
          for (let i = 0; i < left; i++) slots.push(at + this.reconnectGraceMs);
          this.grace.set(key, slots);
        }
      }
    }
    this.docs = next;
    this.current = current;
    this.readonlyViews = ro;
    this.sampledAt = at;
    this.history.push({ at, current, views: current + ro });
    const cut = at - PEAK_WINDOW_MS;
    while (this.history.length && this.history[0]!.at < cut) this.history.shift();
  }

  private expire(now: number): void {
    for (const [key, q] of this.pending) {
      while (q.length && q[0]! + this.pendingTtlMs <= now) q.shift();
      if (!q.length) this.pending.delete(key);
    }
    for (const [key, slots] of this.grace) {
      const live = slots.filter((t) => t > now);
      if (live.length) this.grace.set(key, live);
      else this.grace.delete(key);
    }
  }

  /** Rule 7: a sample younger than 3 periods exists. */
  enforcing(now = this.now()): boolean {
    return this.sampledAt !== null && now - this.sampledAt < this.staleAfterPeriods * this.intervalMs;
  }

  pendingCount(now = this.now()): number {
    this.expire(now);
    let n = 0;
    for (const q of this.pending.values()) n += q.length;
    return n;
  }

  /** Rule 2: an admitted editing session counts until a sample shows it or 60 s pass. */
  addPending(docKey: string, at = this.now()): void {
    const q = this.pending.get(docKey) ?? [];
    q.push(at);
    this.pending.set(docKey, q);
  }

  /** Rule 3: current + pending against the limit. */
  load(now = this.now()): { current: number; pending: number; limit: number } {
    return { current: this.current, pending: this.pendingCount(now), limit: this.opts.limit() };
  }

  /** Editing views of a document in the latest sample. */
  openEditViews(docKey: string): number {
    return this.docs.get(docKey)?.edit.size ?? 0;
  }

  graceSlots(docKey: string, now = this.now()): number {
    this.expire(now);
    return this.grace.get(docKey)?.length ?? 0;
  }

  /** Uses one reconnect slot of the document; false when none is left. */
  takeGrace(docKey: string, now = this.now()): boolean {
    this.expire(now);
    const slots = this.grace.get(docKey);
    if (!slots?.length) return false;
    slots.shift();
    if (!slots.length) this.grace.delete(docKey);
    return true;
  }

  /** Highest current and views_total over the last 300 s (rule 4, and the usage file). */
  peaks(now = this.now()): { edit: number; views: number } {
    const cut = now - PEAK_WINDOW_MS;
    let edit = 0;
    let views = 0;
    for (const h of this.history) {
      if (h.at < cut) continue;
      edit = Math.max(edit, h.current);
      views = Math.max(views, h.views);
    }
    return { edit, views };
  }

  /** Documents tracked (latest sample) plus documents with pending entries or grace slots. */
  trackedDocuments(): Set<string> {
    return new Set([...this.docs.keys(), ...this.pending.keys(), ...this.grace.keys()]);
  }

  snapshot(now = this.now()): ConnectionsSnapshot {
    const limit = this.opts.limit();
    const pending = this.pendingCount(now);
    const fresh = this.enforcing(now);
    return {
      limit,
      current: this.current,
      pending,
      peak_5m: this.peaks(now).edit,
      readonly: this.readonlyViews,
      views_total: this.current + this.readonlyViews,
      documents: this.docs.size,
      limit_reached: this.current + pending >= limit,
      source: fresh ? "adminws" : "none",
      ...sampleTime(this.sampledAt ?? this.startedAt, now),
      enforcing: fresh,
    };
  }
}

/**
 * sampled_at and sample_age_seconds of /svc/status for a sample (or, before the first one, the
 * start of counting) taken at `at`: an ISO string and whole seconds, never null (spec types).
 */
export function sampleTime(at: number, now: number): { sampled_at: string; sample_age_seconds: number } {
  return { sampled_at: new Date(at).toISOString(), sample_age_seconds: Math.max(0, Math.floor((now - at) / 1000)) };
}
