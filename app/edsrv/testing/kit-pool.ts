// A pool of real kits for the tests that drive a kit directly (its protocol, no editing server),
// started once per test file in a temporary folder, stopped and removed after it.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { memoryLogger } from "../../log";
import { KitPool } from "../kits";

/** Registers the pool's start and stop; answers its folder and the pool once started. */
export function useKitPool(prefix: string): { dir: string; pool: () => KitPool } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  let pool: KitPool | undefined;
  beforeAll(async () => {
    // The tests put their documents in this folder; a kit is handed each one in its own folder (kits.ts).
    pool = new KitPool({ idle: 1, profileRoot: path.join(dir, "kits"), documentRoot: dir, logger: memoryLogger("warn") });
    await pool.start();
  }, 60_000);
  afterAll(async () => {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, pool: () => pool! };
}
