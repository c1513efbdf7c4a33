// Opening feedback (issue 12, item 4): an indicator from the page's first paint until the first
// screen is drawn, and a message that says why when the document cannot be opened.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { until, scaled } from "../testing/until";
import { hostPageHtml } from "./testing/chromium";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { docxText } from "../testing/office-files";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv({ idleKits: 1 });
});
afterAll(async () => {
  await env?.close();
});

describe("opening feedback", () => {
  test("the page carries the opening indicator in its HTML, in the page's language", async () => {
    const f = env.newFile("hello.docx");
    for (const [lang, text] of [["vi-VN", "Đang mở tài liệu…"], ["en-US", "Opening the document…"]] as const) {
      const res = await fetch(`${env.ed.url}/browser/${env.ed.hash}/ed.html?WOPISrc=${encodeURIComponent(f.src)}&lang=${lang}`);
      const html = await res.text();
      expect(html).toMatch(new RegExp(`<div id="loading" role="status"[^>]*>.*${text}`));
      expect(html).toMatch(new RegExp(`<html lang="${lang.slice(0, 2)}"[ >]`));
    }
  });

  test("the indicator shows before the editor's script has run and is gone once the first screen is drawn", async () => {
    const ctx = await env.browser.newContext();
    // The editor's script held back: what the page shows meanwhile is the indicator.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await ctx.route("**/ed.js", async (route) => {
      await held;
      await route.continue();
    });
    const f = env.newFile("hello.docx");
    env.host.pages.set("loading1", hostPageHtml(env.ed.url, env.ed.hash, f.src, "tok_alice"));
    const page = await ctx.newPage();
    // Not until "load": the page's load waits for the editor frame, whose script is held.
    await page.goto(`${env.host.origin}/page/loading1`, { waitUntil: "domcontentloaded" });
    const frame = page.frameLocator("#ed");
    await frame.locator("#loading").waitFor({ state: "visible" });
    expect(await frame.locator("#loading-text").textContent()).toBe("Opening the document…");
    release();
    await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.Values?.Status === "Document_Loaded"), undefined, { polling: 25 });
    await frame.locator("#loading").waitFor({ state: "hidden" });
    const painted = await page.frames().find((fr) => fr.url().includes("/ed.html"))!.evaluate(() => window.edState.firstPaintAt);
    expect(painted).toBeGreaterThan(0);
    await ctx.close();
  }, scaled(30_000));

  // On a slow network the editor area was blank white for seconds: the indicator's look came from
  // ed.css, a stylesheet in the head that holds back the page's first frame.
  test("the indicator is drawn from the first frame: its look is in the page, no stylesheet before it", async () => {
    const f = env.newFile("hello.docx");
    const html = await (await fetch(`${env.ed.url}/browser/${env.ed.hash}/ed.html?WOPISrc=${encodeURIComponent(f.src)}`)).text();
    expect(html.indexOf('id="loading"')).toBeGreaterThan(0);
    expect(html.indexOf('rel="stylesheet"')).toBeGreaterThan(html.indexOf('id="loading"'));
    const ctx = await env.browser.newContext();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await ctx.route(/\/(ed|ui)\.css$/, async (route) => { await held; await route.continue(); });
    env.host.pages.set("loading2", hostPageHtml(env.ed.url, env.ed.hash, f.src, "tok_alice"));
    const page = await ctx.newPage();
    await page.goto(`${env.host.origin}/page/loading2`, { waitUntil: "commit" });
    const frame = page.frameLocator("#ed");
    await frame.locator("#loading .spinner").waitFor({ state: "visible" });
    // Styled while the stylesheets are still held back.
    const look = await frame.locator("#loading").evaluate((e) => { const s = getComputedStyle(e); return [s.position, s.display, getComputedStyle(e.firstElementChild!).animationName]; });
    expect(look).toEqual(["fixed", "flex", "spin"]);
    release();
    await frame.locator("#loading").waitFor({ state: "hidden" });
    await ctx.close();
  }, scaled(30_000));

  test("leaving the page ends its view at once, also when the browser keeps the page for going back", async () => {
    const ctx = await env.browser.newContext();
    const f = env.newFile("hello.docx");
    const { page } = await env.openEditor(ctx, f.src);
    const views = () => [...env.ed.brokers.values()].filter((b) => b.wopiSrc === f.src).reduce((n, b) => n + b.sessions.size, 0);
    expect(views()).toBe(1);
    // Same tab, another page (Chromium keeps the one left in its back/forward cache, socket and all).
    await page.goto("about:blank");
    await until(views, (n) => n === 0, "the file's view ended once its page was left (views open)", 5000);
    expect(views()).toBe(0);
    await ctx.close();
  }, scaled(30_000));

  test("a refused token turns the indicator into a message that says access was refused", async () => {
    const ctx = await env.browser.newContext();
    const f = env.newFile("hello.docx");
    env.host.pages.set("loading2", hostPageHtml(env.ed.url, env.ed.hash, f.src, "tok_nobody"));
    const page = await ctx.newPage();
    await page.goto(`${env.host.origin}/page/loading2`);
    await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.Values?.Status === "Failed"), undefined, { polling: 25 });
    const box = page.frameLocator("#ed").locator("#loading");
    await box.and(page.frameLocator("#ed").locator(".failed")).waitFor({ state: "visible" });
    expect(await box.getAttribute("role")).toBe("alert");
    expect(await box.textContent()).toContain("access was refused");
    expect(await box.textContent()).toContain("Reload the page to try again.");
    await ctx.close();
  }, scaled(30_000));
});

describe("reconnecting", () => {
  test("the document's engine killed while a person types: the page says it is reconnecting and refuses input meanwhile, comes back to its own view with the text and the caret, and types on", async () => {
    const ctx = await env.browser.newContext();
    const f = env.newFile("hello.docx");
    const { page, frame } = await env.openEditor(ctx, f.src);
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    await frame.focus("#ime");
    await page.keyboard.type("Before the crash ");
    await frame.waitForFunction(() => window.edState.modified);
    const broker = [...env.ed.brokers.values()].find((b) => b.wopiSrc === f.src)!;
    process.kill(broker.pid, "SIGKILL");
    await frame.waitForFunction(() => !window.edState.connected, undefined, { polling: 10 });
    expect(await frame.locator("#message").textContent()).toContain("reconnecting");
    // Typed while away: refused, and said so (never dropped in silence).
    await page.keyboard.type("x");
    expect(await frame.locator("#message").textContent()).toContain("Not sent");
    await frame.waitForFunction(() => window.edState.connected && window.edState.reconnects === 1, undefined, { timeout: scaled(30_000) });
    await frame.locator("#message").waitFor({ state: "hidden" });
    await frame.focus("#ime");
    await page.keyboard.type("and after it.");
    await page.keyboard.press("Control+s");
    await frame.waitForFunction(() => window.edState.lastSave?.success === true, undefined, { timeout: scaled(20_000) });
    const text = docxText(env.lastStored(f.id));
    expect(text).toContain("Before the crash and after it.");
    expect(text).not.toContain("crash x");
    await ctx.close();
  }, scaled(60_000));
});
