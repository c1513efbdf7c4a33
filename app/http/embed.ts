// The embed API under /svc/embed/ (spec "Gate: public endpoints"): sessions, their state, mode and
// close, and signed downloads, with the spec's CORS rules. Each handler validates, calls one
// domain function, answers.

import { Hono, type MiddlewareHandler } from "hono";
import { EmbedDownloadQuery, EmbedModeRequest, EmbedSessionRequest } from "../../schemas/embed";
import type { EmbedGate } from "../embed/embed-gate";
import { ServiceError } from "../errors";
import { REQUEST_ID_HEADER, contentDisposition, fileAnswer, route, type AppEnv } from "./common";
import { jsonBody, validate, validated } from "./validate";

const PREFLIGHT = {
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Authorization",
  "Access-Control-Max-Age": "600",
};

export function embedRoutes(embed: EmbedGate): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { sessions, links } = embed;

  // Embedding switched off, then the Origin rule (listed or `*`; none: a server, accepted), then
  // the preflight; every answer to a listed origin carries it back.
  app.use("*", async (c, next) => {
    if (!embed.enabled) throw new ServiceError("not_found", "Tính năng nhúng đang tắt (SVC_EMBED_ENABLED).", { reason: "embed_disabled" });
    const origin = c.req.header("origin") ?? null;
    if (!embed.originAllowed(origin)) {
      throw new ServiceError("origin_not_allowed", `Origin ${origin} không nằm trong SVC_EMBED_ALLOWED_ORIGINS: quản trị viên cần thêm nó vào danh sách.`, { origin });
    }
    if (c.req.method === "OPTIONS") {
      return c.body(null, 204, { ...PREFLIGHT, ...(origin ? { "Access-Control-Allow-Origin": origin } : {}), Vary: "Origin" });
    }
    await next();
    if (origin) {
      c.res.headers.set("Access-Control-Allow-Origin", origin);
      c.res.headers.set("Access-Control-Expose-Headers", `${REQUEST_ID_HEADER}, Content-Disposition`);
    }
    c.res.headers.append("Vary", "Origin");
  });

  const sessionAuth =
    (allowClosed: boolean): MiddlewareHandler<AppEnv> =>
    async (c, next) => {
      c.set("embedSession", sessions.authorise(c.req.param("id") ?? "", c.req.header("authorization"), { allowClosed }));
      await next();
    };

  route(app, "/session", {
    POST: [
      ...jsonBody({ hint: "cấu hình nhúng chỉ cần vài kB, tài liệu được tải từ document.url chứ không gửi kèm" }),
      validate("json", EmbedSessionRequest, "invalid_config"),
      async (c) => {
        const body = validated(c, "json", EmbedSessionRequest);
        const res = await sessions.create({ origin: c.req.header("origin") ?? null, body, requestId: c.get("requestId") });
        return c.json(res, 201, { "Cache-Control": "no-store" });
      },
    ],
  });

  route(app, "/session/:id", {
    GET: [sessionAuth(true), (c) => c.json(sessions.state(c.get("embedSession")!.session), 200, { "Cache-Control": "no-store" })],
    DELETE: [
      sessionAuth(true),
      (c) => {
        sessions.close(c.get("embedSession")!.session, c.get("requestId"));
        return c.body(null, 204);
      },
    ],
  });

  route(app, "/session/:id/mode", {
    POST: [
      sessionAuth(false),
      ...jsonBody(),
      validate("json", EmbedModeRequest),
      async (c) => {
        const { session, token } = c.get("embedSession")!;
        const { mode } = validated(c, "json", EmbedModeRequest);
        return c.json(await sessions.switchMode(session, token, mode, c.get("requestId")), 200, { "Cache-Control": "no-store" });
      },
    ],
  });

  route(app, "/files/:docId", {
    GET: [
      validate("query", EmbedDownloadQuery),
      (c) => {
        const q = validated(c, "query", EmbedDownloadQuery);
        const d = links.open(c.req.param("docId") ?? "", q);
        return fileAnswer(d.path, {
          "Content-Type": d.contentType,
          "Content-Disposition": contentDisposition(d.filename),
          "Content-Length": String(d.version.size),
          ETag: `"${d.version.sha256}"`,
          "Cache-Control": "private, no-cache",
          "X-Content-Type-Options": "nosniff",
          "X-SVC-Version": String(d.version.version),
        });
      },
    ],
  });

  return app;
}
