// The access line of each request: health probes are no event (debug), everything else is info.

import { expect, test } from "bun:test";
import { Hono } from "hono";
import { memoryLogger, requestLogLevel } from "../log";
import { requestContext, type AppEnv } from "./common";

test("health probes (GET /v1/status, /svc/healthz, /svc/status) log their request line at debug while they answer; other requests and a failing probe at info", async () => {
  const log = memoryLogger("debug");
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(log));
  let statusCode = 200;
  app.get("/v1/status", (c) => c.json({ ok: statusCode === 200 }, statusCode as 200));
  app.get("/svc/healthz", (c) => c.json({ ok: true }));
  app.get("/svc/status", (c) => c.json({ ok: true }));
  app.get("/svc/limits", (c) => c.json({}));
  const get = (p: string, method = "GET") => app.request(`http://127.0.0.1${p}`, { method });
  for (const p of ["/v1/status", "/svc/healthz", "/svc/status", "/svc/limits", "/v1/status?x=1"]) await get(p);
  await get("/svc/healthz", "HEAD");
  statusCode = 503;
  await get("/v1/status");
  const seen = log.lines.map((l) => JSON.parse(l)).filter((l) => l.event === "http_request").map((l) => `${l.level} ${l.method} ${l.path} ${l.status}`);
  expect(seen).toEqual([
    "debug GET /v1/status 200",
    "debug GET /svc/healthz 200",
    "debug GET /svc/status 200",
    "info GET /svc/limits 200",
    "debug GET /v1/status?x=1 200",
    "debug HEAD /svc/healthz 200",
    "info GET /v1/status 503",
  ]);
  // At the default level the probes write nothing.
  const quiet = memoryLogger("info");
  const app2 = new Hono<AppEnv>().use("*", requestContext(quiet));
  app2.get("/v1/status", (c) => c.json({}));
  for (let i = 0; i < 5; i++) await app2.request("http://127.0.0.1/v1/status");
  expect(quiet.lines).toEqual([]);
});

test("a readiness probe (GET /ed/ready) that answers 503 while the editing server warms logs at debug; any other 5xx of it, and a 503 of a health probe, at info", () => {
  expect(requestLogLevel("GET", "/ed/ready", 200)).toBe("debug");
  expect(requestLogLevel("GET", "/ed/ready", 503)).toBe("debug");
  expect(requestLogLevel("GET", "/ed/ready", 500)).toBe("info");
  expect(requestLogLevel("POST", "/ed/ready", 503)).toBe("info");
  expect(requestLogLevel("GET", "/v1/status", 503)).toBe("info");
  expect(requestLogLevel("GET", "/svc/healthz", 503)).toBe("info");
});
