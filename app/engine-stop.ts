// How an office engine (an editing kit, a DocBuilder worker) is stopped when its pool stops.
// SIGTERM is answered by the engine's own handler (process.exit, without LibreOffice's teardown),
// but that handler runs on the engine's JS thread, which a busy engine does not give back until
// LibreOffice returns: two kits busy with 10 MB inputs ignored it and stayed, orphaned, at 62 %
// CPU. So SIGKILL follows after a short grace, and the stop resolves only once the process is gone.

/** How long an engine has to exit on SIGTERM before it is killed. */
export const ENGINE_STOP_GRACE_MS = 3000;

/** SIGTERM, SIGKILL after `graceMs` if it has not exited by then; resolves when it has exited. */
export async function stopEngine(kill: (signal: NodeJS.Signals) => unknown, exited: Promise<unknown>, graceMs = ENGINE_STOP_GRACE_MS): Promise<void> {
  kill("SIGTERM");
  const killer = setTimeout(() => kill("SIGKILL"), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(killer);
  }
}
