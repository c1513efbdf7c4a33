// The API reference (OpenAPI 3.1) of /v1 and of the embed API, generated from the zod schemas the
// routes validate with (zod's own JSON Schema output): the operations are listed once here, their
// request schemas are the routes' own, their errors come from the one catalogue.
import { z } from "zod";
import { BuildParams, ConvertParams, ExtractParams, TemplateParams } from "../../schemas/docbuilder";
import { EmbedConfig, EmbedDownloadQuery, EmbedModeRequest, EmbedSessionRequest } from "../../schemas/embed";
import { ERROR_CATALOGUE, type ErrorCode } from "../errors";
import { API_VERSION, SERVICE_VERSION } from "../version";

type Body = { type: "multipart" | "json"; schema: z.ZodType; file?: "required" | "optional"; example?: unknown };

export interface Operation {
  method: "get" | "post" | "delete";
  /** Hono's form (`/jobs/:id`); written `{id}` in the document. */
  path: string;
  summary: string;
  auth: "api" | "session" | "none";
  body?: Body;
  query?: z.ZodType;
  /** Successful answers: status → description and content type. */
  ok: Record<number, { description: string; content?: string }>;
  errors: ErrorCode[];
}

const JOB_ERRORS: ErrorCode[] = ["bad_request", "unauthorized", "forbidden_feature", "file_too_large", "unsupported_format", "corrupt_source", "password_required", "url_not_allowed", "download_failed", "rate_limited", "queue_full", "pool_unavailable", "timeout"];
const JOB_OK = { 200: { description: "The result (synchronous)", content: "application/octet-stream" }, 202: { description: "The job (async=true)", content: "application/json" } };

export const V1_OPERATIONS: Operation[] = [
  { method: "get", path: "/status", summary: "Service status, workers and queue", auth: "none", ok: { 200: { description: "Status", content: "application/json" } }, errors: [] },
  { method: "get", path: "/limits", summary: "The edition's limits for this caller", auth: "api", ok: { 200: { description: "Limits", content: "application/json" } }, errors: ["unauthorized"] },
  { method: "get", path: "/formats", summary: "Conversion pairs by family", auth: "api", ok: { 200: { description: "Formats", content: "application/json" } }, errors: ["unauthorized"] },
  {
    method: "post", path: "/convert", summary: "Convert a document (a `file` part or `url`) to another format", auth: "api",
    body: { type: "multipart", schema: ConvertParams, file: "optional", example: { to: "pdf" } }, ok: JOB_OK, errors: JOB_ERRORS,
  },
  ...(["text", "meta", "thumbnail"] as const).map((what): Operation => ({
    method: "post", path: `/extract/${what}`, summary: `Extract the document's ${what === "meta" ? "metadata" : what}`, auth: "api",
    body: { type: "multipart", schema: ExtractParams, file: "optional", example: what === "thumbnail" ? { width: "256" } : {} },
    ok: { 200: { description: what === "thumbnail" ? "A PNG of the first page" : "The extraction", content: what === "thumbnail" ? "image/png" : "application/json" } },
    errors: JOB_ERRORS.filter((c) => c !== "queue_full"),
  })),
  {
    method: "post", path: "/build", summary: "Build documents from an svcscript", auth: "api",
    body: { type: "json", schema: BuildParams, example: { script: { title: "Hello", outputs: [{ format: "docx" }], content: [] } } },
    ok: JOB_OK, errors: [...JOB_ERRORS, "script_invalid", "script_too_large", "script_error"],
  },
  {
    method: "post", path: "/template/render", summary: "Fill a docx template with JSON data", auth: "api",
    body: { type: "multipart", schema: TemplateParams, file: "optional", example: { data: { name: "Lan" }, to: "pdf" } },
    ok: JOB_OK, errors: [...JOB_ERRORS, "template_error", "macro_not_allowed"],
  },
  { method: "get", path: "/jobs/:id", summary: "A job's state and outputs", auth: "api", ok: { 200: { description: "The job", content: "application/json" } }, errors: ["unauthorized", "not_found", "gone"] },
  { method: "get", path: "/files/:id", summary: "Download a job's output", auth: "api", ok: { 200: { description: "The file", content: "application/octet-stream" } }, errors: ["unauthorized", "not_found", "gone"] },
];

