// Starts the real service (real worker processes, real HTTP on a free loopback port) for
// end-to-end tests, on a private data directory.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger, createLogger, type Logger } from "../log";
import { startService, type RunningService, type StartOptions } from "../server";
import { decodePrivateKey, generateKeyPair, signToken } from "../editions/license";
import { freePort } from "../../caddy/testing";
import { until } from "./until";

export const TEST_API_KEY = "svc_test_0123456789abcdef0123";
export const AUTH = { Authorization: `Bearer ${TEST_API_KEY}` };
export const FIXTURES = path.resolve(import.meta.dir, "../../fixtures");
export const CORPUS = path.resolve(import.meta.dir, "../../../shared/corpus");

/** A license key pair made for this test run; tokens below are signed with it. */
const LICENSE_KEYS = generateKeyPair();

/** Signs a license token with the run's key; fields override a valid enterprise token. */
export function signTestLicense(fields: Record<string, unknown> = {}): string {
  return signToken(
    {
      v: 1,
      prod: "svc-online",
      kind: "enterprise",
      conns: 5000,
      plan: "year",
      exp: "2099-12-31",
      upd: "2100-01-07",
      feat: ["api_full"],
      key: "OOSY-T3ST1-AAAAA-BBBBB-CCCCC",
      cust: "Test customer",
      iat: Math.floor(Date.now() / 1000),
      ...fields,
    },
    decodePrivateKey(LICENSE_KEYS.privateKey),
  );
}

/** Environment that runs the service as enterprise with a real, verified license token. */
export function enterpriseEnv(fields: Record<string, unknown> = {}): Record<string, string> {
  return { SVC_LICENSE_PUBKEY: LICENSE_KEYS.publicKey, SVC_LICENSE_TOKEN: signTestLicense(fields) };
}

export const LICENSE_PUBLIC_KEY = LICENSE_KEYS.publicKey;

export interface Harness extends RunningService {
  dataDir: string;
  logLines: string[];
  /** Stops the service; the data directory is removed unless kept (restart tests). */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}, opts: StartOptions & { dataDir?: string } = {}): Promise<Harness> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
  // The port is chosen before the configuration is read: the gate's own address is the default
  // alias group 1, the WOPISrc base of embedded documents, and the base of its public links.
  const port = opts.port || Number(env.SVC_APP_LISTEN?.split(":").pop()) || (await freePort());
  const config = parseConfig({
    SVC_APP_LISTEN: `127.0.0.1:${port}`,
    SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    SVC_DATA_DIR: dataDir,
    SVC_DOCBUILDER_WORKERS: "2",
    SVC_DOCBUILDER_API_KEYS: `test:${TEST_API_KEY}`,
    SVC_LOG_LEVEL: "debug",
    // Never the machine's own token file.
    SVC_LICENSE_FILE: path.join(dataDir, "license.token"),
    ...env,
  });
  // Keep the log in memory (tests assert on it); SVC_TEST_LOG=1 prints it too.
  const mem = memoryLogger("debug");
  const logger: Logger = process.env.SVC_TEST_LOG ? teeLogger(mem) : mem;
  const svc = await startService(config, logger, { hostname: "127.0.0.1", ...opts, port });
  return Object.assign(svc, {
    dataDir,
    logLines: mem.lines,
    async close(opts: { keepData?: boolean } = {}) {
      await svc.stop(2000);
      if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
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
  const read = async () => (await (await fetch(`${base}/v1/jobs/${id}`, { headers: AUTH })).json()) as Record<string, any>;
  return until(read, (job) => job.status === "done" || job.status === "failed", `job ${id} finished`, timeoutMs);
}
