// api.js and the development demo end to end, through the real Caddy, in Debian's Chromium, with
// the real gate and editing server: the events in their order, the five methods, the demo's signed
// callbacks, the connection cap, a page of an unlisted origin, and the editing server gone.

import { SERVICE_VERSION } from "../version";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { docxText } from "../testing/office-files";
import { quietFor, scaled } from "../testing/until";
import type { Browser, Frame, Page } from "playwright-core";
import { freePort, startCaddy, type RunningCaddy } from "../../caddy/testing";
import { startChromium } from "../edsrv/testing/chromium";
import { startEmbedStack, until, type EmbedStack } from "../embed/testing";

interface Setup {
  stack: EmbedStack;
  caddy: RunningCaddy;
}

async function startDemo(env: Record<string, string> = {}): Promise<Setup> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const stack = await startEmbedStack({
    idleKits: 1,
    env: { SVC_DEV_MODE: "1", SVC_PUBLIC_URL: url, SVC_EMBED_ALLOWED_ORIGINS: url, ...env },
    gate: { sampleIntervalMs: 200 },
  });
  const caddy = await startCaddy({ app: new URL(stack.gateUrl).host, edsrv: new URL(stack.ed.url).host, port });
  return { stack, caddy };
}

let main: Setup;
let chrome: Awaited<ReturnType<typeof startChromium>>;
let browser: Browser;
let other: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  [main, chrome] = await Promise.all([startDemo(), startChromium()]);
  browser = chrome.browser;
  // A page of an origin the service does not list.
  other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(
        `<!doctype html><div id="ed" style="width:900px;height:600px"></div><script src="${main.caddy.url}/svc/api.js"></script>
<script>window.errors = []; new SVC.Editor("ed", { document: { url: "https://files.example/a.docx", fileType: "docx", key: "x" }, events: { onError: (e) => window.errors.push(e) } });</script>`,
        { headers: { "Content-Type": "text/html" } },
      ),
  });
}, scaled(180_000));

afterAll(async () => {
  await chrome?.close();
  other?.stop(true);
  await main?.caddy.stop();
  await main?.stack.close();
});

const names = (page: Page) => page.evaluate(() => (window as any).demo.log.map((e: any) => e.name));
const lastOf = (page: Page, name: string) => page.evaluate((n) => (window as any).demo.log.filter((e: any) => e.name === n).pop()?.payload, name);
const waitEvent = (page: Page, name: string, count = 1) =>
  page.waitForFunction(([n, k]) => (window as any).demo.log.filter((e: any) => e.name === n).length >= (k as number), [name, count] as const, { timeout: scaled(60_000) });
const editorFrame = (page: Page): Frame => page.frames().find((f) => f.url().includes("/ed.html"))!;

