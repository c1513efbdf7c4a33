// The real service for benchmarks: enterprise (a token signed here, so community's rate limits
// do not throttle the run), on a free loopback port, with a private data directory.

import path from "node:path";
import { parseConfig } from "../app/config";
import { decodePrivateKey, generateKeyPair, signToken } from "../app/editions/license";
import { memoryLogger } from "../app/log";
import { startService, type RunningService } from "../app/server";
import { freePort } from "../caddy/testing";
import { until } from "../app/testing/until";

export const BENCH_API_KEY = "svc_bench_0123456789abcdef0123";

/** The settings of the bench's service: enterprise, its API key, `workers` workers. */
function benchSettings(dataDir: string, workers: number): Record<string, string> {
  const keys = generateKeyPair();
  const token = signToken(
    { v: 1, prod: "svc-online", kind: "enterprise", conns: 5000, plan: "year", exp: "2099-12-31", feat: ["api_full"], key: "OOSY-BENCH-00000-00000-00000", iat: Math.floor(Date.now() / 1000) },
    decodePrivateKey(keys.privateKey),
  );
  return {
    // The engine under measurement: Debian's, or another one named here (docs/benchmarks-history.md compares 7.4 and 25.2 so).
    ...(process.env.SVC_ENGINE_PROGRAM_DIR ? { SVC_ENGINE_PROGRAM_DIR: process.env.SVC_ENGINE_PROGRAM_DIR } : {}),
    SVC_DATA_DIR: dataDir,
    SVC_DOCBUILDER_WORKERS: String(workers),
    SVC_DOCBUILDER_API_KEYS: BENCH_API_KEY,
    SVC_LOG_LEVEL: "error",
    SVC_LICENSE_PUBKEY: keys.publicKey,
    SVC_LICENSE_TOKEN: token,
    SVC_LICENSE_FILE: path.join(dataDir, "license.token"),
  };
}

export async function startBenchService(dataDir: string, workers: number): Promise<RunningService> {
  return startService(parseConfig(benchSettings(dataDir, workers)), memoryLogger("error"), { port: 0, hostname: "127.0.0.1" });
}

/**
 * The same service as its own process (`bun app/main.ts`), as it runs in production: the bench's
 * HTTP client then does not share the service's thread, and what is timed end to end is the
 * service's work alone.
 */
export async function startBenchServiceProcess(dataDir: string, workers: number, bunArgs: string[] = [], entry = path.join(import.meta.dir, "../app/main.ts")): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = Bun.spawn([process.execPath, ...bunArgs, entry], {
    env: { ...process.env, ...benchSettings(dataDir, workers), SVC_APP_LISTEN: `127.0.0.1:${port}`, SVC_DEV_MODE: "0" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  // A service that exits is not waited for the full minute.
  await until(async () => child.exitCode !== null || (await fetch(`${url}/v1/status`, { headers: { Authorization: `Bearer ${BENCH_API_KEY}` } }).then((r) => r.ok, () => false)), (done) => done, "the service answering or exited", 60_000, 100);
  if (child.exitCode !== null) throw new Error("the service did not start");
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await Promise.race([child.exited, Bun.sleep(10_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
