// Test helpers for the embed gate. Outside parties are real HTTP servers on 127.0.0.1: the
// integrator's file server (document.url) and its callback receiver (editor.callbackUrl). The
// gate and the editing server are the real ones, started on known loopback ports so that the
// editing server's alias group 1 is the gate's own address.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sign } from "hono/jwt";
import { freePort } from "../../caddy/testing";
import { parseConfig } from "../config";
import { createEdsrv, type Edsrv } from "../edsrv/server";
import { memoryLogger } from "../log";
import type { StartOptions } from "../server";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { startTestService, type Harness } from "../testing/harness";

export const EMBED_SECRET = "embed-secret-0123456789abcdef-0123456789";
export const CALLBACK_SECRET = "callback-secret-for-tests";
export type { ReceivedCallback } from "../testing/callback-receiver";

export const EDSRV_ADMIN_PASSWORD = "embed-test-admin";

export interface SourceFile {
  bytes: Uint8Array;
  status?: number;
  /** Answer a redirect to this URL instead. */
  redirect?: string;
}

/** The integrator's file server: files by path, every request counted. */
export function startSource() {
  const files = new Map<string, SourceFile>();
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const p = new URL(req.url).pathname;
      hits.push(p);
      const f = files.get(p);
      if (!f) return new Response("not found", { status: 404 });
      if (f.redirect) return new Response(null, { status: 302, headers: { Location: f.redirect } });
      return new Response(f.bytes as unknown as BodyInit, { status: f.status ?? 200 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    files,
    hits,
    add(p: string, bytes: Uint8Array, o: Omit<SourceFile, "bytes"> = {}): string {
      files.set(p, { bytes, ...o });
      return origin + p;
    },
    stop: () => server.stop(true),
  };
}

/**
 * The integrator's callback receiver (app/testing/callback-receiver.ts) with the embed tests'
 * secret: verifies every signature against `now`, answers planned statuses, then 200.
 */
export function startReceiver(secret = CALLBACK_SECRET, now: () => number = Date.now, port = 0): CallbackReceiver {
  return startCallbackReceiver({ secret, now, port });
}

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

/** An embed config token: HS256 by default; `alg` none/HS384/HS512 for the attacks. */
export async function embedToken(
  payload: Record<string, unknown>,
  opts: { secret?: string; alg?: "HS256" | "HS384" | "HS512" | "none"; expIn?: number | null; /** The signer's clock (ms), for a gate on a driven clock. */ now?: number } = {},
): Promise<string> {
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  const body: Record<string, unknown> = { ...payload, iat: now };
  if (opts.expIn !== null) body.exp = now + (opts.expIn ?? 600);
  const alg = opts.alg ?? "HS256";
  if (alg === "none") return `${b64url({ alg: "none", typ: "JWT" })}.${b64url(body)}.`;
  return sign(body, opts.secret ?? EMBED_SECRET, alg);
}

export interface EmbedStack {
  gate: Harness;
  ed: Edsrv;
  gateUrl: string;
  dataDir: string;
  /** POST /svc/embed/session with a JSON body. */
  create(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; res: Response }>;
  /** Restarts the gate on the same port and data directory (the editing server keeps running). */
  restartGate(): Promise<void>;
  close(): Promise<void>;
}

export interface EmbedStackOptions {
  env?: Record<string, string>;
  gate?: StartOptions;
  idleKits?: number;
  /** Editing-server save retry delay (ms). */
  saveRetryMs?: number;
  /** The gate's data directory (default: a new temporary one). */
  dataDir?: string;
}

/** The real editing server and the real gate, each knowing the other's address. */
export async function startEmbedStack(o: EmbedStackOptions = {}): Promise<EmbedStack> {
  const [gatePort, edPort] = [await freePort(), await freePort()];
  const gateUrl = `http://127.0.0.1:${gatePort}`;
  const edDir = mkdtempSync(path.join(os.tmpdir(), "svc-embed-ed-"));
  const dataDir = o.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "svc-embed-gate-"));
  const env = {
    SVC_DOCBUILDER_WORKERS: "1",
    SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
    SVC_EDSRV_URL: `http://127.0.0.1:${edPort}`,
    SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD,
    SVC_EMBED_JWT_SECRET: EMBED_SECRET,
    SVC_EMBED_CALLBACK_SECRET: CALLBACK_SECRET,
    SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
    ...o.env,
  };
  const gateOpts: StartOptions & { dataDir: string } = { sampleIntervalMs: 200, ...o.gate, dataDir };
  const [ed, first] = await Promise.all([
    createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: edDir, SVC_ONLINE_ALIASGROUP1: gateUrl, SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: edPort },
      idleKits: o.idleKits ?? 0,
      autosaveSeconds: 0,
      saveRetryMs: o.saveRetryMs ?? 200,
    }),
    startTestService(env, gateOpts),
  ]);
  const stack: EmbedStack = {
    gate: first,
    ed,
    gateUrl,
    dataDir,
    async create(body, headers = {}) {
      const res = await fetch(`${gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, res };
    },
    async restartGate() {
      await stack.gate.close({ keepData: true });
      stack.gate = await startTestService(env, gateOpts);
    },
    async close() {
      await stack.gate.close();
      await ed.close();
      rmSync(edDir, { recursive: true, force: true });
    },
  };
  return stack;
}

export { until } from "../testing/until";
