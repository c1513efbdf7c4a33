// Starts the real service (real worker processes, real HTTP on a free loopback port) for
// end-to-end tests, on a private data directory.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger, createLogger, type Logger } from "../log";
import { startService, type RunningService, type StartOptions } from "../server";
import type { EntitlementSource } from "../editions/limits";

export const TEST_API_KEY = "svc_test_0123456789abcdef0123";
export const AUTH = { Authorization: `Bearer ${TEST_API_KEY}` };
export const FIXTURES = path.resolve(import.meta.dir, "../../fixtures");
export const CORPUS = path.resolve(import.meta.dir, "../../../shared/corpus");

/**
 * An enterprise entitlement for suites that send more requests than community allows. It stands
 * for a verified license token; the licensing tests prove the token → entitlement step itself.
 */
export const ENTERPRISE: EntitlementSource = { current: () => ({ edition: "enterprise", features: ["api_full"], conns: 5000 }) };

export interface Harness extends RunningService {
  dataDir: string;
  logLines: string[];
  close(): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}, opts: StartOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
  const config = parseConfig({
    SVC_DATA_DIR: dataDir,
    SVC_DOCBUILDER_WORKERS: "2",
    SVC_DOCBUILDER_API_KEYS: `test:${TEST_API_KEY}`,
    SVC_LOG_LEVEL: "debug",
    ...env,
  });
  // Keep the log in memory (tests assert on it); SVC_TEST_LOG=1 prints it too.
  const mem = memoryLogger("debug");
  const logger: Logger = process.env.SVC_TEST_LOG ? teeLogger(mem) : mem;
  const svc = await startService(config, logger, { port: 0, hostname: "127.0.0.1", ...opts });
  return Object.assign(svc, {
    dataDir,
    logLines: mem.lines,
    async close() {
      await svc.stop(2000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

function teeLogger(mem: ReturnType<typeof memoryLogger>): Logger {
  const out = createLogger("debug", {}, (line) => {
    mem.lines.push(line);
    process.stdout.write(line + "\n");
  });
  return out;
}

/** A multipart body with one file part and text fields. */
export function form(file: { path?: string; bytes?: Uint8Array; name: string } | null, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file) {
    const blob = file.bytes ? new Blob([file.bytes as Uint8Array<ArrayBuffer>]) : Bun.file(file.path!);
    fd.append("file", blob, file.name);
  }
  return fd;
}

export async function sha256(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(bytes as Uint8Array).digest("hex");
}

/** Polls a job until it leaves queued/running. */
export async function waitForJob(base: string, id: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const job = (await (await fetch(`${base}/v1/jobs/${id}`, { headers: AUTH })).json()) as Record<string, any>;
    if (job.status === "done" || job.status === "failed") return job;
    await Bun.sleep(100);
  }
  throw new Error(`job ${id} did not finish within ${timeoutMs} ms`);
}
