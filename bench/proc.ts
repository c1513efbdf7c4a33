// What benchmarks read of a process from /proc: its parent, CPU ticks, name, memory, descendants.

import { readdirSync, readFileSync } from "node:fs";

export const TICK_MS = 10; // CLK_TCK 100
export function procStat(pid: number): { ppid: number; ticks: number; comm: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = s.lastIndexOf(")");
    const f = s.slice(close + 2).split(" ");
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), comm: s.slice(s.indexOf("(") + 1, close) };
  } catch {
    return null;
  }
}
/** CPU time (ms) a process has used: utime + stime, in clock ticks of 10 ms. */
export const cpuMs = (pid: number): number => (procStat(pid)?.ticks ?? 0) * TICK_MS;
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
/** Every live descendant of `root`. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const st = procStat(Number(d));
    if (!st) continue;
    const c = children.get(st.ppid) ?? [];
    c.push(Number(d));
    children.set(st.ppid, c);
  }
  const out: number[] = [];
  const walk = (p: number) => { for (const c of children.get(p) ?? []) { out.push(c); walk(c); } };
  walk(root);
  return out;
}
/** A process's command line, its arguments joined by spaces ("" once it is gone). */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}
