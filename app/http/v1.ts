// The /v1 route group (DocBuilder). Each handler: authenticate, call one domain function, answer.

import { Hono, type Context, type MiddlewareHandler } from "hono";
import { ServiceError } from "../errors";
import type { JobOutcome, DocBuilderService } from "../docbuilder/service";
import type { WorkerPool } from "../docbuilder/pool";
import { allowedEndpoints } from "../editions/limits";
import { FORMATS, PDF_CONTENT_TYPE, targetsOf, type Family } from "../../workers/formats";
import type { Authenticator } from "./auth";
import { contentDisposition, fileAnswer, route, type AppEnv } from "./common";
import { SERVICE_VERSION, API_VERSION } from "../version";
import { openApiDocument, referencePage } from "./openapi";

/** The endpoints that count against the rate limits (every other request is free). */
export const COUNTED_PATHS = new Set([
  "/v1/convert",
  "/v1/build",
  "/v1/template/render",
  "/v1/extract/text",
  "/v1/extract/meta",
  "/v1/extract/thumbnail",
]);

export interface V1Deps {
  docbuilder: DocBuilderService;
  pool: WorkerPool;
  authenticate: Authenticator;
  devMode: boolean;
  now: () => number;
}

export function v1Routes(deps: V1Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { docbuilder } = deps;

  const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
    const who = await deps.authenticate(c.req.header("Authorization"));
    c.set("caller", who.caller);
    // The queue a request waits in: a key's name and a JWT subject of the same text are different callers.
    c.set("callerQueue", `${who.kind}:${who.caller}`);
    await next();
  };
  app.use("*", async (c, next) => (c.req.path === "/v1/status" ? next() : requireAuth(c, next)));

  // Counted after authentication (a 401 never counts); a 403 is given back afterwards, and the
  // headers then show the refund. An endpoint this edition does not have is refused (403) before
  // the rate is even looked at: a spent minute never turns that refusal into a 429.
  app.use("*", async (c, next) => {
    if (c.req.method !== "POST" || !COUNTED_PATHS.has(c.req.path)) return next();
    if (!allowedEndpoints(docbuilder.edition()).includes(`POST ${c.req.path}`)) return next();
    const ticket = docbuilder.takeRate();
    await next();
    if (c.res.status === 401 || c.res.status === 403) ticket.refund();
    for (const [k, v] of Object.entries(ticket.headers())) c.res.headers.set(k, v);
  });

  route(app, "/status", {
    GET: (c) =>
      c.json({
        service: "svc-docbuilder",
        version: SERVICE_VERSION,
        api: API_VERSION,
        time: new Date(deps.now()).toISOString(),
        edition: docbuilder.edition(),
        dev_mode: deps.devMode,
        core: deps.pool.core(),
        workers: deps.pool.status(),
        queue: deps.pool.queueStats(),
        uptime_seconds: docbuilder.uptimeSeconds(),
      }),
  });

  route(app, "/limits", {
    GET: (c) => {
      const edition = docbuilder.edition();
      return c.json({
        edition,
        limits: docbuilder.limits(),
        usage: docbuilder.usage(),
        allowed_endpoints: allowedEndpoints(edition),
        features: docbuilder.features(),
      });
    },
  });

  route(app, "/formats", { GET: (c) => c.json(formatsBody()) });

  // The API reference: behind the authentication above like every /v1/ path but GET /v1/status
  // (the same documents are shipped in docs/openapi/ for reading without a key).
  const doc = openApiDocument("v1");
  const page = referencePage("v1");
  route(app, "/openapi.json", { GET: (c) => c.json(doc) });
  route(app, "/reference", { GET: (c) => c.html(page) });

  route(app, "/convert", { POST: async (c) => jobResponse(c, await docbuilder.convert(c.req.raw, c.get("requestId"), c.get("callerQueue"))) });

  for (const what of ["text", "meta", "thumbnail"] as const) {
    route(app, `/extract/${what}`, {
      POST: async (c) => {
        const outcome = await docbuilder.extract(c.req.raw, c.get("requestId"), what, c.get("callerQueue"));
        if (outcome.what === "thumbnail") {
          return new Response(outcome.png as Uint8Array<ArrayBuffer>, {
            headers: {
              "Content-Type": "image/png",
              "X-SVC-Width": String(outcome.result.width),
              "X-SVC-Height": String(outcome.result.height),
              "X-SVC-Pages": String(outcome.result.pages),
            },
          });
        }
        return c.json(outcome.result);
      },
    });
  }

  route(app, "/build", { POST: async (c) => jobResponse(c, await docbuilder.build(c.req.raw, c.get("requestId"), c.get("callerQueue"))) });
  route(app, "/template/render", { POST: async (c) => jobResponse(c, await docbuilder.renderTemplate(c.req.raw, c.get("requestId"), c.get("callerQueue"))) });

  route(app, "/jobs/:id", { GET: (c) => c.json(docbuilder.job(c.req.param("id")!)) });

  route(app, "/files/:id", {
    GET: (c) => {
      const { path, output } = docbuilder.file(c.req.param("id")!);
      return fileAnswer(path, {
        "Content-Type": output.content_type,
        "Content-Disposition": contentDisposition(output.filename),
        "Content-Length": String(output.size),
      });
    },
  });

  return app;
}

/**
 * The answer of a job endpoint: 202 with the job when asynchronous; when synchronous, the file
 * itself for one output, or the finished job (200) when a build asked for several.
 */
function jobResponse(c: Context<AppEnv>, outcome: JobOutcome): Response {
  if (outcome.mode === "async") {
    c.header("Location", `/v1/jobs/${outcome.job.id}`);
    return c.json(outcome.job, 202);
  }
  if (outcome.job.outputs.length > 1) return c.json(outcome.job, 200);
  const out = outcome.job.outputs[0]!;
  return fileAnswer(outcome.file, {
    "Content-Type": out.content_type,
    "Content-Disposition": contentDisposition(out.filename),
    "X-SVC-Job-Id": outcome.job.id,
    "X-SVC-File-Id": out.file_id,
    "X-SVC-Pages": String(out.pages),
  });
}

/** GET /v1/formats: every source format by family, and the targets each family reaches. */
export function formatsBody() {
  const families: Family[] = ["text", "spreadsheet", "presentation"];
  return {
    families: Object.fromEntries(
      families.map((family) => [
        family,
        {
          sources: FORMATS.filter((f) => f.family === family && f.source).map((f) => f.ext),
          targets: targetsOf(family),
        },
      ]),
    ),
    content_types: Object.fromEntries([...FORMATS.map((f) => [f.ext, f.contentType]), ["pdf", PDF_CONTENT_TYPE]]),
    notes: "Conversion works within one family; pdf is reachable from every family. Send `from` when the file name has no extension.",
  };
}
