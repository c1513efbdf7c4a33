// Kit starts under load (issue 31, item 5): the editing server starts at most KIT_STARTS_AT_ONCE kits
// at a time and queues the rest; an open waits for its kit however long it takes to start; a kit
// past the start limit is ended, never handed out, and the open waiting for it gets another.
// The kits here are stand-ins that say ready when told (SIGUSR1): what is tested is the pool's
// bookkeeping, which a real engine's start time would only make slow to observe.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { memoryLogger } from "../log";
import { KitPool, type Kit } from "./kits";
import { processExists, until, scaled } from "../testing/until";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-kit-starts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A kit that starts, then says ready on SIGUSR1 (and never otherwise). */
const STAND_IN = path.join(dir, "stand-in-kit.ts");
writeFileSync(
  STAND_IN,
  `import { writeSync } from "node:fs";
   process.on("SIGUSR1", () => writeSync(3, JSON.stringify({ type: "ready", pid: process.pid, startMs: 1, version: "stand-in" }) + "\\n"));
   process.on("SIGTERM", () => process.exit(0));
   writeSync(3, JSON.stringify({ type: "log", level: "info", event: "stand_in_started", fields: { stand_in: process.pid } }) + "\\n");
   setInterval(() => {}, 1 << 30);`,
);

function standInPool(opts: { idle: number; startsAtOnce: number; startTimeoutMs?: number }) {
  const logger = memoryLogger("debug");
  const pool = new KitPool({ ...opts, profileRoot: path.join(dir, `p${Math.random().toString(36).slice(2)}`), logger, command: [process.execPath, STAND_IN], topUpDelayMs: 0 });
  /** The stand-ins' pids, in the order they started (from their first log line). */
  const started = () => logger.lines.filter((l) => l.includes('"stand_in_started"')).map((l) => JSON.parse(l).stand_in as number);
  return { pool, started, logger };
}


test("kit starts in flight are bounded: opens past the bound wait for a turn, and each gets a kit once one is ready", async () => {
  const { pool, started } = standInPool({ idle: 0, startsAtOnce: 2 });
  const opens: Promise<Kit>[] = [];
  const got: Kit[] = [];
  for (let i = 0; i < 5; i++) opens.push(pool.acquire().then((k) => (got.push(k), k)));
  await until(() => started().length, (n) => n === 2, "two stand-ins started");
  // However long they take, no third starts while two are starting.
  expect(pool.counts().total).toBe(2);
  process.kill(started()[0]!, "SIGUSR1");
  await until(() => got.length, (n) => n === 1, "the first open got the first kit");
  await until(() => started().length, (n) => n === 3, "a third start took the freed turn");
  expect(pool.counts().total).toBe(3);
  for (const pid of started().slice(1)) process.kill(pid, "SIGUSR1");
  await until(() => started().length, (n) => n === 5, "the last two started in turn");
  for (const pid of started().slice(3)) process.kill(pid, "SIGUSR1");
  const kits = await Promise.all(opens);
  expect(new Set(kits.map((k) => k.pid)).size).toBe(5);
  for (const k of kits) pool.release(k);
  await pool.close();
}, scaled(60_000));

test("a kit past the start limit is ended, not handed out; the open waiting for it gets the next one", async () => {
  const { pool, started, logger } = standInPool({ idle: 0, startsAtOnce: 1, startTimeoutMs: 300 });
  const open = pool.acquire();
  // The first stand-in is never told to be ready: past the limit it is ended and a second one started.
  await until(() => started().length, (n) => n === 2, "a second stand-in after the first was ended");
  const [first, second] = started() as [number, number];
  await until(() => processExists(first), (a) => !a, "the timed-out kit's process gone");
  expect(logger.lines.some((l) => l.includes('"kit_start_timeout"'))).toBe(true);
  process.kill(second, "SIGUSR1");
  const kit = await open;
  expect(kit.pid).toBe(second);
  pool.release(kit);
  await pool.close();
}, scaled(60_000));

test("idle kits are started in turn too, and an open takes a started one before it is ready rather than starting another", async () => {
  const { pool, started } = standInPool({ idle: 3, startsAtOnce: 1 });
  const starting = pool.start();
  await until(() => started().length, (n) => n === 1, "the first idle stand-in");
  expect(pool.counts().total).toBe(1);
  const open = pool.acquire();
  // The open took the started kit; no extra start beyond the idle set's.
  process.kill(started()[0]!, "SIGUSR1");
  const kit = await open;
  expect(kit.pid).toBe(started()[0]!);
  for (let i = 1; i < 4; i++) {
    await until(() => started().length, (n) => n === i + 1, `idle stand-in ${i + 1}`);
    process.kill(started()[i]!, "SIGUSR1");
  }
  await starting;
  await until(() => pool.counts(), (c) => c.idle === 3, "three idle kits");
  expect(started().length).toBe(4);
  pool.release(kit);
  await pool.close();
}, scaled(60_000));
