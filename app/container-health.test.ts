// The image's health check (spec: `GET /v1/status` "Use as container health check";
// `/svc/healthz` "does not depend on the editing server"): an editing server outage must not make
// the container unhealthy, or an orchestrator restarts DocBuilder and the gate with it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";

test("health check: the image asks /svc/healthz and /v1/status, nothing that depends on the editing server", () => {
  const file = readFileSync(path.join(import.meta.dir, "../Containerfile"), "utf8");
  const check = /^HEALTHCHECK[^\n]*\\\n\s*CMD ([^\n]+)$/m.exec(file)?.[1] ?? "";
  const asked = [...check.matchAll(/http:\/\/127\.0\.0\.1:8080(\/[^\s>]+)/g)].map((m) => m[1]);
  expect(asked).toEqual(["/svc/healthz", "/v1/status"]);
});
