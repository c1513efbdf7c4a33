// The one sender of signed server-to-caller callbacks (spec: Events), shared by the gate
// (document.saved / document.closed) and DocBuilder (job.done / job.failed).
//
// - Every attempt goes through safeFetch: SSRF rules on the target, the socket opened to the
//   checked address, redirects never followed (a 3xx is a failed attempt).
// - Every attempt is signed with its own X-SVC-Timestamp, the time it is sent. A body given as an
//   object is serialised once and every attempt sends the same bytes; a body given as a function
//   of the send time (document callbacks: their `timestamp` field is the send time, spec "Save
//   callback body") is serialised at each attempt with that attempt's time, the one it is signed
//   with. X-SVC-Delivery stays the same across the attempts of one delivery.
// - Schedule: an attempt at once, then one 10 s after the first attempt ended, then one 60 s
//   after the second ended (3 in total, spec "Retries"), whatever made an attempt fail, a target
//   refused by the SSRF rules included (each attempt checks the rules again).
// - send() never rejects and never throws: callers fire and forget (`void sender.send(...)`);
//   the returned promise (the final state) exists for tests and shutdown.
//
// Logs carry the redacted URL (origin + path), the event, the delivery id and the outcome;
// never the secret, the signature, the body or the query string.

import { randomUUID } from "node:crypto";
import { iso, systemClock, type Clock } from "../clock";
import type { Logger } from "../log";
import { FetchError, redactUrl, safeFetch, type Resolver, type SafeFetchOptions } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import { signPayload } from "./verify";

export { signPayload, verifyCallback } from "./verify";

export type CallbackKind = "document" | "job";
export type CallbackEvent = "document.saved" | "document.closed" | "job.done" | "job.failed";
export type DeliveryStateName = "pending" | "delivered" | "failed";

/**
 * Why the last attempt failed: "status" (a non-2xx, non-3xx answer), "redirect" (a 3xx, never
 * followed), "timeout", "connect", "tls", "dns", "too_large" (answer body over the limit),
 * "url_not_allowed" (SSRF rules; retried like the others), "shutdown" (sender closed before a retry),
 * "bad_body" (the body could not be serialised), "error" (anything unexpected).
 */
export type DeliveryError =
  | "status"
  | "redirect"
  | "timeout"
  | "connect"
  | "tls"
  | "dns"
  | "too_large"
  | "url_not_allowed"
  | "shutdown"
  | "bad_body"
  | "error";

export interface DeliveryState {
  /** The X-SVC-Delivery UUID, the same for every attempt. */
  delivery_id: string;
  state: DeliveryStateName;
  /** Attempts made so far (an attempt refused by the SSRF rules counts as one). */
  attempts: number;
  /** HTTP status of the last attempt; null before the first or when no answer came. */
  last_status: number | null;
  /** ISO 8601 UTC start of the last attempt; null before the first. */
  last_attempt_at: string | null;
  last_error: DeliveryError | null;
  /** ISO 8601 UTC time of the next attempt while one is scheduled; null otherwise. */
  next_attempt_at: string | null;
  /** Milliseconds the last attempt took, from its start to its answer or its failure; null before the first. */
  last_latency_ms?: number | null;
  /** The last attempt's failure in words (log-safe: no query string, no secret); null when it succeeded. */
  last_message?: string | null;
}

/** Where a delivery interrupted by a restart stands: it goes on with the same id and the attempts left. */
export interface ResumeFrom {
  delivery_id: string;
  attempts: number;
  last_status: number | null;
  last_attempt_at: string | null;
  last_error: DeliveryError | null;
  /** Unix ms of the attempt that was due; null or past: at once. */
  next_attempt_at: number | null;
}

