// The /svc route group (gate). Only the parts that exist so far are mounted here.

import { Hono } from "hono";
import { gateLimits, gateStatus, type GateStatusDeps } from "../gate/status";
import { route, type AppEnv } from "./common";

export function svcRoutes(deps: GateStatusDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Liveness only: it never depends on the editing server or the engine.
  route(app, "/healthz", { GET: (c) => c.json({ ok: true }) });
  route(app, "/status", { GET: (c) => c.json(gateStatus(deps)) });
  route(app, "/limits", { GET: (c) => c.json(gateLimits(deps)) });
  return app;
}
