// How long people wait for their typing to be answered, across the whole editing server: from a
// key or text a page sends to the caret frame that answers it. The caret frame is held until the
// tiles showing the change are sent (view-callbacks.ts), so the wait includes the paint. Its p95
// over the last 5 s is what the gate reads (admin command `svc_input_lag`) to stop admitting
// new editors before the people already typing slow past the target (docs/operations.md, Sizing).

/** Samples older than this are forgotten: the reading follows the load within seconds. */
export const INPUT_LAG_WINDOW_MS = 5_000;
/** An input unanswered this long is not counted (a key that moves no caret), rather than counted forever. */
const STALE_INPUT_MS = 5_000;
const MAX_SAMPLES = 20_000;

export interface InputLagSummary {
  /** 95th percentile of the waits in the window, ms (0 without samples). */
  p95Ms: number;
  samples: number;
  windowMs: number;
  /** Since the last answered input, ms (null without samples): people who stopped typing load nothing. */
  lastMsAgo: number | null;
}

export class InputLagMeter {
  /** Per page: when its oldest input not yet answered arrived. */
  private waiting = new WeakMap<object, number>();
  private at: number[] = [];
  private ms: number[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A page sent a key or text. */
  typed(page: object): void {
    if (!this.waiting.has(page)) this.waiting.set(page, this.now());
  }

  /** A caret frame went to the page. */
  answered(page: object): void {
    const since = this.waiting.get(page);
    if (since === undefined) return;
    this.waiting.delete(page);
    const now = this.now();
    if (now - since > STALE_INPUT_MS) return;
    this.at.push(now);
    this.ms.push(now - since);
    if (this.at.length > MAX_SAMPLES) this.forget(this.at.length - MAX_SAMPLES);
  }

  summary(): InputLagSummary {
    const from = this.now() - INPUT_LAG_WINDOW_MS;
    let old = 0;
    while (old < this.at.length && this.at[old]! < from) old++;
    this.forget(old);
    const sorted = [...this.ms].sort((a, b) => a - b);
    const p95 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]! : 0;
    const last = this.at.at(-1);
    return { p95Ms: Math.round(p95 * 10) / 10, samples: sorted.length, windowMs: INPUT_LAG_WINDOW_MS, lastMsAgo: last === undefined ? null : Math.round(this.now() - last) };
  }

  private forget(n: number): void {
    if (n <= 0) return;
    this.at.splice(0, n);
    this.ms.splice(0, n);
  }
}

/** Whether a page's frame is typing: a key pressed (not released) or committed text. */
export function isTyping(frame: string): boolean {
  if (frame.startsWith("textinput ")) return !/(^| )end=0( |$)/.test(frame);
  return frame.startsWith("key ") && / type=input( |$)/.test(frame);
}
