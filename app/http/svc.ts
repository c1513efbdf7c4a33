// The /svc route group (gate): liveness, status, limits, the proxy's admission check, the embed
// API and the gate's WOPI host.

import { Hono, type Context } from "hono";
import { ServiceError } from "../errors";
import type { Admission } from "../gate/admission";
import { LIMIT_PAGE_PREFIX, limitPageAnswer, limitPageLocation, postedLimitPage } from "../gate/limit-page";
import { gateLimits, gateStatus, type GateStatusDeps } from "../gate/status";
import type { EmbedGate } from "../embed/embed-gate";
import { errorResponse, route, type AppEnv } from "./common";
import { embedRoutes } from "./embed";
import { demoRoutes, type DemoDeps } from "./demo";
import { apiDeclarations, apiScript, type ServedScript } from "../embed/api-bundle";
import { wopiRoutes } from "./wopi";

export interface SvcDeps extends GateStatusDeps {
  /** Connection admission behind /svc/auth; absent: every editing request is admitted. */
  admission?: Admission;
  /** The embed gate (sessions, WOPI host, downloads); absent in tests of other parts. */
  embed?: EmbedGate;
  /** Development pages (SVC_DEV_MODE=1 only). */
  demo?: Omit<DemoDeps, "now">;
}

/** How long `GET /svc/healthz?edsrv=fresh` waits for its sample of the editing server. */
export const FRESH_SAMPLE_WAIT_MS = 3000;

export function svcRoutes(deps: SvcDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Liveness of the gate: 200 whenever it answers. The body also says how the editing server was
  // at its last sample (ok, down, auth_failed), so a restart of it shows here while it lasts.
  // `?edsrv=fresh` (svc doctor) asks for a sample taken now, waiting at most FRESH_SAMPLE_WAIT_MS.
  route(app, "/healthz", {
    GET: async (c) => {
      if (c.req.query("edsrv") === "fresh") await deps.edsrv?.refresh?.(FRESH_SAMPLE_WAIT_MS);
      return c.json({ ok: true, edsrv: deps.edsrv?.state ?? "down" }, 200, { "Cache-Control": "no-store" });
    },
  });
  // Without a counter (tests of other parts), sampled_at is the time these routes were made.
  const startedAt = deps.now();
  route(app, "/status", { GET: (c) => c.json(gateStatus(deps, startedAt)) });
  route(app, "/limits", { GET: (c) => c.json(gateLimits(deps)) });

  // The browser library and its TypeScript declarations: no authentication, cacheable (the
  // ETag carries the version and the content's hash).
  const served = (c: Context<AppEnv>, s: ServedScript, type: string) => {
    const headers = { "Content-Type": type, ETag: s.etag, "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" };
    if (c.req.header("if-none-match") === s.etag) return c.body(null, 304, headers);
    return c.body(s.body, 200, headers);
  };
  route(app, "/api.js", { GET: async (c) => served(c, await apiScript(), "text/javascript; charset=utf-8") });
  route(app, "/api.d.ts", { GET: (c) => served(c, apiDeclarations(), "application/typescript; charset=utf-8") });

  // Internal: only the inner proxy calls this (the proxy answers 404 to the outside). Headers:
  // X-SVC-Stage (page|ws), X-Original-URI (raw), X-Original-Method. 2xx admits; 403 refuses a
  // WebSocket; the page stage refuses with the HTML limit page (429). The URI is never logged.
  route(app, "/auth", {
    GET: async (c) => {
      const stage = c.req.header("x-svc-stage");
      const uri = c.req.header("x-original-uri") ?? "";
      if (stage !== "page" && stage !== "ws") {
        return errorResponse(c, new ServiceError("bad_request", "Thiếu hoặc sai X-SVC-Stage (page hoặc ws).", { header: "X-SVC-Stage" }));
      }
      if (!deps.admission) return c.body(null, 204);
      const d = await deps.admission.decide(stage, uri);
      c.get("log").info("gate_decision", { stage, admit: d.admit, reason: d.reason });
      if (d.admit) return c.body(null, 204);
      if (d.reason === "unknown_websocket") {
        return errorResponse(
          c,
          new ServiceError("bad_request", "Yêu cầu WebSocket không nhận diện được tài liệu nên bị từ chối.", { reason: "unknown_websocket" }, {}, 403),
        );
      }
      if (stage === "page") {
        // A form POST (a file-sync host): its fields are in the body, which this check never sees;
        // 307 makes the browser send the same body to the limit page, which carries them.
        const location = (c.req.header("x-original-method") ?? "").toUpperCase() === "POST" ? limitPageLocation(uri) : null;
        if (location) return c.body(null, 307, { Location: location, "Cache-Control": "no-store" });
        const page = limitPageAnswer({ limit: d.limit, current: d.current, edition: d.edition, rawUri: uri });
        return c.html(page.html, page.status, page.headers);
      }
      return errorResponse(c, new ServiceError("connection_limit_reached", undefined, { limit: d.limit, current: d.current, edition: d.edition }));
    },
  });
  // The limit page of a refused editor-page POST (see /auth above): public, like the page it stands
  // for; the figures are the cap's now.
  const counter = deps.counter;
  if (deps.admission && counter) {
    const figures = () => {
      const { current, pending, limit } = counter.load();
      return { limit, current: current + pending, edition: deps.license.gate().edition };
    };
    route(app, `${LIMIT_PAGE_PREFIX.slice("/svc".length)}/*`, {
      POST: async (c) => {
        const page = await postedLimitPage(c.req.raw, figures);
        return c.html(page.html, page.status, page.headers);
      },
    });
  }
  if (deps.embed) {
    app.route("/embed", embedRoutes(deps.embed));
    app.route("/wopi", wopiRoutes(deps.embed));
  }
  if (deps.demo) {
    // api.js's content is part of the demo's build: changed code reloads the demo page, a gate that
    // only restarted (a crash under a person typing) does not reload it under them.
    app.route("/demo", demoRoutes({ ...deps.demo, now: deps.now, apiBuild: async () => (await apiScript()).etag }));
  }
  return app;
}
