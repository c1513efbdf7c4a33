// Counting rule 8: every 5 minutes one line in <data>/usage/usage-YYYY-MM.csv (UTC month), with a
// header line when the file is new. Columns: ts_utc,peak_edit,peak_views_total,limit,edition —
// the peaks over the last 300 s of samples. Nothing leaves the machine.

import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Clock } from "../clock";
import type { Logger } from "../log";
import type { ConnectionCounter } from "./counting";

export const USAGE_INTERVAL_MS = 300_000;
export const USAGE_HEADER = "ts_utc,peak_edit,peak_views_total,limit,edition";

export function usageFile(dataDir: string, at: number): string {
  const d = new Date(at);
  const month = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
  return path.join(dataDir, "usage", `usage-${month}.csv`);
}

export class UsageWriter {
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly o: { dataDir: string; counter: ConnectionCounter; clock: Clock; edition: () => string; logger?: Logger },
  ) {}

  /** Appends one line for now; returns the file written. */
  write(at = this.o.clock.now()): string {
    const file = usageFile(this.o.dataDir, at);
    const peaks = this.o.counter.peaks(at);
    const limit = this.o.counter.load(at).limit;
    const line = `${new Date(at).toISOString()},${peaks.edit},${peaks.views},${limit},${this.o.edition()}\n`;
    mkdirSync(path.dirname(file), { recursive: true });
    const fresh = !existsSync(file);
    appendFileSync(file, fresh ? `${USAGE_HEADER}\n${line}` : line);
    return file;
  }

  start(intervalMs = USAGE_INTERVAL_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.write();
      } catch (err) {
        this.o.logger?.error("usage_write_failed", { error: err as Error });
      }
    }, intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
