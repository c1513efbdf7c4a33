// The one way tests wait: for a condition, with a deadline, saying what they waited for and what
// they saw last when it never came. Deadlines scale from one place, SVC_TEST_TIME_SCALE (2 on a
// machine twice as slow), so that no test needs its own bound widened for a slower machine.

/** How much longer than written every test deadline is (SVC_TEST_TIME_SCALE, at least 1). */
export const TEST_TIME_SCALE = Math.max(1, Number(process.env.SVC_TEST_TIME_SCALE) || 1);

/** A deadline as written for this machine, scaled for a slower one. */
export const scaled = (ms: number): number => Math.round(ms * TEST_TIME_SCALE);

/**
 * Waits until pred holds of what read answers (polling every pollMs), or fails with `what` and the
 * last value. A read that costs the machine (pixels out of a browser) polls less often.
 */
export async function until<T>(read: () => Promise<T> | T, pred: (v: T) => boolean, what: string, timeoutMs = 20_000, pollMs = 25): Promise<T> {
  const end = Date.now() + scaled(timeoutMs);
  let last: T;
  do {
    last = await read();
    if (pred(last)) return last;
    await Bun.sleep(pollMs);
  } while (Date.now() < end);
  throw new Error(`never: ${what}; last: ${JSON.stringify(last)}`);
}

/** Waits until `check` holds, or fails naming `what`. For a yes/no condition; until() reports a value it saw. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  await until(check, (ok) => ok, what, timeoutMs);
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

/**
 * A window in which something must NOT happen ("nothing is stored", "no second view is closed"):
 * the one place such windows are written, named and scaled. With `happened`, the window is watched
 * throughout and fails at once, naming `what` and what it saw, when happened answers other than
 * false/undefined/null; without it, the window only passes (the caller checks afterwards). A quiet
 * window is the only kind of waiting a test may do without a positive event to wait for.
 */
export async function quietFor(ms: number, what: string, happened?: () => unknown): Promise<void> {
  const start = Date.now();
  const end = start + scaled(ms);
  for (;;) {
    if (happened) {
      const seen = await happened();
      if (seen !== false && seen !== undefined && seen !== null) {
        throw new Error(`not quiet: ${what}; after ${Date.now() - start} ms of a ${scaled(ms)} ms window saw: ${JSON.stringify(seen)}`);
      }
    }
    const left = end - Date.now();
    if (left <= 0) return;
    await Bun.sleep(Math.min(25, left));
  }
}

/** `p`, or a failure naming `what` when it has not settled within the (scaled) deadline. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${scaled(ms)} ms: ${what}`)), scaled(ms));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
