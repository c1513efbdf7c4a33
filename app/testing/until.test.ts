// The one way tests wait (issue 31): a wait that never comes fails saying what it waited for and
// what it saw last; a quiet window fails at the first thing that should not have happened; every
// deadline is scaled by SVC_TEST_TIME_SCALE.
import { expect, test } from "bun:test";
import { TEST_TIME_SCALE, quietFor, scaled, until, waitFor, within } from "./until";

test("until fails naming what it waited for and the last value it read", async () => {
  let n = 0;
  const err = await until(() => ++n, (v) => v < 0, "a negative count", 60).catch((e: Error) => e);
  expect(String((err as Error).message)).toMatch(/^never: a negative count; last: \d+$/);
  expect(await until(() => 7, (v) => v === 7, "seven")).toBe(7);
  expect(await waitFor(() => true, "at once").then(() => "ok")).toBe("ok");
});

test("quietFor fails at the first thing that happened, saying what", async () => {
  let calls = 0;
  const err = await quietFor(5_000, "nothing stored", () => (++calls >= 3 ? "a PutFile" : false)).catch((e: Error) => e);
  expect(String((err as Error).message)).toMatch(/^not quiet: nothing stored; after \d+ ms of a \d+ ms window saw: "a PutFile"$/);
  expect(calls).toBe(3);
  await quietFor(30, "a short quiet window");
});

test("within fails naming the promise it gave up on; every deadline scales from one setting", async () => {
  const err = await within(new Promise(() => {}), 20, "an answer that never comes").catch((e: Error) => e);
  expect(String((err as Error).message)).toBe(`not within ${scaled(20)} ms: an answer that never comes`);
  expect(await within(Promise.resolve(3), 20, "three")).toBe(3);
  expect(scaled(1000)).toBe(Math.round(1000 * TEST_TIME_SCALE));
  expect(TEST_TIME_SCALE).toBeGreaterThanOrEqual(1);
});
