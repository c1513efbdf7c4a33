// The embed session API over HTTP (spec: "Gate: public endpoints", "Embed session creation",
// "Embed session operations", CORS, SSRF, "Gate and embedding codes"), against the real gate and
// the real editing server's discovery; the integrator's file server is a loopback stand-in.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ManualClock } from "../clock";
import { ID_PATTERNS } from "../ids";
import { FIXTURES, startTestService, type Harness } from "../testing/harness";
import { embedToken, startEmbedStack, startSource, type EmbedStack } from "./testing";
import { scaled } from "../testing/until";

const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
const APP_ORIGIN = "https://app.example";
let keySeq = 0;
const newKey = () => `key-${Date.now().toString(36)}-${++keySeq}`;

let stack: EmbedStack;
let source: ReturnType<typeof startSource>;
let docUrl: string;

const config = (over: { document?: Record<string, unknown>; editor?: Record<string, unknown>; ui?: Record<string, unknown> } = {}) => ({
  document: { url: docUrl, title: "Hợp đồng.docx", fileType: "docx", key: newKey(), ...over.document },
  editor: { mode: "edit", lang: "en", user: { id: "u1", name: "Lan" }, ...over.editor },
  ...(over.ui ? { ui: over.ui } : {}),
});
const signed = async (c: Record<string, unknown>, o?: Parameters<typeof embedToken>[1]) => ({ token: await embedToken(c, o) });
const expectError = (r: { status: number; body: any; res: Response }, status: number, code: string) => {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  expect(r.body.error.request_id).toMatch(ID_PATTERNS.request);
  expect(r.res.headers.get("x-svc-request-id")).toBe(r.body.error.request_id);
};

beforeAll(async () => {
  source = startSource();
  docUrl = source.add("/files/contract.docx", DOCX);
  stack = await startEmbedStack({ env: { SVC_EMBED_ALLOWED_ORIGINS: `${APP_ORIGIN},http://other.example:3000` } });
}, scaled(120_000));
afterAll(async () => {
  await stack?.close();
  source?.stop();
});

