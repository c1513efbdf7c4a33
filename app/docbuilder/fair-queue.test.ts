// The fair queue's order on its own (the pool's use of it, with real engines: pool.test.ts).
import { expect, test } from "bun:test";
import { FairQueue } from "./fair-queue";

const item = (caller: string, n: number) => ({ caller, n });
const takeAll = (q: FairQueue<{ caller: string; n: number }>) => {
  const out: string[] = [];
  for (let t = q.take(() => true); t; t = q.take(() => true)) out.push(`${t.caller}${t.n}`);
  return out;
};

test("callers take turns; each caller's own items keep their order", () => {
  const q = new FairQueue<{ caller: string; n: number }>();
  for (let n = 1; n <= 3; n++) q.push(item("A", n));
  q.push(item("B", 1));
  q.push(item("C", 1));
  q.push(item("B", 2));
  expect(takeAll(q)).toEqual(["A1", "B1", "C1", "A2", "B2", "A3"]);
  expect(q.length).toBe(0);
});

test("a caller just served waits for the others even when its queue emptied and filled again", () => {
  const q = new FairQueue<{ caller: string; n: number }>();
  q.push(item("A", 1));
  expect(q.take(() => true)?.n).toBe(1);
  q.push(item("A", 2));
  q.push(item("B", 1));
  expect(takeAll(q)).toEqual(["B1", "A2"]);
});

test("an item the caller may not start yet is skipped for the next eligible one, and removal works anywhere", () => {
  const q = new FairQueue<{ caller: string; n: number }>();
  const a1 = item("A", 1);
  q.push(a1);
  q.push(item("A", 2));
  q.push(item("B", 1));
  expect(q.take((t) => t.n === 2)?.caller).toBe("A");
  expect(q.remove(a1)).toBe(true);
  expect(q.remove(a1)).toBe(false);
  expect(takeAll(q)).toEqual(["B1"]);
});

test("what is remembered of callers stays bounded however many callers come and go", () => {
  const q = new FairQueue<{ caller: string; n: number }>();
  for (let i = 0; i < 5000; i++) {
    q.push(item(`jwt:${i}`, 1));
    q.take(() => true);
  }
  expect((q as any).lastTurn.size).toBeLessThanOrEqual(1000);
});