export interface Delivery {
  kind: CallbackKind;
  event: CallbackEvent;
  /** Caller-supplied target; checked by the SSRF rules on every attempt. */
  url: string;
  /**
   * Serialised with JSON.stringify; those bytes are what is sent and signed. An object is
   * serialised once (every attempt sends the same bytes); a function is called at each attempt
   * with that attempt's send time (Unix ms, the time of its X-SVC-Timestamp).
   */
  body: object | ((sentAtMs: number) => object);
  /** HMAC key; empty means "no key": the X-SVC-Signature header is left out. */
  secret: string;
  requestId?: string;
  /**
   * Called synchronously inside send() with the initial pending state (attempts 0), then once
   * after every attempt (pending while retries remain, then delivered or failed). Receives a copy.
   * An exception thrown here is logged and otherwise ignored.
   */
  onState?: (state: DeliveryState) => void;
  /** A delivery persisted before a restart: same X-SVC-Delivery, only the attempts left. */
  resume?: ResumeFrom;
}

/** The fetch the sender uses; safeFetch by default (tests inject a spy or a stub). */
export type CallbackFetch = (url: string, opts: SafeFetchOptions & { toFile?: undefined }) => Promise<{ status: number }>;

/** Waits ms, or less if the signal aborts (it must then resolve, not reject). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface CallbackSenderOptions {
  /** From SVC_FETCH_ALLOW_HOSTS. */
  allow: AllowList;
  logger: Logger;
  clock?: Clock;
  /** Timer between attempts; tests inject one that records the delays and returns at once. */
  sleep?: Sleep;
  fetchImpl?: CallbackFetch;
  /** Per attempt: DNS, connect, answer and (discarded) answer body. Default 10 000 (spec: 10 s). */
  attemptTimeoutMs?: number;
  /** Waits between attempts, each counted from the end of the previous attempt. Default [10 000, 60 000]. */
  retryDelaysMs?: number[];
  /** Answer bodies are read and discarded up to this size. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Passed to safeFetch (tests; private CA deployments). */
  resolver?: Resolver;
  ca?: string;
  /** Told of each delivery's end (metrics): delivered, or failed after its last attempt. */
  onOutcome?: (kind: CallbackKind, outcome: "delivered" | "failed") => void;
}

export const CALLBACK_CONTENT_TYPE = "application/json; charset=utf-8";
export const USER_AGENTS: Record<CallbackKind, string> = {
  document: "SVC-Gate/1.0",
  job: "SVC-DocBuilder/1.0",
};
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000];
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

const timerSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

function serialise(body: object): Uint8Array {
  const json = JSON.stringify(body);
  if (typeof json !== "string") throw new TypeError("body is not JSON-serialisable");
  return new TextEncoder().encode(json);
}

const is2xx = (s: number) => s >= 200 && s <= 299;
const is3xx = (s: number) => s >= 300 && s <= 399;

type AttemptOutcome = { delivered: true } | { delivered: false; retry: boolean; message?: string };

export class CallbackSender {
  private readonly allow: AllowList;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly fetchImpl: CallbackFetch;
  private readonly timeoutMs: number;
  private readonly delays: number[];
  private readonly maxBytes: number;
  private readonly resolver?: Resolver;
  private readonly ca?: string;
  private readonly onOutcome?: (kind: CallbackKind, outcome: "delivered" | "failed") => void;
  private readonly closing = new AbortController();
  private readonly running = new Set<Promise<DeliveryState>>();

