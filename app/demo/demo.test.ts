// The development pages without a browser: mounted only in dev mode, the samples, the demo's
// config (signed when the service has a secret), its callback receiver's checks and memory, and
// the demo URLs the gate reaches on its own listener (and nothing else).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { verify } from "hono/jwt";
import { signPayload } from "../callbacks/verify";
import { FIXTURES, startTestService, type Harness } from "../testing/harness";
import { demoTargets } from "./local-targets";
import { DemoReceiver } from "./receiver";
import { DEMO_SAMPLES } from "./samples";
import { scaled } from "../testing/until";

const SECRET = "demo-callback-secret";
const JWT = "demo-jwt-secret-0123456789abcdef-0123456789";
let dev: Harness;
let prod: Harness;

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startTestService({ SVC_DEV_MODE: "1", SVC_DOCBUILDER_WORKERS: "1", SVC_EMBED_CALLBACK_SECRET: SECRET, SVC_EMBED_JWT_SECRET: JWT }),
    startTestService({ SVC_DOCBUILDER_WORKERS: "1" }),
  ]);
}, scaled(60_000));
afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

describe("development pages", () => {
  test("the demo's build names its files and api.js's content, not when the gate started: a gate that restarted does not reload the page", async () => {
    const again = await startTestService({ SVC_DEV_MODE: "1", SVC_DOCBUILDER_WORKERS: "1" });
    try {
      const build = async (url: string) => ((await (await fetch(`${url}/svc/demo/build`)).json()) as { build: string }).build;
      expect(await build(again.url)).toBe(await build(dev.url));
    } finally {
      await again.close();
    }
  });

  test("404 unless SVC_DEV_MODE=1", async () => {
    for (const p of ["/svc/demo", "/svc/demo/sample.docx", "/svc/demo/callbacks", "/svc/demo/config"]) {
      const res = await fetch(`${prod.url}${p}`);
      expect([p, res.status, ((await res.json()) as any).error.code]).toEqual([p, 404, "not_found"]);
    }
    expect((await fetch(`${prod.url}/svc/demo/callback`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${prod.url}/svc/`, { redirect: "manual" })).status).toBe(404);
  });

  test("the demo page loads api.js; /svc/ leads to it; every sample is served, sample.docx among them", async () => {
    const html = await (await fetch(`${dev.url}/svc/demo`)).text();
    expect(html).toContain('<script src="/svc/api.js"></script>');
    expect((await fetch(`${dev.url}/svc/`, { redirect: "manual" })).headers.get("location")).toBe("/svc/demo");
    const docx = await fetch(`${dev.url}/svc/demo/sample.docx`);
    expect(new Uint8Array(await docx.arrayBuffer())).toEqual(new Uint8Array(readFileSync(path.join(FIXTURES, "demo", "letter.docx"))));
    for (const s of DEMO_SAMPLES) expect([s.file, (await fetch(`${dev.url}/svc/demo/${s.file}`)).status]).toEqual([s.file, 200]);
    expect(DEMO_SAMPLES.map((s) => s.id)).toEqual(["docx", "xlsx", "pptx", "odt", "vi"]);
  });

  test("the demo's config is signed with the embed secret and points at the demo's sample and receiver", async () => {
    const res = await fetch(`${dev.url}/svc/demo/config?sample=vi&key=demo-k1&user=u9&name=Ch%C3%AD`);
    const { token } = (await res.json()) as any;
    const payload = (await verify(token, JWT, "HS256")) as any;
    expect(payload.document).toEqual({ url: `${dev.url}/svc/demo/sample-vi.docx`, fileType: "docx", key: "demo-k1", title: "Hợp đồng dịch vụ.docx" });
    expect(payload.editor).toMatchObject({ mode: "edit", user: { id: "u9", name: "Chí" }, callbackUrl: `${dev.url}/svc/demo/callback` });
    expect(payload.exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);
    const bad = await fetch(`${dev.url}/svc/demo/config?sample=pdf`);
    expect([bad.status, ((await bad.json()) as any).error.code]).toEqual([400, "bad_request"]);
  });

  test("the demo receiver checks signatures as the receiver rules say and shows the result; a bad one is refused with the gate's error body", async () => {
    const body = JSON.stringify({ status: "saved", key: "k", version: 3 });
    const ts = Math.floor(Date.now() / 1000);
    const post = (sig: string, stamp = ts) =>
      fetch(`${dev.url}/svc/demo/callback`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-SVC-Event": "document.saved", "X-SVC-Delivery": "d-1", "X-SVC-Timestamp": String(stamp), "X-SVC-Signature": sig },
        body,
      });
    expect((await post(signPayload(SECRET, ts, body))).status).toBe(200);
    // A refusal answers the spec's error body (every gate error has it), naming the reason.
    const refused = await post(signPayload("wrong", ts, body));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "unauthorized", detail: { reason: "bad_signature" }, request_id: expect.any(String) } });
    expect((await post(signPayload(SECRET, ts - 301, body), ts - 301)).status).toBe(401);
    const callbacks = (await (await fetch(`${dev.url}/svc/demo/callbacks`)).json()) as any;
    expect(callbacks.slice(0, 3).map((c: any) => [c.signature.ok, c.signature.reason, c.body?.version ?? null])).toEqual([
      [false, "timestamp_out_of_window", null],
      [false, "bad_signature", null],
      [true, null, 3],
    ]);
    expect(callbacks[2]).toMatchObject({ event: "document.saved", delivery_id: "d-1" });
  });
});

describe("the demo's callback list", () => {
  test("GET /svc/demo/callbacks answers a JSON list (the spec's shape), newest first, each with its signature check", async () => {
    const raw = JSON.stringify({ status: "closed", key: "list-shape", version: 0 });
    const ts = Math.floor(Date.now() / 1000);
    await fetch(`${dev.url}/svc/demo/callback`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-SVC-Event": "document.closed", "X-SVC-Delivery": "d-list", "X-SVC-Timestamp": String(ts), "X-SVC-Signature": signPayload(SECRET, ts, raw) },
      body: raw,
    });
    const res = await fetch(`${dev.url}/svc/demo/callbacks`);
    expect(res.headers.get("content-type")).toContain("application/json");
    const list = (await res.json()) as any;
    expect(Array.isArray(list)).toBe(true);
    expect(list.length).toBeLessThanOrEqual(20);
    expect(list[0]).toMatchObject({ event: "document.closed", delivery_id: "d-list", signature: { ok: true, reason: null }, body: { key: "list-shape" } });
  });
});

describe("the demo receiver and the demo's own URLs", () => {
  test("keeps the last 20, newest first", () => {
    const r = new DemoReceiver(SECRET);
    for (let i = 0; i < 25; i++) {
      const raw = new TextEncoder().encode(JSON.stringify({ version: i }));
      const ts = Math.floor(Date.now() / 1000);
      r.receive(new Headers({ "x-svc-timestamp": String(ts), "x-svc-signature": signPayload(SECRET, ts, raw) }), raw);
    }
    const list = r.list();
    expect(list.length).toBe(20);
    expect((list[0]!.body as any).version).toBe(24);
    expect((list[19]!.body as any).version).toBe(5);
  });

  test("only the demo's sample and callback URLs on the public address are reached on the gate's listener", () => {
    const t = demoTargets("http://127.0.0.1:8080", () => "http://127.0.0.1:8081");
    expect(t.local("http://127.0.0.1:8080/svc/demo/sample.docx")).toBe("http://127.0.0.1:8081/svc/demo/sample.docx");
    expect(t.local("http://127.0.0.1:8080/svc/demo/callback")).toBe("http://127.0.0.1:8081/svc/demo/callback");
    for (const url of [
      "http://127.0.0.1:8080/svc/demo/callbacks",
      "http://127.0.0.1:8080/svc/status",
      "http://127.0.0.1:8080/svc/demo/sample.docx?x=1",
      "http://127.0.0.1:8080/svc/demo/../wopi/files/x",
      "http://127.0.0.1:8080@evil.example/svc/demo/callback",
      "http://127.0.0.1:80801/svc/demo/callback",
      "http://127.0.0.1:9980/svc/demo/sample.docx",
    ]) {
      expect([url, t.local(url)]).toEqual([url, null]);
    }
  });
});
