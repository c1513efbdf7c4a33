// The gate's WOPI host (internal: the proxy answers 404 from outside): /svc/wopi/files/{doc_id}
// for CheckFileInfo and overrides, /svc/wopi/files/{doc_id}/contents for GetFile and PutFile.
// The editing server sends the token in the query (access_token) and as a Bearer header; query
// strings of these paths are never logged (app/log.ts).

import { Hono, type Context } from "hono";
import type { EmbedGate } from "../embed/embed-gate";
import { ServiceError } from "../errors";
import { fileAnswer, route, type AppEnv } from "./common";

const token = (c: Context<AppEnv>): string | null =>
  c.req.query("access_token") || /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1] || null;

const flag = (c: Context<AppEnv>, name: string) => (c.req.header(`x-cool-wopi-${name}`) ?? c.req.header(`x-lool-wopi-${name}`) ?? "").toLowerCase() === "true";

export function wopiRoutes(embed: EmbedGate): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { wopi } = embed;
  app.use("*", async (_c, next) => {
    if (!embed.enabled) throw new ServiceError("not_found", "Tính năng nhúng đang tắt (SVC_EMBED_ENABLED).", { reason: "embed_disabled" });
    await next();
  });

  route(app, "/files/:docId", {
    GET: (c) => c.json(wopi.checkFileInfo(c.req.param("docId") ?? "", token(c)), 200, { "Cache-Control": "no-store" }),
    // PUT_RELATIVE, RENAME_FILE, LOCK and every other override: not in v1.
    POST: (c) => wopi.notImplemented(c.req.param("docId") ?? "", token(c), c.req.header("x-wopi-override") ?? null),
  });

  route(app, "/files/:docId/contents", {
    GET: (c) => {
      const f = wopi.getFile(c.req.param("docId") ?? "", token(c));
      return fileAnswer(f.path, { "Content-Type": "application/octet-stream", "Content-Length": String(f.version.size), "X-WOPI-ItemVersion": String(f.version.version) });
    },
    POST: async (c) => {
      const r = await wopi.putFile(
        c.req.param("docId") ?? "",
        token(c),
        {
          override: c.req.header("x-wopi-override") ?? null,
          timestamp: c.req.header("x-cool-wopi-timestamp") ?? c.req.header("x-lool-wopi-timestamp") ?? null,
          isModifiedByUser: flag(c, "ismodifiedbyuser"),
          isAutosave: flag(c, "isautosave"),
          isExitSave: flag(c, "isexitsave"),
        },
        c.req.raw.body,
        c.get("requestId"),
      );
      return c.json({ LastModifiedTime: r.lastModifiedTime }, 200, { "X-WOPI-ItemVersion": String(r.version) });
    },
  });
  return app;
}
