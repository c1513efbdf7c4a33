// An engine process ends when the process that started it ends, however that one ends (SIGKILL
// included) and however busy the engine is: the kernel sends it SIGKILL (prctl PR_SET_PDEATHSIG).
// Watching stdin close is not enough: a busy engine's JS thread does not run until LibreOffice
// returns, and an engine left behind keeps its CPU and its document.

import { dlopen } from "bun:ffi";

const SYS_PRCTL = 157;
const SYS_GETPPID = 110;
const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;

/**
 * Asks the kernel to SIGKILL this process when its parent exits. Called first thing in an
 * engine's entry file. A parent that died before the call has already handed us to init (or a
 * subreaper): then we exit at once. Returns false where prctl is not available (not linux/x64).
 */
export function dieWithParent(): boolean {
  if (process.platform !== "linux" || process.arch !== "x64") return false;
  try {
    const libc = dlopen("libc.so.6", { syscall: { args: ["i64", "i64", "i64", "i64", "i64", "i64"], returns: "i64" } });
    const parent = process.ppid;
    if (Number(libc.symbols.syscall(SYS_PRCTL, BigInt(PR_SET_PDEATHSIG), BigInt(SIGKILL), 0n, 0n, 0n)) !== 0) return false;
    // The parent may have died between our start and the call above: no signal would come.
    if (Number(libc.symbols.syscall(SYS_GETPPID, 0n, 0n, 0n, 0n, 0n)) !== parent || parent === 1) process.exit(0);
    libc.close();
    return true;
  } catch {
    return false;
  }
}