async function openDemo(setup: Setup, query: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${setup.caddy.url}/svc/demo?${query}`);
  return page;
}

describe("api.js on the demo page", () => {
  test("/ leads to the demo; api.js and api.d.ts are served, cacheable with the version in the ETag", async () => {
    const root = await fetch(`${main.caddy.url}/`, { redirect: "manual" });
    expect(root.headers.get("location")).toBe("/svc/");
    const svc = await fetch(`${main.caddy.url}/svc/`, { redirect: "manual" });
    expect([svc.status, svc.headers.get("location")]).toEqual([302, "/svc/demo"]);
    const js = await fetch(`${main.caddy.url}/svc/api.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const etag = js.headers.get("etag")!;
    expect(etag).toMatch(new RegExp(`^"${SERVICE_VERSION.replace(/\./g, "\\.")}-[0-9a-f]{16}"$`));
    expect(js.headers.get("cache-control")).toContain("max-age");
    expect((await js.text()).length).toBeLessThan(20_000);
    expect((await fetch(`${main.caddy.url}/svc/api.js`, { headers: { "If-None-Match": etag } })).status).toBe(304);
    const dts = await (await fetch(`${main.caddy.url}/svc/api.d.ts`)).text();
    expect(dts).toContain("declare namespace SVC");
    expect(dts).toContain("onLimitReached");
  });

  test("save_failed only when the editing server reports a failed save: save() before the document has loaded waits for it and saves; two save() calls at once are one save and one onSaved", async () => {
    const page = await openDemo(main, "sample=docx&user=u-lan&name=Lan&lang=en");
    await page.waitForFunction(() => !!(window as any).demo?.editor);
    // At once, before onDocumentLoaded: it waits for the load (nothing typed: the version stays 0).
    const early = await page.evaluate(() => (window as any).demo.editor.save().then((s: any) => ({ ok: s }), (e: any) => ({ error: e.code })));
    expect(early).toEqual({ ok: expect.objectContaining({ version: 0 }) });
    expect((await names(page)).includes("onDocumentLoaded")).toBe(true);
    const frame = editorFrame(page);
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    await frame.focus("#ime");
    await page.keyboard.type("Twice ");
    await waitEvent(page, "onModified");
    const both = await page.evaluate(() => { const e = (window as any).demo.editor; return Promise.all([e.save(), e.save()]); });
    expect(both.map((s: any) => s.version)).toEqual([1, 1]);
    expect((await names(page)).filter((n: string) => n === "onSaved")).toHaveLength(1);
    expect((await names(page)).filter((n: string) => n === "onError")).toHaveLength(0);
    await page.close();
  }, scaled(90_000));

  test("onReady → onDocumentLoaded → typing → onModified → save() → onSaved with a version and a download URL of the edited file → the demo receiver shows a valid signed callback", async () => {
    const page = await openDemo(main, "sample=docx&user=u-lan&name=Lan&lang=vi");
    await waitEvent(page, "onDocumentLoaded");
    const ready = await lastOf(page, "onReady");
    expect(ready).toMatchObject({ mode: "edit", limited: false, version: 0 });
    expect(ready.sessionId).toMatch(/^ses_/);
    expect((await names(page)).slice(0, 2)).toEqual(["onReady", "onDocumentLoaded"]);
    expect((await lastOf(page, "onDocumentLoaded")).loadTimeMs).toBeGreaterThan(0);
    // The iframe: allow list, and no form left in the page.
    const allow = await page.getAttribute("#editor iframe", "allow");
    expect(allow).toBe("clipboard-read; clipboard-write; fullscreen");
    expect(await page.locator("form").count()).toBe(0);

    const frame = editorFrame(page);
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    await frame.focus("#ime");
    await page.keyboard.type("Demo typed 77 ");
    await waitEvent(page, "onModified");
    expect(await lastOf(page, "onModified")).toEqual({ modified: true });
    const saved = await page.evaluate(() => (window as any).demo.editor.save());
    expect(saved).toMatchObject({ version: 1 });
    await waitEvent(page, "onSaved");
    const ev = await lastOf(page, "onSaved");
    expect(ev).toMatchObject({ version: 1, url: saved.url });
    expect(ev.url.startsWith(`${main.caddy.url}/svc/embed/files/${ready.docId}?v=1&`)).toBe(true);
    expect(docxText(new Uint8Array(await (await fetch(ev.url)).arrayBuffer()))).toStartWith("Demo typed 77 Hello from svc");
    // The demo receiver got document.saved, signed and checked.
    const cb = await until(
      async () => (await (await fetch(`${main.caddy.url}/svc/demo/callbacks`)).json()) as any,
      (list: any[]) => list.some((c) => c.event === "document.saved" && c.body?.version === 1 && c.body?.key === ready.key),
      "the demo receiver's callback",
    );
    expect(cb.find((c: any) => c.body?.key === ready.key).signature).toEqual({ ok: true, reason: null });
    // The page shows it with its signature check.
    await page.waitForFunction(() => document.getElementById("callbacks")!.textContent!.includes("chữ ký đúng"));
    // getInfo() has the state.
    const info = await page.evaluate(() => (window as any).demo.editor.getInfo());
    expect(info).toMatchObject({ sessionId: ready.sessionId, version: 1, mode: "edit", state: "active", loaded: true, users: [{ id: "u-lan", name: "Lan" }] });
    await page.close();
  }, scaled(90_000));

  test("in English, the demo's delivery lines are English: each save callback's attempts are told from their fields, not in the service's Vietnamese", async () => {
    const page = await openDemo(main, "sample=docx&user=u-ann&name=Ann&lang=en");
    await waitEvent(page, "onDocumentLoaded");
    const frame = editorFrame(page);
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    await frame.focus("#ime");
    await page.keyboard.type("English deliveries ");
    await waitEvent(page, "onModified");
    await page.evaluate(() => (window as any).demo.editor.save());
    await page.waitForFunction(() => /attempt 1: answered HTTP 200 in \d+ ms/.test(document.getElementById("deliveries")!.textContent!), undefined, { timeout: scaled(30_000) });
    const lines = await page.textContent("#deliveries");
    expect(lines).toContain("delivered");
    // No Vietnamese letter (đ, ư, ơ, ă, â, ê, ô and the tone marks) in the English page's lines.
    expect(lines!.normalize("NFD")).not.toMatch(/[đĐ\u0300-\u036f]/);
    await page.close();
  }, scaled(90_000));

  test("setReadOnly(true) reopens the editor read-only, setReadOnly(false) for editing again; close() ends the session and the demo says so, with a way back; destroy() removes the frame", async () => {
    const page = await openDemo(main, "sample=xlsx&user=u-binh&name=Binh");
    await waitEvent(page, "onDocumentLoaded");
    const ro = await page.evaluate(() => (window as any).demo.editor.setReadOnly(true));
    expect(ro).toMatchObject({ mode: "view", requestedMode: "view", limited: false });
    await waitEvent(page, "onDocumentLoaded", 2);
    await editorFrame(page).waitForFunction(() => window.edState.readOnly === true);
    const rw = await page.evaluate(() => (window as any).demo.editor.setReadOnly(false));
    expect(rw).toMatchObject({ mode: "edit", limited: false });
    await waitEvent(page, "onDocumentLoaded", 3);
    await editorFrame(page).waitForFunction(() => window.edState.readOnly === false);

    const info = await page.evaluate(() => (window as any).demo.editor.getInfo());
    await page.evaluate(() => (window as any).demo.editor.close());
    expect(await lastOf(page, "onClose")).toEqual({ reason: "host" });
    expect(await page.locator("#editor iframe").count()).toBe(0);
    const state = (await (await fetch(`${main.caddy.url}/svc/embed/session/${info.sessionId}`, { headers: { Authorization: "Bearer x" } })).json()) as any;
    expect(state.error.code).toBe("invalid_session_token");
    expect(main.stack.gate.embed.store.session(info.sessionId)!.state).toBe("closed");
    // The demo says so where the editor was, with a way back to the same document.
    await page.waitForSelector("#editor .closed");
    expect(await page.textContent("#editor .closed")).toContain("session is closed");
    await page.click("#reopen");
    await waitEvent(page, "onDocumentLoaded", 4);
    expect((await page.evaluate(() => (window as any).demo.editor.getInfo())).key).toBe(info.key);

    // destroy(): the frame goes at once and nothing is reported afterwards.
    await page.click("#new");
    await waitEvent(page, "onDocumentLoaded", 5);
    const before = (await names(page)).length;
    await page.evaluate(() => (window as any).demo.editor.destroy());
    expect(await page.locator("#editor iframe").count()).toBe(0);
    await quietFor(500, "no event reported after destroy()", async () => { const n = await names(page); return n.length > before && n.slice(before); });
    expect((await names(page)).length).toBe(before);
    await page.close();
  }, scaled(120_000));

  test("a page of an origin not in SVC_EMBED_ALLOWED_ORIGINS gets origin_not_allowed through onError", async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${other.port}/`);
    await page.waitForFunction(() => (window as any).errors.length > 0);
    const [err] = await page.evaluate(() => (window as any).errors);
    expect(err).toMatchObject({ code: "origin_not_allowed", detail: { origin: `http://127.0.0.1:${other.port}` } });
    expect(err.message).toContain("SVC_EMBED_ALLOWED_ORIGINS");
    await page.close();
  });

  test("the editing server stopped: onError load_failed once the load time-out passes (shortened here); the person sees the session to quote and a Try again that frames the editor again", async () => {
    const page = await openDemo(main, "sample=docx");
    await waitEvent(page, "onDocumentLoaded");
    const session = await page.evaluate(() => (window as any).demo.editor.getInfo());
    expect(session.loaded).toBe(true);
    await main.stack.ed.close();
    await page.evaluate(() => {
      const d = (window as any).demo;
      d.editor.destroy();
      d.errors = [];
      // Discovery is still cached by the gate: the session is made, the editor page never answers.
      return fetch("/svc/demo/config?sample=docx").then((r) => r.json()).then((cfg) => {
        d.editor = new (window as any).SVC.Editor("editor", { ...cfg, timeouts: { loadMs: 3000 }, events: { onError: (e: any) => d.errors.push(e) } });
      });
    });
    await page.waitForFunction(() => (window as any).demo.errors.length > 0, undefined, { timeout: scaled(20_000) });
    const [err] = await page.evaluate(() => (window as any).demo.errors);
    expect(err).toMatchObject({ code: "load_failed", detail: { reason: "timeout", timeout_ms: 3000 } });
    // The person is told, with something support can look up (no request failed: the session), and may try again.
    const info = await page.evaluate(() => (window as any).demo.editor.getInfo());
    expect(await page.textContent("#editor .svc-error-codes")).toContain(info.sessionId);
    expect(await page.textContent("#editor .svc-error-codes")).not.toContain("—");
    await page.click("#editor .svc-error-retry");
    await page.waitForSelector("#editor iframe");
    await page.waitForFunction(() => (window as any).demo.errors.length > 1, undefined, { timeout: scaled(20_000) });
    expect(await page.isVisible("#editor .svc-error-retry")).toBe(true);
    await page.close();
  }, scaled(60_000));
});

