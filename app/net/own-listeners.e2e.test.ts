// The service's own listeners are never a valid source, whatever SVC_FETCH_ALLOW_HOSTS says, and
// allow-list entries may name ports. Black box: the real service on loopback, its own
// /svc/metrics as the bait, and a loopback file server as the integrator's storage.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { AUTH, FIXTURES, startTestService, type Harness } from "../testing/harness";
import { startSource } from "../embed/testing";
import { scaled } from "../testing/until";

const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
let svc: Harness;
let allowedSource: ReturnType<typeof startSource>;
let otherSource: ReturnType<typeof startSource>;
let gatePort: number;

beforeAll(async () => {
  allowedSource = startSource();
  otherSource = startSource();
  allowedSource.add("/hello.docx", DOCX);
  otherSource.add("/hello.docx", DOCX);
  const allowedPort = new URL(allowedSource.origin).port;
  svc = await startTestService({
    SVC_DOCBUILDER_WORKERS: "1",
    SVC_EMBED_ALLOW_UNSIGNED: "1",
    // Loopback allowed by name and address, and 127.0.0.1 on one port only.
    SVC_FETCH_ALLOW_HOSTS: `localhost,::1,127.0.0.1:${allowedPort}`,
  });
  gatePort = Number(new URL(svc.url).port);
}, scaled(60_000));

afterAll(async () => {
  await svc?.close();
  allowedSource?.stop();
  otherSource?.stop();
});

const convert = (url: string) =>
  fetch(`${svc.url}/v1/convert`, { method: "POST", headers: { ...AUTH, "Content-Type": "application/json" }, body: JSON.stringify({ url, from: url.endsWith(".docx") ? undefined : "txt", to: "pdf" }) });

describe("the service's own listeners are never a valid source, whatever the allow list says", () => {
  test("document URLs pointing at the gate's own listener are refused (url_not_allowed, rule own_listener), in every loopback form", async () => {
    for (const host of ["127.0.0.1", "localhost", "127.0.0.2", "[::1]", "0.0.0.0"]) {
      const res = await convert(`http://${host}:${gatePort}/svc/metrics`);
      const body = (await res.json()) as any;
      expect({ host, status: res.status, code: body.error.code }).toEqual({ host, status: 422, code: "url_not_allowed" });
      expect(body.error.detail.rule).toBe("own_listener");
      expect(body.error.message).toContain("chính dịch vụ");
    }
  });

  test("the editing server's and the proxy's default ports are refused too, for document.url and callbackUrl of an embed session", async () => {
    const session = (doc: string, callbackUrl?: string) =>
      fetch(`${svc.url}/svc/embed/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ document: { url: doc, fileType: "docx", key: `own-${Math.random().toString(36).slice(2)}`, title: "a.docx" }, editor: { mode: "edit", user: { id: "u", name: "U" }, ...(callbackUrl ? { callbackUrl } : {}) } }),
      });
    for (const doc of ["http://127.0.0.1:9980/hosting/discovery", "http://localhost:8080/svc/status", `http://127.0.0.1:${gatePort}/svc/status`]) {
      const res = await session(doc);
      const body = (await res.json()) as any;
      expect({ doc, status: res.status, code: body.error.code, rule: body.error.detail.rule }).toEqual({ doc, status: 422, code: "url_not_allowed", rule: "own_listener" });
    }
    const res = await session(`${allowedSource.origin}/hello.docx`, `http://127.0.0.1:${gatePort}/svc/demo/callbacks`);
    const body = (await res.json()) as any;
    expect({ status: res.status, code: body.error.code, field: body.error.detail.field }).toEqual({ status: 422, code: "url_not_allowed", field: "editor.callbackUrl" });
  });

  test("an allow-list entry with a port allows that port only", async () => {
    const ok = await convert(`${allowedSource.origin}/hello.docx`);
    expect(ok.status).toBe(200);
    const refused = await convert(`${otherSource.origin}/hello.docx`);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).error.detail.rule).toBe("forbidden_address");
    expect(otherSource.hits.length).toBe(0);
  });
});
