// The /svc route group (gate). Only the parts that exist so far are mounted here.

import { Hono } from "hono";
import { route, type AppEnv } from "./common";

export function svcRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Liveness only: it never depends on the editing server or the engine.
  route(app, "/healthz", { GET: (c) => c.json({ ok: true }) });
  return app;
}
