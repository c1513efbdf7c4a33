// What the browser benchmarks (edsrv, api-open, keystroke) share: percentiles of a sample, and
// waiting until the editing server's idle kits are started and quiet before an open is timed.
import type { Edsrv } from "../app/edsrv/server";

/** n, mean, p50, p95 (nearest rank) and max of a sample. */
export function percentiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  return { n: xs.length, mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: q(0.5), p95: q(0.95), max: s[s.length - 1]! };
}

/** Until the pool has two idle kits, both started, and 300 ms more for a new kit's start-up CPU to settle. */
export async function warmKits(ed: Edsrv): Promise<void> {
  const pool = ed.pool as unknown as { idle: { pid: number }[] };
  while (pool.idle.length < 2 || pool.idle.some((k) => k.pid === 0)) await Bun.sleep(50);
  await Bun.sleep(300);
}