describe("the connection cap in the browser", () => {
  let capped: Setup;
  beforeAll(async () => {
    capped = await startDemo({ SVC_GATE_CONNECTION_CAP: "1" });
    await capped.stack.gate.sampler.nextSample();
  }, scaled(120_000));
  afterAll(async () => {
    await capped?.caddy.stop();
    await capped?.stack.close();
  });

  test("the cap reached: onLimitReached with the message, and a read-only editor", async () => {
    const first = await openDemo(capped, "sample=docx&key=cap-doc&user=u1");
    await waitEvent(first, "onDocumentLoaded");
    const second = await openDemo(capped, "sample=docx&key=cap-doc&user=u2&name=Hai");
    await waitEvent(second, "onLimitReached");
    const limit = await lastOf(second, "onLimitReached");
    expect(limit.message).toContain("1 kết nối");
    expect(limit.limit).toMatchObject({ limit: 1, edition: "community" });
    await waitEvent(second, "onDocumentLoaded");
    expect(await lastOf(second, "onReady")).toMatchObject({ mode: "view", limited: true });
    await editorFrame(second).waitForFunction(() => window.edState.readOnly === true);
    // Asking to edit again at the cap keeps it read-only and says so once more.
    const info = await second.evaluate(() => (window as any).demo.editor.setReadOnly(false));
    expect(info).toMatchObject({ mode: "view", requestedMode: "edit", limited: true });
    await waitEvent(second, "onLimitReached", 2);
    await first.close();
    await second.close();
  }, scaled(90_000));
});
