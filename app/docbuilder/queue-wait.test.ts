// A request waiting in the queue is not failed by the one ahead of it: its running time counts
// from when a worker takes it, and its wait is bounded apart (app/docbuilder/time-limits.ts).
// Seen: a small xlsx with slow formulas held the community pool's only slot for the whole 60 s; the
// small request queued behind it got 504 after 60 s too. A busy worker is played by a frozen one
// (SIGSTOP): it holds its request until the pool's time-out kills it.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../clock";
import { ServiceError } from "../errors";
import { memoryLogger } from "../log";
import { waitFor, scaled } from "../testing/until";
import { WorkerPool } from "./pool";
import { ANSWER_MARGIN_MS, PROXY_READ_TIMEOUT_MS, requestTimeLimits } from "./time-limits";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-queue-wait-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hello = path.resolve(import.meta.dir, "../../fixtures/hello.docx");
const COMMUNITY = { sync_timeout_seconds: 60, job_timeout_seconds: 120 };

describe("a request waiting in the queue is not failed by the one ahead of it", () => {
  test("a synchronous request may wait for a whole synchronous run ahead of it and still run its own full time", () => {
    const arrived = 1_000_000;
    const sync = requestTimeLimits(COMMUNITY, false, arrived);
    expect(sync.runTimeoutMs).toBe(60_000);
    // Before, one deadline (arrival + 60 s) bounded the wait and the run together: a request queued
    // behind a 60 s run had no time left. Now it may start as long as its own run and its answer
    // still fit in the proxy's read timeout.
    expect(sync.startBy! - arrived).toBe(PROXY_READ_TIMEOUT_MS - 60_000 - ANSWER_MARGIN_MS);
    expect(sync.startBy! - arrived).toBeGreaterThan(sync.runTimeoutMs);
    // Asynchronous: no bound on waiting (the queue's length is bounded by max_queued_jobs), the job's time to run.
    expect(requestTimeLimits(COMMUNITY, true, arrived)).toEqual({ runTimeoutMs: 120_000 });
    expect(requestTimeLimits({ sync_timeout_seconds: 60, job_timeout_seconds: 5 }, false, arrived).runTimeoutMs).toBe(5000);
  });

  test("the request behind one that hogs the only worker runs and succeeds after that one times out", async () => {
    const clock = new ManualClock();
    const pool = new WorkerPool({ size: 1, maxJobs: 100, maxAgeMs: 600_000, profileRoot: path.join(dir, "hog"), logger: memoryLogger("warn"), clock, parallelJobs: () => 1 });
    await pool.start();
    try {
      const [pid] = pool.pids();
      process.kill(pid!, "SIGSTOP"); // busy for as long as the pool lets it be
      // Both with the same limits and arriving together, as in the report (a short run time here).
      const limits = requestTimeLimits({ sync_timeout_seconds: 4, job_timeout_seconds: 120 }, false, clock.now());
      const events: string[] = [];
      const hog = pool.run({ op: "text", id: "hog", input: hello }, { ...limits, onStart: () => events.push("hog started") }).then(
        () => events.push("hog answered"),
        (e: ServiceError) => events.push(`hog failed ${e.code} ${e.detail.reason ?? ""}`.trim()),
      );
      const small = pool.run<{ text: string }>({ op: "text", id: "small", input: hello }, { ...limits, onStart: () => events.push("small started") }).then(
        (r) => events.push(`small answered ${r.text.includes("Hello") || r.text.length > 0}`),
        (e: ServiceError) => events.push(`small failed ${e.code} ${e.detail.reason ?? ""}`.trim()),
      );
      await Promise.all([hog, small]);
      expect(events).toEqual(["hog started", "hog failed timeout", "small started", "small answered true"]);
      expect(pool.pids()).not.toContain(pid!); // the frozen worker was killed and replaced
    } finally {
      await pool.shutdown(0);
    }
  }, scaled(120_000));

  test("a request no worker takes by its startBy fails with timeout, saying it never started", async () => {
    const clock = new ManualClock();
    const pool = new WorkerPool({ size: 1, maxJobs: 100, maxAgeMs: 600_000, profileRoot: path.join(dir, "startby"), logger: memoryLogger("warn"), clock, parallelJobs: () => 1 });
    await pool.start();
    try {
      const [pid] = pool.pids();
      process.kill(pid!, "SIGSTOP");
      const hog = pool.run({ op: "text", id: "hog", input: hello }, { runTimeoutMs: 600_000 }).catch((e: ServiceError) => e);
      await waitFor(() => pool.busyPids().length === 1, "the frozen worker has the first request");
      const err = await pool.run({ op: "text", id: "late", input: hello }, { runTimeoutMs: 600_000, startBy: clock.now() }).catch((e: ServiceError) => e);
      expect(err).toBeInstanceOf(ServiceError);
      const e = err as ServiceError;
      expect([e.code, e.detail.reason, e.detail.queued_ms]).toEqual(["timeout", "not_started", 0]);
      expect(pool.queueStats()).toEqual({ queued: 0, running: 1 });
      await pool.shutdown(0);
      expect(((await hog) as ServiceError).code).toBe("pool_unavailable");
    } finally {
      await pool.shutdown(0);
    }
  }, scaled(120_000));
});