describe("POST /svc/embed/session", () => {
  test("201 with every field of the embed session; the token is only in form, never in a URL or a log line", async () => {
    const before = Date.now();
    const c = config({ ui: { closeButton: true } });
    const r = await stack.create(await signed(c));
    expect(r.status).toBe(201);
    const s = r.body;
    expect(Object.keys(s).sort()).toEqual(["doc_id", "editor_url", "expires_at", "form", "key", "limit", "limited", "message", "mode", "requested_mode", "session_id", "version"].sort());
    expect(s.session_id).toMatch(ID_PATTERNS.session);
    expect(s.doc_id).toMatch(ID_PATTERNS.doc);
    expect(s).toMatchObject({ key: c.document.key, mode: "edit", requested_mode: "edit", limited: false, limit: null, message: null, version: 0 });
    const wopiSrc = `${stack.gateUrl}/svc/wopi/files/${s.doc_id}`;
    expect(s.editor_url).toMatch(new RegExp(`^/browser/${stack.ed.hash}/ed\\.html\\?`));
    const q = new URL(s.editor_url, "http://x").searchParams;
    expect([q.get("WOPISrc"), q.get("lang"), q.get("closebutton"), q.get("permission")]).toEqual([wopiSrc, "en", "1", null]);
    expect(s.editor_url).toContain(`WOPISrc=${encodeURIComponent(wopiSrc)}`);
    expect(Object.keys(s.form).sort()).toEqual(["access_token", "access_token_ttl", "ui_defaults"]);
    expect(s.form.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.form.access_token_ttl).toBe(Date.parse(s.expires_at));
    expect(s.form.ui_defaults).toBe("UIMode=tabbed");
    // SVC_EMBED_SESSION_TTL_MINUTES: 720 by default.
    expect(Date.parse(s.expires_at) - before).toBeGreaterThanOrEqual(720 * 60_000 - 1000);
    expect(Date.parse(s.expires_at) - Date.now()).toBeLessThanOrEqual(720 * 60_000);
    expect(s.editor_url).not.toContain(s.form.access_token);
    expect(stack.gate.logLines.join("\n")).not.toContain(s.form.access_token);
    expect(r.res.headers.get("cache-control")).toBe("no-store");
  });

  test("a 1 MB session body is 413 bad_request (the gate's bad_request with the original HTTP status), with the limit and a sentence saying what to fix, never file_too_large", async () => {
    // A valid signed config padded past 64 KiB, sent with its length and then streamed (chunked).
    const big = JSON.stringify({ ...(await signed(config())), events: "x".repeat(1024 * 1024) });
    const chunked = new ReadableStream<Uint8Array>({
      start(ctl) {
        const bytes = new TextEncoder().encode(big);
        for (let i = 0; i < bytes.length; i += 64 * 1024) ctl.enqueue(bytes.subarray(i, i + 64 * 1024));
        ctl.close();
      },
    });
    for (const body of [big, chunked]) {
      const res = await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      const r = { status: res.status, body: (await res.json()) as any, res };
      expectError(r, 413, "bad_request");
      expect(r.body.error.detail).toEqual({ limit_bytes: 64 * 1024, errors: [{ path: "", message: "body over 65536 bytes" }] });
      expect(r.body.error.message).toBe("Nội dung yêu cầu vượt quá 65536 byte: hãy gửi JSON nhỏ hơn (cấu hình nhúng chỉ cần vài kB, tài liệu được tải từ document.url chứ không gửi kèm).");
    }
  });

  test("the document's key groups sessions: one download for concurrent sessions of a new key, none for later ones", async () => {
    const p = source.add("/files/shared.docx", DOCX);
    const key = newKey();
    const hits = () => source.hits.filter((h) => h === "/files/shared.docx").length;
    const all = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => stack.create(await signed(config({ document: { url: p, key }, editor: { user: { id: `u${i}`, name: `User ${i}` } } })))),
    );
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(all.map((r) => r.body.doc_id)).size).toBe(1);
    expect(new Set(all.map((r) => r.body.session_id)).size).toBe(8);
    expect(new Set(all.map((r) => r.body.form.access_token)).size).toBe(8);
    expect(hits()).toBe(1);
    const later = await stack.create(await signed(config({ document: { url: p, key } })));
    expect(later.body.doc_id).toBe(all[0]!.body.doc_id);
    expect(hits()).toBe(1);
  });

  test("mode view opens read-only: permission=readonly in editor_url, no slot taken", async () => {
    const pendingBefore = (await (await fetch(`${stack.gateUrl}/svc/status`)).json() as any).connections.pending;
    const r = await stack.create(await signed(config({ editor: { mode: "view" } })));
    expect(r.body).toMatchObject({ mode: "view", requested_mode: "view", limited: false });
    expect(new URL(r.body.editor_url, "http://x").searchParams.get("permission")).toBe("readonly");
    const status = (await (await fetch(`${stack.gateUrl}/svc/status`)).json()) as any;
    expect(status.connections.pending).toBe(pendingBefore);
  });

  test("CORS: a listed Origin is echoed, the preflight answers the spec's headers, a request without Origin is accepted", async () => {
    const pre = await fetch(`${stack.gateUrl}/svc/embed/session`, {
      method: "OPTIONS",
      headers: { Origin: APP_ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(pre.status).toBe(204);
    expect(Object.fromEntries(["access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers", "access-control-max-age"].map((h) => [h, pre.headers.get(h)]))).toEqual({
      "access-control-allow-origin": APP_ORIGIN,
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": "Content-Type, Authorization",
      "access-control-max-age": "600",
    });
    const created = await stack.create(await signed(config()), { Origin: APP_ORIGIN });
    expect(created.status).toBe(201);
    expect(created.res.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(created.res.headers.get("access-control-expose-headers")).toContain("X-SVC-Request-Id");
    // An error to a listed origin is readable by its page too.
    const bad = await stack.create({}, { Origin: "http://other.example:3000" });
    expect(bad.status).toBe(401);
    expect(bad.res.headers.get("access-control-allow-origin")).toBe("http://other.example:3000");
    // Session operations and preflights on them.
    const s = created.body;
    const state = await fetch(`${stack.gateUrl}/svc/embed/session/${s.session_id}`, { headers: { Origin: APP_ORIGIN, Authorization: `Bearer ${s.form.access_token}` } });
    expect([state.status, state.headers.get("access-control-allow-origin")]).toEqual([200, APP_ORIGIN]);
    const preDel = await fetch(`${stack.gateUrl}/svc/embed/session/${s.session_id}`, { method: "OPTIONS", headers: { Origin: APP_ORIGIN, "Access-Control-Request-Method": "DELETE" } });
    expect(preDel.status).toBe(204);
    const noOrigin = await stack.create(await signed(config()));
    expect([noOrigin.status, noOrigin.res.headers.get("access-control-allow-origin")]).toEqual([201, null]);
  });

  test("origin_not_allowed: an Origin not listed gets 403, for the preflight and the request alike", async () => {
    for (const origin of ["https://evil.example", "https://app.example:444", "http://app.example", "null"]) {
      const pre = await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST" } });
      expect([origin, pre.status, ((await pre.json()) as any).error.code]).toEqual([origin, 403, "origin_not_allowed"]);
      const r = await stack.create(await signed(config()), { Origin: origin });
      expectError(r, 403, "origin_not_allowed");
      expect(r.res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  test("the order of checks: origin, token, config, download, cap, discovery", async () => {
    const badOrigin = { Origin: "https://evil.example" };
    const badConfig = { document: { url: "http://10.0.0.1/x.docx", fileType: "docx", key: "bad key" } };
    // origin before token
    expectError(await stack.create({}, badOrigin), 403, "origin_not_allowed");
    // token before config
    expectError(await stack.create(badConfig), 401, "token_required");
    expectError(await stack.create({ ...(await signed(config(), { alg: "none" })), ...badConfig }), 401, "invalid_token");
    // config before download: the forbidden URL is never tried
    expectError(await stack.create(await signed(badConfig)), 400, "invalid_config");
    // download before discovery
    const hitsBefore = source.hits.length;
    expectError(await stack.create(await signed(config({ document: { url: `${source.origin}/missing.docx` } }))), 422, "download_failed");
    expect(source.hits.length).toBe(hitsBefore + 1);
  });

  test("400 invalid_config: detail.errors with JSON Pointer paths, also for an unknown top-level field; 415 for a fileType outside the 12", async () => {
    const r = await stack.create(await signed({ document: { url: docUrl, fileType: "docx" }, editor: { mode: "write" } }));
    expectError(r, 400, "invalid_config");
    expect(r.body.error.detail.errors).toEqual([
      { path: "/document/key", message: expect.any(String) },
      { path: "/editor/mode", message: expect.any(String) },
    ]);
    const top = await stack.create({ ...(await signed(config())), colour: "red" });
    expectError(top, 400, "invalid_config");
    expect(top.body.error.detail.errors).toEqual([{ path: "/colour", message: "unknown field: colour" }]);
    const notObject = await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "[1,2]" });
    expect([notObject.status, ((await notObject.json()) as any).error.code]).toEqual([400, "invalid_config"]);
    // The gate's bad_request has detail.errors as DocBuilder's does (the spec: "with the same meaning").
    const malformed = await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{nope" });
    const malformedError = ((await malformed.json()) as any).error;
    expect([malformed.status, malformedError.code, malformedError.detail.errors?.[0]?.path]).toEqual([400, "bad_request", ""]);
    const form = await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "POST", body: new URLSearchParams({ token: "x" }) });
    const formError = ((await form.json()) as any).error;
    expect([form.status, formError.code, formError.detail.errors?.[0]?.path]).toEqual([400, "bad_request", ""]);
    const pdf = await stack.create(await signed(config({ document: { fileType: "pdf" } })));
    expectError(pdf, 415, "unsupported_file_type");
    expect(pdf.body.error.detail.fileType).toBe("pdf");
  });

  test("401 codes through HTTP: token_required, invalid_token (none, HS512, bad signature, no exp, exp > 24 h), token_expired", async () => {
    const c = config();
    expectError(await stack.create(c), 401, "token_required");
    for (const o of [{ alg: "none" as const }, { alg: "HS512" as const }, { secret: "x".repeat(40) }, { expIn: null }, { expIn: 25 * 3600 }]) {
      expectError(await stack.create(await signed(c, o)), 401, "invalid_token");
    }
    expectError(await stack.create(await signed(c, { expIn: -120 })), 401, "token_expired");
  });

  test("SSRF: document.url and callbackUrl to internal addresses are url_not_allowed before any connection; redirects are checked per hop", async () => {
    for (const url of ["http://10.0.0.1/a.docx", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/a.docx", "http://0x0a000001/a.docx", "file:///etc/passwd", "http://user:pw@files.example/a.docx"]) {
      const r = await stack.create(await signed(config({ document: { url } })));
      // file: and credentials fail the schema (http(s) only) or the SSRF rules; never a download.
      expect([url, r.status, r.body.error.code]).toEqual([url, url.startsWith("file:") ? 400 : 422, url.startsWith("file:") ? "invalid_config" : "url_not_allowed"]);
    }
    const redirect = source.add("/files/redirect.docx", new Uint8Array(), { redirect: "http://169.254.169.254/latest" });
    const r = await stack.create(await signed(config({ document: { url: redirect } })));
    expectError(r, 422, "url_not_allowed");
    const cb = await stack.create(await signed(config({ editor: { callbackUrl: "http://192.168.1.10/cb" } })));
    expectError(cb, 422, "url_not_allowed");
    expect(cb.body.error.detail.field).toBe("editor.callbackUrl");
  });

  test("422 download_failed when the source does not answer 200; the message names the cause", async () => {
    const err = source.add("/files/500.docx", DOCX, { status: 500 });
    const r = await stack.create(await signed(config({ document: { url: err } })));
    expectError(r, 422, "download_failed");
    expect(r.body.error.message).toContain("500");
    expect(r.body.error.detail.field).toBe("document.url");
    const refused = await stack.create(await signed(config({ document: { url: "http://127.0.0.1:9/x.docx" } })));
    expectError(refused, 422, "download_failed");
  });
});

describe("session operations: GET, mode, DELETE with Bearer access_token", () => {
  const op = (s: any, suffix = "", init: RequestInit & { token?: string | null } = {}) => {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    const token = init.token === undefined ? s.form.access_token : init.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    return fetch(`${stack.gateUrl}/svc/embed/session/${s.session_id}${suffix}`, { ...init, headers });
  };
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any, res });

  test("GET: the session state with the spec's fields, the signed download link and the last callback", async () => {
    const s = (await stack.create(await signed(config()))).body;
    const r = await json(await op(s));
    expect(r.status).toBe(200);
    const st = r.body;
    for (const k of ["session_id", "key", "doc_id", "mode", "state", "version", "modified", "saved_at", "size", "sha256", "download_url", "users"]) expect(st).toHaveProperty(k);
    expect(st).toMatchObject({ session_id: s.session_id, key: s.key, doc_id: s.doc_id, mode: "edit", state: "active", version: 0, modified: false, size: DOCX.byteLength, users: [], callback: null });
    expect(st.sha256).toBe(new Bun.CryptoHasher("sha256").update(DOCX).digest("hex"));
    expect(st.download_url).toMatch(new RegExp(`^${stack.gateUrl}/svc/embed/files/${s.doc_id}\\?v=0&exp=\\d+&sig=[0-9a-f]{64}$`));
    const dl = await fetch(st.download_url);
    expect(dl.status).toBe(200);
    expect(new Uint8Array(await dl.arrayBuffer())).toEqual(new Uint8Array(DOCX));
  });

  test("invalid_session_token: no header, a wrong token, another session's token; 404 for an unknown session", async () => {
    const a = (await stack.create(await signed(config()))).body;
    const b = (await stack.create(await signed(config()))).body;
    for (const token of [null, "wrong", b.form.access_token]) {
      const r = await json(await op(a, "", { token }));
      expect([r.status, r.body.error.code]).toEqual([401, "invalid_session_token"]);
    }
    const unknown = await json(await op({ ...a, session_id: "ses_000000000000000000000000" }));
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    for (const method of ["DELETE", "POST"]) {
      const r = await json(await op(a, method === "POST" ? "/mode" : "", { method, token: b.form.access_token, headers: { "Content-Type": "application/json" }, body: method === "POST" ? '{"mode":"view"}' : undefined }));
      expect([method, r.status, r.body.error.code]).toEqual([method, 401, "invalid_session_token"]);
    }
  });

  test("mode: view then edit again keeps session_id and access_token; a bad body is bad_request", async () => {
    const s = (await stack.create(await signed(config()))).body;
    const toView = await json(await op(s, "/mode", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"mode":"view"}' }));
    expect(toView.status).toBe(200);
    expect(toView.body).toMatchObject({ session_id: s.session_id, mode: "view", requested_mode: "view", limited: false, form: { access_token: s.form.access_token } });
    expect(new URL(toView.body.editor_url, "http://x").searchParams.get("permission")).toBe("readonly");
    const toEdit = await json(await op(s, "/mode", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"mode":"edit"}' }));
    expect(toEdit.body).toMatchObject({ session_id: s.session_id, mode: "edit", requested_mode: "edit", limited: false, form: { access_token: s.form.access_token, access_token_ttl: s.form.access_token_ttl } });
    expect(new URL(toEdit.body.editor_url, "http://x").searchParams.get("permission")).toBeNull();
    const bad = await json(await op(s, "/mode", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"mode":"write"}' }));
    expect([bad.status, bad.body.error.code, bad.body.error.detail.errors[0].path]).toEqual([400, "bad_request", "/mode"]);
  });

  test("DELETE: 204 without a body, the session is closed, the document stays; a closed session cannot change mode", async () => {
    const s = (await stack.create(await signed(config()))).body;
    const del = await op(s, "", { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    const st = await json(await op(s));
    expect(st.body).toMatchObject({ state: "closed", document_state: "open" });
    expect((await op(s, "", { method: "DELETE" })).status).toBe(204);
    const mode = await json(await op(s, "/mode", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"mode":"view"}' }));
    expect([mode.status, mode.body.error.code, mode.body.error.detail.reason]).toEqual([401, "invalid_session_token", "closed"]);
    // The same key opens the same document for the next session.
    const again = await stack.create(await signed(config({ document: { key: s.key } })));
    expect(again.body.doc_id).toBe(s.doc_id);
  });

  test("a wrong method is 405 with detail.method; status counts live sessions and open documents", async () => {
    const r = await json(await fetch(`${stack.gateUrl}/svc/embed/session`, { method: "GET" }));
    expect([r.status, r.body.error.code, r.body.error.detail.method]).toEqual([405, "bad_request", "GET"]);
    const status = (await (await fetch(`${stack.gateUrl}/svc/status`)).json()) as any;
    expect(status.embed).toMatchObject({ enabled: true, jwt_required: true, callback_signing: true });
    expect(status.embed.sessions).toBeGreaterThan(10);
    expect(status.embed.open_documents).toBeGreaterThan(5);
    expect(status.embed.sessions).toBe(stack.gate.embed.store.countLiveSessions(Date.now()));
  });
});

describe("connection cap for embedded sessions (rule 6)", () => {
  let capped: EmbedStack;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    capped = await startEmbedStack({ env: { SVC_GATE_CONNECTION_CAP: "2" }, gate: { clock, sampleIntervalMs: 100 } });
    // Counting enforces once a sample arrived.
    await capped.gate.sampler.nextSample();
  }, scaled(120_000));
  afterAll(async () => capped?.close());

  const mode = async (s: any, m: string) =>
    (await (
      await fetch(`${capped.gateUrl}/svc/embed/session/${s.session_id}/mode`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${s.form.access_token}` },
        body: JSON.stringify({ mode: m }),
      })
    ).json()) as any;

  test("at the cap a new edit session opens read-only with limited, limit and a message; view sessions hold no slot; switching to edit applies the cap", async () => {
    const make = async (m: string, key = newKey()) => (await capped.create(await signed(config({ document: { key }, editor: { mode: m } })))).body;
    const a = await make("edit");
    const viewer = await make("view");
    const b = await make("edit");
    expect([a.limited, viewer.limited, b.limited]).toEqual([false, false, false]);
    const status = async () => ((await (await fetch(`${capped.gateUrl}/svc/status`)).json()) as any).connections;
    expect(await status()).toMatchObject({ limit: 2, pending: 2, limit_reached: true, enforcing: true });
    const c = await make("edit");
    expect(c).toMatchObject({ mode: "view", requested_mode: "edit", limited: true, limit: { limit: 2, current: 2, edition: "community" } });
    expect(c.message).toContain("2 kết nối");
    expect(new URL(c.editor_url, "http://x").searchParams.get("permission")).toBe("readonly");
    // A read-only session is still admitted at the cap.
    expect((await make("view")).limited).toBe(false);
    // The state read shows the downgrade.
    const st = (await (await fetch(`${capped.gateUrl}/svc/embed/session/${c.session_id}`, { headers: { Authorization: `Bearer ${c.form.access_token}` } })).json()) as any;
    expect(st).toMatchObject({ mode: "view", requested_mode: "edit", limited: true });
    // Switching to edit at the cap stays read-only.
    expect(await mode(c, "edit")).toMatchObject({ mode: "view", requested_mode: "edit", limited: true, limit: { limit: 2 } });
    // The pending entries of a and b expire after 60 s without a view: slots are free again.
    clock.advance(60_000);
    await capped.gate.sampler.nextSample();
    expect(await status()).toMatchObject({ pending: 0, limit_reached: false });
    expect(await mode(c, "edit")).toMatchObject({ mode: "edit", requested_mode: "edit", limited: false, limit: null, message: null });
    expect(await status()).toMatchObject({ pending: 1 });
  });
});

describe("settings", () => {
  // Three services, started at once: embedding off; no secret and every origin allowed; unsigned
  // mode with a 1 MB cap and no editing server to read discovery from.
  let disabled: Harness, noSecret: Harness, unsigned: Harness;
  beforeAll(async () => {
    [disabled, noSecret, unsigned] = await Promise.all([
      startTestService({ SVC_EMBED_ENABLED: "0", SVC_EMBED_ALLOW_UNSIGNED: "1", SVC_DOCBUILDER_WORKERS: "1" }),
      startTestService({ SVC_DOCBUILDER_WORKERS: "1", SVC_EMBED_ALLOWED_ORIGINS: "*" }),
      startTestService({ SVC_DOCBUILDER_WORKERS: "1", SVC_EMBED_ALLOW_UNSIGNED: "1", SVC_FETCH_ALLOW_HOSTS: "127.0.0.1", SVC_EMBED_MAX_FILE_MB: "1", SVC_EDSRV_URL: "http://127.0.0.1:9" }),
    ]);
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([disabled?.close(), noSecret?.close(), unsigned?.close()]);
  });
  const post = (svc: Harness, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

  test("SVC_EMBED_ENABLED=0: every embed and WOPI path is 404", async () => {
    for (const [method, p] of [
      ["POST", "/svc/embed/session"],
      ["GET", "/svc/embed/session/ses_000000000000000000000000"],
      ["GET", `/svc/embed/files/doc_${"0".repeat(32)}?v=0&exp=1&sig=${"0".repeat(64)}`],
      ["GET", `/svc/wopi/files/doc_${"0".repeat(32)}?access_token=x`],
      ["OPTIONS", "/svc/embed/session"],
    ] as const) {
      const res = await fetch(`${disabled.url}${p}`, { method, headers: { "Content-Type": "application/json", Origin: APP_ORIGIN }, body: method === "POST" ? "{}" : undefined });
      expect([p, res.status, ((await res.json()) as any).error.code]).toEqual([p, 404, "not_found"]);
    }
    expect(((await (await fetch(`${disabled.url}/svc/status`)).json()) as any).embed).toMatchObject({ enabled: false });
  });

  test("embed_auth_not_configured without SVC_EMBED_JWT_SECRET and with unsigned mode off (the default)", async () => {
    const res = await post(noSecret, config());
    expect([res.status, ((await res.json()) as any).error.code]).toEqual([401, "embed_auth_not_configured"]);
  });

  test("`*` in SVC_EMBED_ALLOWED_ORIGINS echoes any Origin", async () => {
    const res = await fetch(`${noSecret.url}/svc/embed/session`, { method: "OPTIONS", headers: { Origin: "https://anything.example" } });
    expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([204, "https://anything.example"]);
    const post2 = await post(noSecret, config(), { Origin: "https://other.example" });
    expect([post2.status, post2.headers.get("access-control-allow-origin")]).toEqual([401, "https://other.example"]);
  });

  test("413 file_too_large past SVC_EMBED_MAX_FILE_MB", async () => {
    const big = source.add("/files/big.docx", new Uint8Array(1024 * 1024 + 1));
    const res = await post(unsigned, config({ document: { url: big } }));
    const body = (await res.json()) as any;
    expect([res.status, body.error.code, body.error.detail.limit_mb]).toEqual([413, "file_too_large", 1]);
  });

  test("503 editor_unavailable when the editing server's discovery cannot be read (after the download: the spec's order)", async () => {
    const hits = source.hits.length;
    const res = await post(unsigned, config());
    const body = (await res.json()) as any;
    expect([res.status, body.error.code]).toEqual([503, "editor_unavailable"]);
    expect(body.error.message).toContain("/hosting/discovery");
    expect(source.hits.length).toBe(hits + 1);
  });
});
