// HTTP plumbing shared by /svc and /v1: request ids, the access log line, the spec's error body,
// unknown paths and wrong methods.

import type { Context, Hono, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { ServiceError, errorBody, isServiceError } from "../errors";
import { isClientGone } from "../request-body";
import { DiskError, diskProblem, diskServiceError } from "../disk-errors";
import { newRequestId } from "../ids";
import { requestLogLevel, type Logger } from "../log";
import type { SessionRow } from "../embed/store";
import type { Metrics } from "../metrics";

export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    caller?: string;
    /** DocBuilder's queue for the caller: its kind and name ("api_key:…", "jwt:…"), never the credential. */
    callerQueue?: string;
    /** The embed session an operation's Bearer access_token opened (app/http/embed.ts). */
    embedSession?: { session: SessionRow; token: string };
  };
};

export const REQUEST_ID_HEADER = "X-SVC-Request-Id";

export function requestContext(logger: Logger, metrics?: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = newRequestId();
    const log = logger.child({ request_id: requestId });
    c.set("requestId", requestId);
    c.set("log", log);
    const started = performance.now();
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
    // Counted by the route's pattern, never the raw path (ids and tokens stay out of the series).
    const route = routePath(c);
    metrics?.request(route && route !== "*" && route !== "/*" ? route : "unmatched", c.req.method, c.res.status, (performance.now() - started) / 1000);
    const url = new URL(c.req.url);
    log[requestLogLevel(c.req.method, url.pathname, c.res.status)]("http_request", {
      method: c.req.method,
      path: url.pathname + url.search,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      caller: c.get("caller"),
    });
  };
}

export function errorResponse(c: Context<AppEnv>, err: ServiceError): Response {
  const res = c.json(errorBody(err, c.get("requestId")), err.status as 400);
  for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
  return res;
}

export function onError(err: Error, c: Context<AppEnv>): Response {
  if (isServiceError(err)) {
    if (err.detail.reason === "disk_full" || err.detail.reason === "disk_read_only") c.get("log")?.error("data_directory_unwritable", { reason: err.detail.reason });
    return errorResponse(c, err);
  }
  // The data directory is full or read-only: named for what it is, and the operator told (error level).
  const disk = err instanceof DiskError ? err.problem : diskProblem(err);
  if (disk) {
    c.get("log")?.error("data_directory_unwritable", { reason: disk, code: (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code ?? null });
    return errorResponse(c, diskServiceError(disk));
  }
  // The client closed the connection mid-body: its request ends here, nobody reads the answer.
  if (isClientGone(err)) {
    c.get("log")?.info("request_aborted", { reason: "client_closed_mid_body" });
    return errorResponse(c, new ServiceError("bad_request", "Kết nối bị đóng trước khi gửi xong thân yêu cầu: hãy gửi lại toàn bộ yêu cầu.", { reason: "body_incomplete", errors: [{ path: "", message: "body incomplete" }] }));
  }
  // Hono's own refusals (malformed JSON in a validated body): the client's mistake, not ours.
  if (err instanceof HTTPException && err.status < 500) {
    return errorResponse(c, new ServiceError("bad_request", err.status === 400 ? "Nội dung JSON không hợp lệ: hãy kiểm tra cú pháp." : "Yêu cầu không hợp lệ.", { errors: [{ path: "", message: err.status === 400 ? "malformed JSON" : err.message || "invalid request" }] }, {}, err.status));
  }
  c.get("log")?.error("unhandled_error", { error: { name: err.name, message: err.message }, stack: err.stack?.split("\n").slice(0, 6).join(" | ") });
  return errorResponse(c, new ServiceError("internal"));
}

export function notFound(c: Context<AppEnv>): Response {
  return errorResponse(c, new ServiceError("not_found", "Đường dẫn không tồn tại.", { path: new URL(c.req.url).pathname }));
}

type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;
/** A handler, or middleware (authentication, validation) followed by the handler. */
type Chain = Handler | [...MiddlewareHandler<AppEnv>[], Handler];

/**
 * Registers the handlers of one path and answers every other method with 405 and `detail.method`,
 * so a wrong method is told apart from an unknown path.
 */
export function route(app: Hono<AppEnv>, path: string, handlers: Partial<Record<"GET" | "POST" | "DELETE" | "PUT", Chain>>) {
  const allowed = Object.keys(handlers);
  for (const [method, chain] of Object.entries(handlers)) {
    const list = (Array.isArray(chain) ? chain : [chain]) as MiddlewareHandler<AppEnv>[];
    app.on(method, path, ...(list as [MiddlewareHandler<AppEnv>]));
  }
  app.all(path, (c) => {
    const err = new ServiceError(
      "bad_request",
      `Phương thức ${c.req.method} không được phép cho đường dẫn này: hãy dùng ${allowed.join(" hoặc ")}.`,
      { method: c.req.method, allowed },
      { Allow: allowed.join(", ") },
      405,
    );
    return errorResponse(c, err);
  });
}

/**
 * A stored file as an answer's body. Bun 1.4 writes an answer made after an `await` (every answer
 * here: the middleware awaits) without corking its socket, and for a file body it sent the head in
 * pieces, its own Date header alone in three (seven sends for one PDF; oven-sh/bun#41341). Given
 * the date, it leaves the head in one send: three sends per answer, less CPU on both ends.
 */
export function fileAnswer(file: string, headers: Record<string, string>, status = 200): Response {
  return new Response(Bun.file(file), { status, headers: { ...headers, Date: new Date().toUTCString() } });
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  // Accents dropped (Báo cáo → Bao cao), anything else outside printable ASCII replaced.
  const ascii = filename.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
