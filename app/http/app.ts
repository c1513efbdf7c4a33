// createApp(deps): the whole HTTP surface of the gate and DocBuilder (or of DocBuilder alone), with nothing started.
// The entry file builds the dependencies once and serves this app.

import { Hono } from "hono";
import type { Logger } from "../log";
import type { Metrics } from "../metrics";
import { basicAuthMatches } from "../basic-auth";
import { ServiceError } from "../errors";
import { notFound, onError, requestContext, type AppEnv } from "./common";
import { openApiDocument, referencePage } from "./openapi";
import { svcRoutes, type SvcDeps } from "./svc";
import { v1Routes, type V1Deps } from "./v1";

export interface AppDeps extends V1Deps {
  logger: Logger;
  /** The gate's routes (/svc/); absent for a DocBuilder-only instance (SVC_ROLE=docbuilder), which serves /v1/ alone. */
  gate?: SvcDeps;
  /** Prometheus metrics (/svc/metrics, /v1/metrics: the proxy keeps them internal). */
  metrics?: Metrics;
  /** What a metrics scrape must send as HTTP Basic (SVC_EDSRV_ADMIN_PASSWORD); none set: no scrape. */
  metricsPassword?: string;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(deps.logger, deps.metrics));
  app.onError(onError);
  app.notFound(notFound);
  // The embed API's reference, generated from the routes' schemas; public like the API it
  // describes. The /v1 one is in v1Routes, behind its authentication (all of /v1/ but GET
  // /v1/status needs a key); both are also shipped as files in docs/openapi/.
  if (deps.gate) {
    const svcDoc = openApiDocument("svc");
    const svcPage = referencePage("svc");
    app.get("/svc/openapi.json", (c) => c.json(svcDoc));
    app.get("/svc/reference", (c) => c.html(svcPage));
  }
  const metrics = deps.metrics;
  if (metrics) {
    // Outside the v1 interface (the spec has no metrics endpoint): on the internal listener only
    // (the proxy answers 404) and behind the admin password.
    for (const p of ["/svc/metrics", "/v1/metrics"]) {
      app.get(p, async (c) => {
        if (!basicAuthMatches(c.req.header("Authorization"), deps.metricsPassword ?? "")) {
          throw new ServiceError("unauthorized", "Số liệu (metrics) cần HTTP Basic với mật khẩu SVC_EDSRV_ADMIN_PASSWORD (tên người dùng bất kỳ).", { reason: c.req.header("Authorization") ? "invalid" : "missing" }, { "WWW-Authenticate": 'Basic realm="svc metrics"' });
        }
        const { body, contentType } = await metrics.expose();
        return c.body(body, 200, { "Content-Type": contentType });
      });
    }
  }
  // The proxy sends / to /svc/; in development that leads to the demo.
  if (deps.gate?.demo) for (const p of ["/svc", "/svc/"]) app.get(p, (c) => c.redirect("/svc/demo", 302));
  app.route("/v1", v1Routes(deps));
  if (deps.gate) app.route("/svc", svcRoutes(deps.gate));
  return app;
}
