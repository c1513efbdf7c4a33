// Waiting in tests for a condition, with a deadline: never a sleep that hopes something happened.

/** Resolves once `check` holds; throws, naming `what`, when it has not by `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms: ${what}`);
    await Bun.sleep(25);
  }
}

/** Whether a process exists (a zombie still counts until it is reaped). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