  constructor(opts: CallbackSenderOptions) {
    this.allow = opts.allow;
    this.logger = opts.logger;
    this.clock = opts.clock ?? systemClock;
    this.sleep = opts.sleep ?? timerSleep;
    this.fetchImpl = opts.fetchImpl ?? ((url, o) => safeFetch(url, o));
    this.timeoutMs = opts.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    this.delays = [...(opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
    this.maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.resolver = opts.resolver;
    this.ca = opts.ca;
    this.onOutcome = opts.onOutcome;
  }

  /** Deliveries not yet finished (waiting for an answer or for a retry). */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Delivers one callback with retries. Never rejects; resolves with the final state.
   * Callers on a request path must not await it.
   */
  send(delivery: Delivery): Promise<DeliveryState> {
    const p = this.deliver(delivery).catch((e) => {
      // Only a bug can land here; the contract is still "never rejects".
      this.logger.error("callback_internal_error", { error: e instanceof Error ? e : String(e) });
      return {
        delivery_id: "",
        state: "failed" as const,
        attempts: 0,
        last_status: null,
        last_attempt_at: null,
        last_error: "error" as const,
        next_attempt_at: null,
      };
    });
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
    return p;
  }

  /**
   * Stops scheduling retries: deliveries waiting for one end as failed ("shutdown"); an attempt
   * already on the wire finishes (bounded by the attempt timeout). Resolves when all are done.
   */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.running]);
  }

  private async deliver(d: Delivery): Promise<DeliveryState> {
    const r = d.resume;
    const st: DeliveryState = {
      delivery_id: r?.delivery_id ?? randomUUID(),
      state: "pending",
      attempts: r?.attempts ?? 0,
      last_status: r?.last_status ?? null,
      last_attempt_at: r?.last_attempt_at ?? null,
      last_error: r?.last_error ?? null,
      next_attempt_at: null,
    };
    const log = this.logger.child({
      kind: d.kind,
      callback_event: d.event,
      delivery_id: st.delivery_id,
      url: redactUrl(d.url),
      request_id: d.requestId,
    });
    const total = this.delays.length + 1;
    // A resumed delivery waits for the attempt that was due, then goes on with the schedule.
    const firstWait = r && st.attempts > 0 ? Math.max(0, (r.next_attempt_at ?? 0) - this.clock.now()) : 0;
    if (firstWait > 0) st.next_attempt_at = iso(this.clock.now() + firstWait);
    this.report(d, st, log);
    if (st.attempts >= total) return this.giveUp(d, st, log, "no attempt left");

    // A fixed body is serialised (and checked) once; one made per attempt is checked on the first.
    const fixed = typeof d.body === "function" ? null : d.body;
    let raw: Uint8Array | null = null;
    try {
      raw = serialise(fixed ?? (d.body as (t: number) => object)(this.clock.now()));
    } catch (e) {
      st.last_error = "bad_body";
      return this.giveUp(d, st, log, e instanceof Error ? e.message : String(e));
    }

    let message: string | undefined;
    const first = st.attempts;
    for (let i = first; i < total; i++) {
      const wait = i === first ? firstWait : this.delays[i - 1]!;
      if (wait > 0 && !(await this.wait(wait))) {
        st.last_error = "shutdown";
        message = "sender closed before the next attempt";
        break;
      }
      if (this.closing.signal.aborted) {
        st.last_error = "shutdown";
        message = "sender closed";
        break;
      }
      st.next_attempt_at = null;
      const outcome = await this.attempt(d, st, fixed ? raw : null);
      if (outcome.delivered) {
        st.state = "delivered";
        st.last_error = null;
        this.report(d, st, log);
        log.info("callback_delivered", { attempts: st.attempts, status: st.last_status });
        this.onOutcome?.(d.kind, "delivered");
        return { ...st };
      }
      message = outcome.message;
      if (!outcome.retry || i === total - 1) break;
      st.next_attempt_at = iso(this.clock.now() + this.delays[i]!);
      this.report(d, st, log);
      log.warn("callback_attempt_failed", {
        attempt: st.attempts,
        status: st.last_status,
        reason: st.last_error,
        error_message: message,
        retry_in_ms: this.delays[i],
      });
    }
    return this.giveUp(d, st, log, message);
  }

  private giveUp(d: Delivery, st: DeliveryState, log: Logger, message: string | undefined): DeliveryState {
    st.state = "failed";
    st.next_attempt_at = null;
    this.report(d, st, log);
    this.onOutcome?.(d.kind, "failed");
    log.error("callback_failed", {
      attempts: st.attempts,
      last_status: st.last_status,
      reason: st.last_error,
      error_message: message,
    });
    return { ...st };
  }

  /** One attempt; `fixed` is the body's bytes, or null to make them for this attempt's send time. */
  private async attempt(d: Delivery, st: DeliveryState, fixed: Uint8Array | null): Promise<AttemptOutcome> {
    const now = this.clock.now();
    const timestamp = Math.floor(now / 1000);
    st.attempts++;
    st.last_attempt_at = iso(now);
    st.last_status = null;
    st.last_message = null;
    const t0 = performance.now();
    const outcome = await this.attemptOnce(d, st, fixed, now, timestamp);
    st.last_latency_ms = Math.round(performance.now() - t0);
    st.last_message = outcome.delivered ? null : (outcome.message ?? null);
    return outcome;
  }

  private async attemptOnce(d: Delivery, st: DeliveryState, fixed: Uint8Array | null, now: number, timestamp: number): Promise<AttemptOutcome> {
    let raw: Uint8Array;
    try {
      raw = fixed ?? serialise((d.body as (t: number) => object)(now));
    } catch (e) {
      st.last_error = "bad_body";
      return { delivered: false, retry: false, message: e instanceof Error ? e.message : String(e) };
    }

    const headers: Record<string, string> = {
      "content-type": CALLBACK_CONTENT_TYPE,
      "x-svc-event": d.event,
      "x-svc-delivery": st.delivery_id,
      "x-svc-timestamp": String(timestamp),
    };
    if (d.secret !== "") headers["x-svc-signature"] = signPayload(d.secret, timestamp, raw);

    try {
      const res = await this.fetchImpl(d.url, {
        allow: this.allow,
        maxBytes: this.maxBytes,
        timeoutMs: this.timeoutMs,
        followRedirects: 0,
        requireOk: false,
        method: "POST",
        headers,
        body: raw,
        userAgent: USER_AGENTS[d.kind],
        resolver: this.resolver,
        ca: this.ca,
      });
      st.last_status = res.status;
      if (is2xx(res.status)) return { delivered: true };
      st.last_error = is3xx(res.status) ? "redirect" : "status";
      return {
        delivered: false,
        retry: true,
        message: is3xx(res.status) ? `answered ${res.status}; redirects are not followed` : `answered ${res.status}`,
      };
    } catch (e) {
      if (!(e instanceof FetchError)) {
        st.last_error = "error";
        return { delivered: false, retry: true, message: e instanceof Error ? e.message : String(e) };
      }
      if (e.kind === "url_not_allowed") {
        // Nothing was sent; still an attempt of the spec's schedule (3 in total): the next one
        // checks the rules again (a name may resolve elsewhere, the allow list may change).
        st.last_error = "url_not_allowed";
        return { delivered: false, retry: true, message: e.message };
      }
      if (e.kind === "too_large") {
        // The answer body is ignored by contract: a 2xx with an oversized body is still a success.
        const status = typeof e.detail.status === "number" ? e.detail.status : null;
        st.last_status = status;
        if (status !== null && is2xx(status)) return { delivered: true };
        st.last_error = "too_large";
        return { delivered: false, retry: true, message: e.message };
      }
      const reason = e.detail.reason;
      st.last_error = reason === "timeout" || reason === "connect" || reason === "tls" || reason === "dns" ? reason : "error";
      return { delivered: false, retry: true, message: e.message };
    }
  }

  /** true when the wait ran out, false when the sender was closed meanwhile. */
  private async wait(ms: number): Promise<boolean> {
    const signal = this.closing.signal;
    if (signal.aborted) return false;
    let onAbort!: () => void;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.sleep(ms, signal).catch(() => {}), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    return !signal.aborted;
  }

  private report(d: Delivery, st: DeliveryState, log: Logger) {
    if (!d.onState) return;
    try {
      d.onState({ ...st });
    } catch (e) {
      log.warn("callback_state_hook_failed", { error: e instanceof Error ? e : String(e) });
    }
  }
}
