// A stop ends every engine, busy or not: the pools' stop sends SIGTERM, then SIGKILL after
// ENGINE_STOP_GRACE_MS, and resolves once the processes are gone; and an engine whose parent dies
// (even by SIGKILL, which runs no handler of the parent's) dies with it. A busy engine is played by
// a frozen one (SIGSTOP): it runs no signal handler, exactly as a kit busy in LibreOffice.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "./clock";
import { WorkerPool } from "./docbuilder/pool";
import { KitPool } from "./edsrv/kits";
import { memoryLogger } from "./log";
import { waitFor, scaled } from "./testing/until";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-engine-stop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Gone: no such process, or a zombie (dead, waiting for whoever adopted it to reap it). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

const workerPool = (root: string) => new WorkerPool({ size: 1, maxJobs: 10, maxAgeMs: 600_000, profileRoot: root, logger: memoryLogger("warn"), clock: new ManualClock() });

describe("a stop ends every engine, busy or not", () => {
  test("the kit pool's close ends a kit that cannot answer (frozen) and resolves after it is gone", async () => {
    const pool = new KitPool({ idle: 1, profileRoot: path.join(dir, "kits"), logger: memoryLogger("warn") });
    await pool.start();
    const [pid] = pool.pids();
    process.kill(pid!, "SIGSTOP");
    await pool.close();
    expect(gone(pid!)).toBe(true);
  }, scaled(120_000));

  test("the worker pool's shutdown ends a worker that cannot answer (frozen) and resolves after it is gone", async () => {
    const pool = workerPool(path.join(dir, "workers"));
    await pool.start();
    const [pid] = pool.pids();
    process.kill(pid!, "SIGSTOP");
    await pool.shutdown(0);
    expect(gone(pid!)).toBe(true);
  }, scaled(120_000));

  test("a parent killed with SIGKILL leaves no engine, not even a frozen one", async () => {
    // A parent holding a kit pool and a worker pool, which says their pids once they are ready.
    const script = `
      import { KitPool } from ${JSON.stringify(path.resolve(import.meta.dir, "edsrv/kits.ts"))};
      import { WorkerPool } from ${JSON.stringify(path.resolve(import.meta.dir, "docbuilder/pool.ts"))};
      import { ManualClock } from ${JSON.stringify(path.resolve(import.meta.dir, "clock.ts"))};
      import { memoryLogger } from ${JSON.stringify(path.resolve(import.meta.dir, "log.ts"))};
      const kits = new KitPool({ idle: 1, profileRoot: ${JSON.stringify(path.join(dir, "parent-kits"))}, logger: memoryLogger("warn") });
      const workers = new WorkerPool({ size: 1, maxJobs: 10, maxAgeMs: 600000, profileRoot: ${JSON.stringify(path.join(dir, "parent-workers"))}, logger: memoryLogger("warn"), clock: new ManualClock() });
      await Promise.all([kits.start(), workers.start()]);
      console.log(JSON.stringify([...kits.pids(), ...workers.pids()]));
      // Alive until killed (a wait of the parent's own, not a test's deadline: scaled() is not here).
      setInterval(() => {}, 1000);
    `;
    const parent = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    let pids: number[] = [];
    try {
      let out = "";
      const reader = (parent.stdout as ReadableStream<Uint8Array>).getReader();
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the parent ended before its engines were ready: ${out}`);
        out += new TextDecoder().decode(value);
      }
      pids = JSON.parse(out.trim());
      expect(pids.length).toBe(2);
      for (const pid of pids) process.kill(pid, "SIGSTOP");
      parent.kill("SIGKILL");
      await waitFor(() => pids.every(gone), `engines ${pids.join(", ")} gone after their parent was killed`, 20_000);
    } finally {
      parent.kill("SIGKILL");
      for (const pid of pids) if (!gone(pid)) process.kill(pid, "SIGKILL");
    }
  }, scaled(120_000));
});
