// Fair queueing by caller (issue 44 item 5): DocBuilder's queue is one queue per caller (the API
// key's name or the JWT's subject the request was authenticated with), served round-robin. With a
// single FIFO, a caller who queued ten slow jobs made every other caller's request wait behind all
// ten; here the next free slot goes to the next caller in turn, so another caller waits for at
// most one job to end whatever one caller queued (when the edition runs more than one job at a
// time: with community's single slot, the job running still runs to its end first).
//
// Within one caller the order stays first come, first served. Between callers, the one served
// least recently goes first (a caller never served, or not for long, before one just served),
// remembered across the moments a caller has nothing waiting: otherwise a caller whose queue
// emptied and filled again would come back at the front.

export interface Queued {
  /** Whose request it is: callers with the same key share one queue. */
  readonly caller: string;
}

/** How many callers' last turns are kept at most (see forgetOldTurns). */
const MAX_REMEMBERED = 1000;

export class FairQueue<T extends Queued> {
  /** Each caller's waiting items, in the order the callers take their turns (a Map keeps insertion order). */
  private readonly byCaller = new Map<string, T[]>();
  /** When each caller was last served (a turn number); callers never served have none. */
  private readonly lastTurn = new Map<string, number>();
  private turn = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    const q = this.byCaller.get(item.caller);
    if (q) q.push(item);
    else this.byCaller.set(item.caller, [item]);
    this.count++;
  }

  /** Removes an item wherever it waits; false when it was not waiting. */
  remove(item: T): boolean {
    const q = this.byCaller.get(item.caller);
    const at = q ? q.indexOf(item) : -1;
    if (at < 0) return false;
    q!.splice(at, 1);
    if (q!.length === 0) this.byCaller.delete(item.caller);
    this.count--;
    return true;
  }

  /**
   * Takes the first item (in arrival order) that `eligible` accepts of the caller served least
   * recently among those having one; undefined when no caller has one.
   */
  take(eligible: (item: T) => boolean): T | undefined {
    let best: T | undefined;
    let bestTurn = Infinity;
    for (const [caller, q] of this.byCaller) {
      const turn = this.lastTurn.get(caller) ?? 0;
      if (turn >= bestTurn) continue;
      const item = q.find(eligible);
      if (item) {
        best = item;
        bestTurn = turn;
      }
    }
    if (!best) return undefined;
    this.remove(best);
    this.lastTurn.delete(best.caller);
    this.lastTurn.set(best.caller, ++this.turn);
    this.forgetOldTurns();
    return best;
  }

  /**
   * Bounds what is remembered (JWT subjects are many): beyond MAX_REMEMBERED callers, the oldest
   * turns of callers with nothing waiting are forgotten (such a caller then counts as never served).
   */
  private forgetOldTurns(): void {
    if (this.lastTurn.size <= MAX_REMEMBERED) return;
    // The Map is in turn order (each serve re-inserts): the oldest come first.
    for (const caller of this.lastTurn.keys()) {
      if (this.lastTurn.size <= MAX_REMEMBERED) break;
      if (!this.byCaller.has(caller)) this.lastTurn.delete(caller);
    }
  }

  /** Every waiting item (no order promised). */
  items(): T[] {
    return [...this.byCaller.values()].flat();
  }

  /** Empties the queue, giving back what waited. */
  drain(): T[] {
    const all = this.items();
    this.byCaller.clear();
    this.count = 0;
    return all;
  }
}
