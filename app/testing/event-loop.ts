// Whether work leaves the event loop free: how many times the loop turned while it ran (a work
// done synchronously on this thread, however long, lets it turn not once).

/** Resolves with how many times the event loop turned (setImmediate) while `work` ran. */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const turn = () => {
    if (done) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    done = true;
  }
  return turns;
}
