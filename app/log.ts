// One JSON line per event on stdout. Callers pass structured fields; this module never receives
// document content, and it scrubs what must never be written: secrets by field name, and the
// query string of /wopi/ paths (the editing server puts access tokens there).
import { writeSync } from "node:fs";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const SECRET_FIELD = /^(authorization|password|token|access_token|api_key|apikey|key|secret|jwt|cookie|signature|sig)$/i;

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /** A logger that adds these fields (such as request_id) to every line. */
  child(fields: Record<string, unknown>): Logger;
}

/**
 * Health probes: the proxy's active health check (GET /v1/status every 2 s, the Caddyfile), the
 * container's HEALTHCHECK and Kubernetes' probes (deploy/), the launcher's readiness polls. They
 * are no event: their request line is debug while they answer (a probe that gets a 5xx is info
 * like any request). The Caddyfile's @probe matcher lists the public ones.
 */
export const HEALTH_PROBE_PATHS: readonly string[] = ["/v1/status", "/svc/healthz", "/svc/status", "/ed/ready"];

/**
 * Readiness probes, whose 503 is their answer ("not ready yet"), not a failure: the launcher asks
 * the editing server every 200 ms while its kits warm, which wrote ten info lines on every
 * `npm run start`. What keeps it from being ready is logged by the editing server itself.
 */
const READINESS_PROBE_PATHS: readonly string[] = ["/ed/ready"];

/** The level of a request's access line: debug for a health probe that answered below 500 (or a readiness probe's 503), info otherwise. */
export function requestLogLevel(method: string, pathname: string, status: number): "debug" | "info" {
  if (method !== "GET" && method !== "HEAD") return "info";
  if (status < 500) return HEALTH_PROBE_PATHS.includes(pathname) ? "debug" : "info";
  return status === 503 && READINESS_PROBE_PATHS.includes(pathname) ? "debug" : "info";
}

/** Strips the query of /wopi/ paths, and every query parameter whose name looks secret elsewhere. */
export function redactPath(path: string): string {
  const q = path.indexOf("?");
  if (q < 0) return path;
  const base = path.slice(0, q);
  if (base.includes("/wopi/")) return base;
  const params = new URLSearchParams(path.slice(q + 1));
  for (const name of [...params.keys()]) if (SECRET_FIELD.test(name)) params.set(name, "[redacted]");
  const rest = params.toString();
  return rest ? `${base}?${rest}` : base;
}

function scrub(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (SECRET_FIELD.test(k)) out[k] = "[redacted]";
    else if (k === "path" && typeof v === "string") out[k] = redactPath(v);
    else if (v instanceof Error) out[k] = { name: v.name, message: v.message };
    else out[k] = v;
  }
  return out;
}

export function createLogger(
  level: LogLevel,
  base: Record<string, unknown> = {},
  // Synchronous: a line written is out of the process, even if it exits right after (a stop's last
  // lines were lost from a pipe a busy reader had not emptied when process.exit came).
  write: (line: string) => void = (line) => writeLine(line),
): Logger {
  const min = ORDER[level];
  const emit = (lvl: LogLevel, event: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, event, ...scrub({ ...base, ...fields }) }));
  };
  return {
    debug: (e, f) => emit("debug", e, f),
    info: (e, f) => emit("info", e, f),
    warn: (e, f) => emit("warn", e, f),
    error: (e, f) => emit("error", e, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/** Collects lines in memory: for tests that assert what was (and was not) logged. */
export function memoryLogger(level: LogLevel = "debug"): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(level, {}, (l) => lines.push(l));
  return Object.assign(logger, { lines });
}

function writeLine(line: string): void {
  try {
    writeSync(1, line + "\n");
  } catch {
    process.stdout.write(line + "\n"); // stdout not writable synchronously (EAGAIN): queue it
  }
}

/** Kept for the exits: with synchronous log lines there is nothing left to wait for but other writes to stdout. */
export async function flushStdout(maxMs = 2000): Promise<void> {
  await Promise.race([new Promise<void>((resolve) => process.stdout.write("", () => resolve())), Bun.sleep(maxMs)]);
}
