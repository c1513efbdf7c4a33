// Request validation with @hono/zod-validator: a body, query or path that does not match its
// schema (schemas/) becomes the spec's error with every problem as {path, message}, path a JSON
// Pointer. JSON bodies must say so in Content-Type and stay small.

import { zValidator } from "@hono/zod-validator";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z, ZodType } from "zod";
import { ServiceError, type ErrorCode } from "../errors";
import { zodErrors } from "../validation";
import type { AppEnv } from "./common";

type Target = "json" | "query" | "param";

export function validate<T extends ZodType>(target: Target, schema: T, code: ErrorCode = "bad_request"): MiddlewareHandler<AppEnv> {
  const mw = zValidator(target, schema, (result) => {
    if (result.success) return;
    const errors = zodErrors(result.error as unknown as Parameters<typeof zodErrors>[0]);
    const where = target === "json" ? "Nội dung yêu cầu" : target === "query" ? "Tham số truy vấn" : "Đường dẫn";
    throw new ServiceError(code, `${where} có ${errors.length} lỗi: ${errors.slice(0, 3).map((e) => `${e.path || "/"} ${e.message}`).join("; ")}.`, { errors });
  });
  return mw as unknown as MiddlewareHandler<AppEnv>;
}

/** What validate() accepted for this target, typed by its schema. */
export function validated<T extends ZodType>(c: Context<AppEnv>, target: Target, _schema: T): z.output<T> {
  return (c.req.valid as (t: string) => unknown)(target) as z.output<T>;
}

/**
 * A JSON body of at most maxBytes, sent as application/json (a form or a file here is a client
 * mistake). A larger body is `bad_request` with the original HTTP status, 413, and
 * `detail.limit_bytes` (spec "Gate and embedding codes": bad_request is 400 "or the original HTTP
 * status"; `file_too_large` is about the document, SVC_EMBED_MAX_FILE_MB, not a request body).
 * `hint` adds what the body should hold instead.
 */
export function jsonBody(opts: { maxBytes?: number; hint?: string } = {}): MiddlewareHandler<AppEnv>[] {
  const maxBytes = opts.maxBytes ?? 64 * 1024;
  return [
    async (c, next) => {
      const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
        throw new ServiceError("bad_request", "Nội dung yêu cầu phải là JSON với Content-Type: application/json.", { content_type: type || null, errors: [{ path: "", message: "Content-Type must be application/json" }] });
      }
      await next();
    },
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new ServiceError(
          "bad_request",
          `Nội dung yêu cầu vượt quá ${maxBytes} byte: hãy gửi JSON nhỏ hơn${opts.hint ? ` (${opts.hint})` : ""}.`,
          { limit_bytes: maxBytes, errors: [{ path: "", message: `body over ${maxBytes} bytes` }] },
          {},
          413,
        );
      },
    }),
  ];
}
