// The API reference (issue 14): generated OpenAPI 3.1 for /v1 and the embed API, checked against
// the routes the live app serves, with examples that validate against the routes' own schemas.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { AUTH, startTestService, type Harness } from "../testing/harness";
import { OPENAPI_FILES, openApiFileText } from "../../scripts/openapi";
import { EMBED_OPERATIONS, V1_OPERATIONS, openApiDocument, type Operation } from "./openapi";
import { scaled } from "../testing/until";

let svc: Harness;
beforeAll(async () => {
  svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1" });
}, scaled(120_000));
afterAll(() => svc?.close());

/** The app's own routes under a prefix, as "METHOD /path" (middleware and the reference itself left out). */
function served(prefix: string, skip: RegExp): Set<string> {
  return new Set(
    svc.routes
      .filter((r) => r.method !== "ALL" && r.method !== "OPTIONS" && r.path.startsWith(prefix) && !skip.test(r.path.slice(prefix.length)))
      .map((r) => `${r.method} ${r.path}`),
  );
}
const documented = (prefix: string, ops: Operation[]) => new Set(ops.map((o) => `${o.method.toUpperCase()} ${prefix}${o.path}`));

describe("API reference", () => {
  test("GET /v1/openapi.json and /svc/openapi.json are OpenAPI 3.1 documents, with a reference page that carries its document", async () => {
    for (const part of ["v1", "svc"] as const) {
      const headers = part === "v1" ? AUTH : {};
      const res = await fetch(`${svc.url}/${part}/openapi.json`, { headers });
      expect(res.status).toBe(200);
      const doc = (await res.json()) as any;
      expect(doc.openapi).toBe("3.1.0");
      expect(Object.keys(doc.paths).length).toBeGreaterThan(3);
      expect(doc.components.schemas.Error.properties.error.required).toEqual(["code", "message", "detail", "request_id"]);
      const page = await fetch(`${svc.url}/${part}/reference`, { headers });
      expect(page.headers.get("Content-Type")).toContain("text/html");
      // The page reads its document from itself (a browser cannot add the Bearer header to a fetch of its own).
      const html = await page.text();
      const inline = /<script type="application\/json" id="openapi">([\s\S]*?)<\/script>/.exec(html)![1]!;
      expect(JSON.parse(inline)).toEqual(doc);
    }
  });

  test("/v1/openapi.json and /v1/reference require authentication like all of /v1/ except GET /v1/status", async () => {
    for (const p of ["/v1/openapi.json", "/v1/reference"]) {
      for (const headers of [{}, { Authorization: "Bearer svc_wrong_key_0123456789abcdef" }] as Record<string, string>[]) {
        const res = await fetch(`${svc.url}${p}`, { headers });
        const body = (await res.json()) as any;
        expect([p, res.status, body.error.code]).toEqual([p, 401, "unauthorized"]);
        expect(body.error.request_id).toBe(res.headers.get("X-SVC-Request-Id"));
      }
      expect([p, (await fetch(`${svc.url}${p}`, { headers: AUTH })).status]).toEqual([p, 200]);
    }
    expect((await fetch(`${svc.url}/v1/status`)).status).toBe(200);
    // The embed API's reference stays public like the embed API it describes.
    expect((await fetch(`${svc.url}/svc/openapi.json`)).status).toBe(200);
  });

  test("the OpenAPI documents shipped in docs/openapi/ are the generated ones (run bun run scripts/openapi.ts after changing a route or schema)", () => {
    for (const part of ["v1", "svc"] as const) {
      const file = OPENAPI_FILES[part];
      expect([file, existsSync(file)]).toEqual([file, true]);
      expect(readFileSync(file, "utf8")).toBe(openApiFileText(part));
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(openApiDocument(part));
    }
  });

  test("every /v1 route the app serves is documented, and every documented operation is served", () => {
    const skip = /^\/(openapi\.json|reference|metrics)$/;
    expect([...documented("/v1", V1_OPERATIONS)].sort()).toEqual([...served("/v1", skip)].sort());
  });

  test("every embed route the app serves is documented, and every documented operation is served", () => {
    expect([...documented("/svc", EMBED_OPERATIONS)].sort()).toEqual([...served("/svc/embed", /^$/)].map((r) => r).sort());
  });

  test("every example validates against the schema the route validates with", () => {
    for (const op of [...V1_OPERATIONS, ...EMBED_OPERATIONS]) {
      if (!op.body?.example) continue;
      const r = op.body.schema.safeParse(op.body.example);
      expect({ op: op.path, ok: r.success, issues: r.success ? [] : r.error.issues }).toEqual({ op: op.path, ok: true, issues: [] });
    }
  });

  test("each documented error has the status of the error catalogue", async () => {
    const doc = (await (await fetch(`${svc.url}/v1/openapi.json`, { headers: AUTH })).json()) as any;
    expect(Object.keys(doc.paths["/convert"].post.responses)).toEqual(expect.arrayContaining(["200", "202", "400", "401", "413", "415", "422", "429", "503", "504"]));
    expect(doc.paths["/convert"].post.responses["415"].description).toContain("unsupported_format");
    expect(doc.paths["/jobs/{id}"].get.parameters[0]).toMatchObject({ name: "id", in: "path", required: true });
  });
});