const EMBED_EXAMPLE = { document: { url: "https://files.example.com/contract.docx", fileType: "docx", key: "contract-42-v3" }, editor: { mode: "edit", user: { id: "u1", name: "Lan" } } };

export const EMBED_OPERATIONS: Operation[] = [
  {
    method: "post", path: "/embed/session", summary: "Open an embed session for a document (a signed `token`, or the config itself where unsigned configs are allowed)", auth: "none",
    body: { type: "json", schema: EmbedSessionRequest, example: EMBED_EXAMPLE },
    ok: { 201: { description: "The session: its id, access token and the editor's URL", content: "application/json" } },
    errors: ["invalid_config", "token_required", "invalid_token", "embed_auth_not_configured", "origin_not_allowed", "url_not_allowed", "download_failed", "file_too_large", "connection_limit_reached"],
  },
  { method: "get", path: "/embed/session/:id", summary: "A session's state (users, modified, versions)", auth: "session", ok: { 200: { description: "State", content: "application/json" } }, errors: ["invalid_session_token", "not_found"] },
  { method: "delete", path: "/embed/session/:id", summary: "Close a session", auth: "session", ok: { 204: { description: "Closed" } }, errors: ["invalid_session_token", "not_found"] },
  {
    method: "post", path: "/embed/session/:id/mode", summary: "Switch a session between edit and view", auth: "session",
    body: { type: "json", schema: EmbedModeRequest, example: { mode: "view" } },
    ok: { 200: { description: "The new mode", content: "application/json" } }, errors: ["invalid_session_token", "bad_request", "connection_limit_reached"],
  },
  {
    method: "get", path: "/embed/files/:docId", summary: "Download a version through a signed link", auth: "none", query: EmbedDownloadQuery,
    ok: { 200: { description: "The version's bytes", content: "application/octet-stream" } }, errors: ["invalid_signature", "link_expired", "not_found"],
  },
];

const ERROR_BODY = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "detail", "request_id"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: "string", description: "A Vietnamese sentence saying what to fix." },
        detail: { type: "object" },
        request_id: { type: "string", description: "Also in the X-SVC-Request-Id header." },
      },
    },
  },
};

/** A zod schema as the JSON Schema of its input (what a client sends). */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const openApiPath = (p: string) => p.replace(/:([A-Za-z]+)/g, "{$1}");

