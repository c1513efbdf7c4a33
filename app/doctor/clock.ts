// The clock: embed tokens get no skew on exp and callback receivers refuse timestamps more than
// 300 s off, so this machine's clock must agree with the others. Compared with the Date header of
// the gate (the clock the service signs with) and, when given, of a reference URL.

import { fail, ok, warn, type Finding } from "./types";

/** Past this the clocks disagree enough to refuse tokens or callbacks. */
export const MAX_SKEW_S = 30;

async function dateOf(url: string, timeoutMs: number): Promise<number | null> {
  try {
    const t0 = Date.now();
    const res = await fetch(url, { method: "GET", signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    await res.arrayBuffer().catch(() => {});
    const d = Date.parse(res.headers.get("date") ?? "");
    // The header has 1 s resolution: compare with the middle of the exchange.
    return Number.isFinite(d) ? d - (Date.now() - t0) / 2 + 500 : null;
  } catch {
    return null;
  }
}

export async function checkClock(refs: { name: string; url: string }[], now: () => number = Date.now, timeoutMs = 3000): Promise<Finding> {
  const skews: Record<string, number> = {};
  for (const r of refs) {
    const d = await dateOf(r.url, timeoutMs);
    if (d !== null) skews[r.name] = Math.round((now() - d) / 1000);
  }
  const worst = Object.entries(skews).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))[0];
  if (!worst) return warn("clock", "No reference answered with a Date header, so the clock could not be compared.", "Run with the service up, or with --clock-url <a server you trust>; keep NTP (systemd-timesyncd, chrony) running.");
  if (Math.abs(worst[1]) > MAX_SKEW_S) {
    return fail("clock", `This machine's clock is ${worst[1]} s off ${worst[0]}: embed tokens are refused as expired or not yet valid, and receivers refuse callbacks past 300 s.`, "Synchronise the clock with NTP (timedatectl set-ntp true, or chrony) on this machine and on the servers that sign tokens.", { skew_s: skews });
  }
  return ok("clock", `The clock agrees with ${Object.keys(skews).join(", ")} (within ${Math.max(...Object.values(skews).map(Math.abs))} s).`, { skew_s: skews });
}
