// An integrator's callback receiver, for tests: a real HTTP server on 127.0.0.1 that records every
// request, checks its signature against the secret it was given (on its own clock: a gate on a
// driven clock signs with that clock's time), and answers planned statuses in turn, then 200.
// The one receiver the callback tests share, so that each does not grow its own Bun.serve.

import { verifyCallback, type VerifyResult } from "../callbacks/verify";
import { until } from "./until";

export interface ReceivedCallback {
  method: string;
  /** The request's path and query. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  bytes: Uint8Array;
  raw: string;
  /** The body as JSON, or null when it is not JSON. */
  body: any;
  /** The signature checked with the receiver's secret ("no_secret" when it was given none). */
  check: VerifyResult;
  /** The status answered (0 while the answer is still being made). */
  status: number;
  at: number;
}

export interface CallbackReceiverOptions {
  /** The secret signatures are checked with; without one every check says "no_secret". */
  secret?: string;
  /** The receiver's clock, for the signature's time window. */
  now?: () => number;
  port?: number;
  /**
   * A test's own answer (a redirect, a large body, a slow answer…) instead of the planned status.
   * The request is already recorded when it is called.
   */
  respond?: (cb: ReceivedCallback) => Response | Promise<Response>;
}

export type CallbackReceiver = ReturnType<typeof startCallbackReceiver>;

/** Starts a receiver; `url` is its /callback address (any path reaches it). */
export function startCallbackReceiver(opts: CallbackReceiverOptions = {}) {
  const { secret = "", now = Date.now, port = 0, respond } = opts;
  const received: ReceivedCallback[] = [];
  /** Statuses answered in turn, one per request, then 200. */
  const plan: number[] = [];
  let held: Promise<void> | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(req) {
      const bytes = new Uint8Array(await req.arrayBuffer());
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
      const url = new URL(req.url);
      const raw = new TextDecoder().decode(bytes);
      const cb: ReceivedCallback = {
        method: req.method,
        path: url.pathname + url.search,
        headers,
        bytes,
        raw,
        body: parseJson(raw),
        check: verifyCallback({ secret, headers, rawBody: bytes, now: now() }),
        status: 0,
        at: Date.now(),
      };
      received.push(cb);
      if (respond) {
        const res = await respond(cb);
        cb.status = res.status;
        return res;
      }
      cb.status = plan.length ? plan.shift()! : 200;
      if (held) await held;
      return new Response(cb.status === 200 ? '{"error":0}' : "no", { status: cb.status });
    },
  });
  const describe = () => received.map((r) => `${r.headers["x-svc-event"] ?? r.path} v${r.body?.version} ${r.status}`).join(", ") || "nothing";
  return {
    url: `http://127.0.0.1:${server.port}/callback`,
    origin: `http://127.0.0.1:${server.port}`,
    port: server.port,
    received,
    plan,
    /** Holds every answer from now on until the returned function is called (a receiver that hangs). */
    hold(): () => void {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return () => {
        held = null;
        release();
      };
    },
    /** The first callback (already received or future) that matches. */
    async wait(pred: (c: ReceivedCallback) => boolean, timeoutMs = 20_000): Promise<ReceivedCallback> {
      // The last value a timeout reports is what had arrived by then.
      const seen = await until(() => ({ found: received.find(pred), received: describe() }), (v) => v.found !== undefined, "a matching callback", timeoutMs);
      return seen.found!;
    },
    /** Waits until at least n requests have arrived; answers them all. */
    async waitCount(n: number, timeoutMs = 20_000): Promise<ReceivedCallback[]> {
      await until(() => received.length, (k) => k >= n, `${n} callbacks received`, timeoutMs);
      return received;
    },
    stop: () => server.stop(true),
  };
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
