// A DocBuilder request's time limits (spec "DocBuilder limits": sync_timeout_seconds,
// job_timeout_seconds; 504 `timeout`). Its running time counts from when a worker takes it, never
// from its arrival: a small file queued behind a slow one (community runs one job at a time) was
// failed with 504 after 60 s because the one ahead had used those 60 s. Its waiting is bounded
// apart, and only for a synchronous request, by what its client can still receive: the proxy
// answers 504 itself after its /v1 read timeout, so a request that could not run its full time and
// be answered within it fails, still queued, with `timeout` and detail.reason "not_started".

import type { RunOptions } from "./pool-options";

/** The proxy's read timeout for /v1 (Caddyfile, spec "Proxy": 660 s). */
export const PROXY_READ_TIMEOUT_MS = 660_000;
/** What a synchronous answer needs after its run: output checks, hashing, the response's start. */
export const ANSWER_MARGIN_MS = 30_000;

export interface TimeLimits {
  sync_timeout_seconds: number;
  job_timeout_seconds: number;
}

/**
 * The pool's options for a job's first request: a synchronous job runs for at most
 * sync_timeout_seconds (and job_timeout_seconds), an asynchronous one for job_timeout_seconds,
 * each from its start; a synchronous one must start by `arrivedAt` + what the proxy leaves.
 */
export function requestTimeLimits(limits: TimeLimits, async: boolean, arrivedAt: number): Pick<RunOptions, "runTimeoutMs" | "startBy"> {
  const jobMs = limits.job_timeout_seconds * 1000;
  if (async) return { runTimeoutMs: jobMs };
  const runTimeoutMs = Math.min(jobMs, limits.sync_timeout_seconds * 1000);
  return { runTimeoutMs, startBy: arrivedAt + Math.max(0, PROXY_READ_TIMEOUT_MS - runTimeoutMs - ANSWER_MARGIN_MS) };
}
