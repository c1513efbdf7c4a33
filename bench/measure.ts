// What the browser benchmarks (edsrv, api-open, keystroke) share: percentiles of a sample, and
// waiting until the editing server's idle kits are started and quiet before an open is timed.
import type { Edsrv } from "../app/edsrv/server";

/** n, mean, p50, p95 (nearest rank) and max of a sample. */
export function percentiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  return { n: xs.length, mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: q(0.5), p95: q(0.95), max: s[s.length - 1]! };
}

/**
 * Until the pool has two idle kits, both started, and the machine is quiet: a kit started for the
 * one a closed document took keeps a core busy for a while after it is ready (fonts, profile).
 */
export async function warmKits(ed: Edsrv): Promise<void> {
  const pool = ed.pool as unknown as { idle: { pid: number }[] };
  while (pool.idle.length < 2 || pool.idle.some((k) => k.pid === 0)) await Bun.sleep(50);
  await machineQuiet();
}

/** The machine's busy share of all CPUs over `ms` (from /proc/stat). */
async function busyShare(ms: number): Promise<number> {
  const read = async () => (await Bun.file("/proc/stat").text()).split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const a = await read();
  await Bun.sleep(ms);
  const b = await read();
  const d = b.map((v, i) => v - a[i]!);
  const total = d.reduce((x, y) => x + y, 0);
  const idle = d[3]! + d[4]!; // idle, iowait
  return total > 0 ? 1 - idle / total : 0;
}

/**
 * Until the machine is quiet: the busy share of all CPUs below `limit` for two 250 ms windows in a
 * row (at most `maxMs`). An editing server that just handed its idle kit to a document starts
 * another (a core's worth for several seconds): timed meanwhile, every keystroke competed with it.
 */
export async function machineQuiet(limit = 0.15, maxMs = 30_000): Promise<void> {
  const until = Date.now() + maxMs;
  let calm = 0;
  while (calm < 2 && Date.now() < until) calm = (await busyShare(250)) < limit ? calm + 1 : 0;
}