function operationObject(op: Operation, tag: string): Record<string, unknown> {
  const params = [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  if (op.query) {
    const q = jsonSchema(op.query) as { properties: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties)) params.push({ name, in: "query", required: (q.required ?? []).includes(name), schema } as never);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.ok)) responses[status] = { description: r.description, ...(r.content ? { content: { [r.content]: {} } } : {}) };
  for (const code of op.errors) {
    const status = String(ERROR_CATALOGUE[code].status);
    const r = (responses[status] ??= { description: "", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }) as { description: string };
    r.description = r.description ? `${r.description}, ${code}` : code;
  }
  const o: Record<string, unknown> = { tags: [tag], summary: op.summary, operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`, responses };
  if (params.length) o.parameters = params;
  if (op.auth === "api") o.security = [{ bearer: [] }];
  if (op.auth === "session") o.security = [{ session: [] }];
  if (op.body) {
    let schema = jsonSchema(op.body.schema);
    if (op.body.type === "multipart") {
      const props = { ...(schema.properties as Record<string, unknown>) };
      // In a multipart form every field is text; objects (options, data) are JSON text.
      if (op.body.file) props.file = { type: "string", format: "binary", description: "the document" };
      schema = { ...schema, properties: props };
    }
    if (op.path === "/embed/session") schema = { oneOf: [schema, jsonSchema(EmbedConfig)], description: "A signed config (`token`) or the config itself." };
    const content = op.body.type === "multipart" ? "multipart/form-data" : "application/json";
    o.requestBody = { required: true, content: { [content]: { schema, ...(op.body.example !== undefined ? { example: op.body.example } : {}) } } };
  }
  return o;
}

/** The OpenAPI 3.1 document of one part: /v1 (DocBuilder) or /svc (the embed API). */
export function openApiDocument(part: "v1" | "svc"): Record<string, unknown> {
  const ops = part === "v1" ? V1_OPERATIONS : EMBED_OPERATIONS;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) (paths[openApiPath(op.path)] ??= {})[op.method] = operationObject(op, part === "v1" ? "DocBuilder" : "Embed");
  return {
    openapi: "3.1.0",
    info: {
      title: part === "v1" ? "svc DocBuilder API" : "svc embed API",
      version: `${API_VERSION} (service ${SERVICE_VERSION})`,
      description: part === "v1" ? "Conversion, building, templates and extraction. Errors have the body in components.schemas.Error." : "Embed sessions and signed downloads for the host application's backend and api.js.",
    },
    servers: [{ url: `/${part}` }],
    paths,
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API key or an HS256 JWT (SVC_DOCBUILDER_API_KEYS, SVC_DOCBUILDER_JWT_SECRET)." },
        session: { type: "http", scheme: "bearer", description: "The session's access_token from POST /embed/session." },
      },
    },
  };
}

/**
 * A small page that lists the operations of its document, carried in the page itself (a browser
 * cannot add the Bearer header that /v1/openapi.json needs to a fetch of its own); no outside
 * resource.
 */
export function referencePage(part: "v1" | "svc"): string {
  // JSON in a non-executed script element, "<" escaped so no text can close it.
  const inline = JSON.stringify(openApiDocument(part)).replace(/</g, "\\u003c");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc ${part} API reference</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;max-width:980px}h2{margin-top:28px}code,pre{font:12px ui-monospace,monospace}pre{background:#f5f5f5;padding:8px;overflow:auto}.m{display:inline-block;min-width:56px;font-weight:700;text-transform:uppercase}.get{color:#1a5fb4}.post{color:#26a269}.delete{color:#c01c28}</style></head>
<body><h1 id="title">svc ${part} API</h1><p id="desc"></p><p>The OpenAPI 3.1 document: <a href="openapi.json">openapi.json</a>${part === "v1" ? " (with Authorization: Bearer, like all of /v1/), or docs/openapi/v1.json in the repository and the image" : ", also docs/openapi/svc.json in the repository and the image"}</p><div id="ops"></div>
<script type="application/json" id="openapi">${inline}</script>
<script>
(function (d) {
  document.getElementById("title").textContent = d.info.title + " " + d.info.version;
  document.getElementById("desc").textContent = d.info.description;
  var out = document.getElementById("ops");
  Object.keys(d.paths).forEach(function (p) {
    Object.keys(d.paths[p]).forEach(function (m) {
      var o = d.paths[p][m], s = document.createElement("section");
      var h = document.createElement("h2"); h.innerHTML = '<span class="m ' + m + '">' + m + "</span> <code></code>"; h.querySelector("code").textContent = d.servers[0].url + p; s.appendChild(h);
      var sum = document.createElement("p"); sum.textContent = o.summary; s.appendChild(sum);
      var parts = { parameters: o.parameters, requestBody: o.requestBody, responses: o.responses, security: o.security };
      var pre = document.createElement("pre"); pre.textContent = JSON.stringify(parts, null, 2); s.appendChild(pre);
      out.appendChild(s);
    });
  });
})(JSON.parse(document.getElementById("openapi").textContent));
</script></body></html>`;
}
