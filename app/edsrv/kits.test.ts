// The kit pool with real kits: handing one out leaves the idle set one short until the document
// has had time to open (a kit starting would compete with it for the CPU), unless no ready kit is
// left for the next open, in which case the replacement starts at once.

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { memoryLogger } from "../log";
import { KitPool } from "./kits";
import { until, scaled } from "../testing/until";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-kits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the idle set is topped up after the delay while a ready kit remains, at once when none does", async () => {
  const pool = new KitPool({ idle: 2, profileRoot: dir, logger: memoryLogger("warn"), topUpDelayMs: 1500 });
  await pool.start();
  expect(pool.counts()).toEqual({ idle: 2, assigned: 0, total: 2 });
  const a = await pool.acquire();
  // One ready kit is left: no new kit yet.
  expect(pool.counts()).toEqual({ idle: 1, assigned: 1, total: 2 });
  // After the delay the idle set is topped up: waited for as it happens, not timed.
  await until(() => pool.counts(), (c) => c.idle === 2 && c.total === 3, "the idle set topped up after topUpDelayMs");
  expect(pool.counts()).toEqual({ idle: 2, assigned: 1, total: 3 });
  // Two handed out back to back: the second leaves none ready, so the top-up is immediate.
  const b = await pool.acquire();
  const c = await pool.acquire();
  expect(pool.counts().idle).toBe(2);
  for (const k of [a, b, c]) pool.release(k);
  await pool.close();
}, scaled(90_000));
