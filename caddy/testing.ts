// Test and benchmark helpers: real Caddy with the repository's Caddyfile on a free loopback port,
// a recording upstream (what reached the editing server: raw URI, headers, body; WebSocket echo),
// and a switchable front for the gate (pass through, 500, slow, refuse).

import { createServer } from "node:net";
import path from "node:path";

export const CADDYFILE = path.resolve(import.meta.dir, "../Caddyfile");

/**
 * A loopback port nothing listens on, for a server started a moment later (a configuration names
 * it first). Drawn below the kernel's ephemeral range (32768–60999 on Linux): a port the kernel
 * handed out (port 0) could be given to an outgoing connection of a test running beside it before
 * our server listened on it (EADDRINUSE, seen once in a suite run); a port below that range is
 * never given to a client socket, and the bind here checks nothing listens on it now.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_700);
    if (await canListen(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

export interface RunningCaddy {
  url: string;
  port: number;
  /** Caddy's process id. */
  pid: number;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `caddy run` with the repository Caddyfile (or a variant of it); resolves once it answers. */
export async function startCaddy(env: {
  app: string;
  edsrv: string;
  caddyfile?: string;
  port?: number;
  /** DocBuilder instances, space-separated (default: the gate's own, `app`). */
  docbuilders?: string;
  /** Where a job's or a file's owner is, with the Caddyfile's {re.owner.*} placeholders (default `app`). */
  docbuilderOwner?: string;
  /** SVC_LOG_LEVEL as the launcher passes it (unset: the Caddyfile's default, info). */
  logLevel?: string;
}): Promise<RunningCaddy> {
  const port = env.port ?? (await freePort());
  const proc = Bun.spawn(["caddy", "run", "--config", env.caddyfile ?? CADDYFILE, "--adapter", "caddyfile"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      XDG_DATA_HOME: "/tmp/svc-caddy-test-data",
      XDG_CONFIG_HOME: "/tmp/svc-caddy-test-config",
      SVC_PROXY_PORT: String(port),
      SVC_PROXY_BIND: "127.0.0.1",
      SVC_APP_UPSTREAM: env.app,
      SVC_EDSRV_UPSTREAM: env.edsrv,
      SVC_PROXY_DOCBUILDER_UPSTREAMS: env.docbuilders ?? env.app,
      SVC_PROXY_DOCBUILDER_OWNER: env.docbuilderOwner ?? env.app,
      ...(env.logLevel ? { SVC_LOG_LEVEL: env.logLevel } : {}),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of s) out += dec.decode(chunk);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      await fetch(`${url}/nowhere`);
      break;
    } catch {
      if (proc.exitCode !== null || Date.now() > until) throw new Error(`caddy did not start:\n${out}`);
      await Bun.sleep(50);
    }
  }
  return {
    url,
    port,
    pid: proc.pid,
    output: () => out,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export interface Recorded {
  method: string;
  /** The request target exactly as received (path + query, not decoded). */
  rawUri: string;
  headers: Record<string, string>;
  body: string;
  upgraded: boolean;
}

/** An upstream that records every request (keep: false, for benchmarks, records none); WebSocket upgrades are accepted and echo frames. */
export function startRecorder(opts: { keep?: boolean } = {}) {
  const seen: Recorded[] = [];
  const server = Bun.serve<{ rec: Recorded }>({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv) {
      const u = new URL(req.url);
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
      const rec: Recorded = { method: req.method, rawUri: u.pathname + u.search, headers, body: "", upgraded: false };
      if (opts.keep !== false) seen.push(rec);
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
        rec.upgraded = true;
        if (srv.upgrade(req, { data: { rec } })) return undefined;
      }
      rec.body = await req.text();
      return new Response(`upstream ${req.method} ${u.pathname}`, { headers: { "X-Upstream": "recorder" } });
    },
    websocket: {
      message(ws, msg) {
        ws.send(msg);
      },
    },
  });
  return {
    addr: `127.0.0.1:${server.port}`,
    seen,
    last: () => seen[seen.length - 1],
    clear: () => void (seen.length = 0),
    stop: () => server.stop(true),
  };
}

export type GateMode = "pass" | "500" | "slow" | "hang";

/** A front for the gate: passes requests to `target`, or answers 500, or waits past Caddy's 5 s. */
export function startGateFront(target: string) {
  const state = { mode: "pass" as GateMode, checks: [] as Record<string, string>[], all: [] as Record<string, string>[] };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const seen: Record<string, string> = { path: u.pathname };
      req.headers.forEach((v, k) => (seen[k.toLowerCase()] = v));
      state.all.push(seen);
      if (u.pathname === "/svc/auth") {
        const h: Record<string, string> = { method: req.method, uri: u.pathname + u.search, body: await req.text() };
        req.headers.forEach((v, k) => (h[k.toLowerCase()] = v));
        state.checks.push(h);
        if (state.mode === "500") return new Response("boom", { status: 500 });
        if (state.mode === "slow") {
          await Bun.sleep(6000);
          return new Response("late", { status: 403 });
        }
      }
      const headers = new Headers(req.headers);
      headers.delete("host");
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const res = await fetch(`${target}${u.pathname}${u.search}`, { method: req.method, headers, body, redirect: "manual" });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
  return { addr: `127.0.0.1:${server.port}`, state, stop: () => server.stop(true) };
}

/** Opens a WebSocket; resolves with "open" and the first echoed frame, or "refused" with the status line. */
export function tryWebSocket(url: string, origin?: string): Promise<{ opened: boolean; echo?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, (origin ? { headers: { Origin: origin } } : {}) as unknown as string[]);
    let opened = false;
    ws.onopen = () => {
      opened = true;
      ws.send("ping-frame");
    };
    ws.onmessage = (ev) => {
      resolve({ opened, echo: String(ev.data) });
      ws.close();
    };
    ws.onerror = () => resolve({ opened });
    ws.onclose = () => resolve({ opened });
  });
}

/** A raw HTTP/1.1 exchange (for upgrade requests whose status line matters). */
export async function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          s.write(request);
        },
        data(s, chunk) {
          data += new TextDecoder().decode(chunk);
          const end = data.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = data.slice(0, end);
          const len = /content-length:\s*(\d+)/i.exec(head);
          if (len && Buffer.byteLength(data.slice(end + 4)) < Number(len[1])) return;
          if (/transfer-encoding:\s*chunked/i.test(head) && !data.endsWith("0\r\n\r\n")) return;
          s.end();
          resolve(data);
        },
        close() {
          resolve(data);
        },
        error(_s, e) {
          reject(e);
        },
      },
    }).catch(reject);
  });
}
