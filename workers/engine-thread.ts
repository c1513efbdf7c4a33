// Whether LibreOffice's own thread is asleep. Without unipoll, LibreOfficeKit runs the office's
// main loop on a thread of ours named "lo_startmain"; input we post wakes it (the kernel marks it
// runnable before the post returns), and it sleeps again only once it has run every event posted
// so far. Read from /proc, a few microseconds: Linux only, as the kit is.
import { readFileSync, readdirSync } from "node:fs";

let engineThreadId: string | null | undefined;

function findEngineThread(): string | null {
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      if (readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() === "lo_startmain") return tid;
    }
  } catch {
    // no /proc: unknown, see engineThreadAsleep
  }
  return null;
}

/** True when the engine's thread sleeps; also true when it cannot be known (no such thread, no /proc). */
export function engineThreadAsleep(): boolean {
  if (engineThreadId === undefined) engineThreadId = findEngineThread();
  if (engineThreadId === null) return true;
  try {
    const stat = readFileSync(`/proc/self/task/${engineThreadId}/stat`, "utf8");
    // "tid (comm) S …": the state follows the last ')' (comm may hold one).
    return stat[stat.lastIndexOf(")") + 2] === "S";
  } catch {
    engineThreadId = findEngineThread();
    return true;
  }
}
