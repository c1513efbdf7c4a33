// Phones and tablets (issue 23 item 3), in Chromium's device emulation with touch events, through
// the demo, Caddy, the gate and the editing server: the editor takes the screen, a tap places the
// caret and the keyboard types and saves, a long press asks for the context menu, two fingers
// pinch to zoom, a swipe goes to the next slide.

import { describe, expect, test } from "bun:test";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { LONG_PRESS_MS } from "../edsrv/browser/editor/gestures";
import { docxText } from "../testing/office-files";
import { scaled } from "../testing/until";
import type { BrowserContext, CDPSession, Frame, Page } from "playwright-core";
import { useDemoStack } from "./testing";

const demo = useDemoStack();

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const TABLET = { viewport: { width: 820, height: 1180 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

const editorFrame = (page: Page): Frame => page.frames().find((f) => f.url().includes("/ed.html"))!;

async function openOn(device: typeof PHONE, sample: string): Promise<{ context: BrowserContext; page: Page; frame: Frame; cdp: CDPSession }> {
  const context = await demo().browser.newContext(device);
  const page = await context.newPage();
  await page.goto(`${demo().caddy.url}/svc/demo?sample=${sample}`);
  await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onDocumentLoaded"), undefined, { timeout: scaled(60_000) });
  const frame = editorFrame(page);
  await frame.waitForFunction(() => window.edState.firstPaintAt > 0 && window.edState.tilesDrawn >= window.edState.tilesRequested);
  return { context, page, frame, cdp: await context.newCDPSession(page) };
}

/** The canvas's place on the page (the editor's iframe included). */
async function canvasBox(page: Page) {
  const box = await editorFrame(page).locator("#canvas").boundingBox();
  return box!;
}

type Point = { x: number; y: number };
const touch = (cdp: CDPSession, type: "touchStart" | "touchMove" | "touchEnd", points: Point[]) =>
  cdp.send("Input.dispatchTouchEvent", { type, touchPoints: points.map((p, id) => ({ x: p.x, y: p.y, id })) });

/**
 * A finger held down at `at` for a long press, then lifted. The hold is the gesture itself (input,
 * as a person's finger stays down), not a wait for the page: as long as the editor's threshold and
 * a margin for its timer to run on a busy machine (a longer hold is still a long press).
 */
async function longPress(cdp: CDPSession, at: Point): Promise<void> {
  await touch(cdp, "touchStart", [at]);
  await Bun.sleep(LONG_PRESS_MS + scaled(350));
  await touch(cdp, "touchEnd", []);
}

describe("phones and tablets", () => {
  for (const [name, device] of [["390x844 phone", PHONE], ["820x1180 tablet", TABLET]] as const) {
    test(`on a ${name} the editor takes the screen's width; a tap places the caret, typing and saving work`, async () => {
      const { context, page, frame } = await openOn(device, "docx");
      const box = await canvasBox(page);
      expect(box.width).toBeGreaterThan(device.viewport.width - 50);
      expect(box.height).toBeGreaterThan(400);
      // A tap a little right of the caret on its line: the caret moves there, and the keyboard types into the document.
      const cursorBefore = await frame.evaluate(() => window.edState.cursor);
      const sizer = (await frame.locator("#sizer").boundingBox())!;
      const tpp = await frame.evaluate(() => (window as any).edApi.zoom());
      await page.touchscreen.tap(sizer.x + cursorBefore!.x / tpp + 30, sizer.y + (cursorBefore!.y + cursorBefore!.h / 2) / tpp);
      await frame.waitForFunction((b) => JSON.stringify(window.edState.cursor) !== b, JSON.stringify(cursorBefore));
      expect(await frame.evaluate(() => document.activeElement?.id)).toBe("ime");
      await page.keyboard.type("Touch typed ");
      await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onModified"));
      const saved = await page.evaluate(() => (window as any).demo.editor.save());
      expect(docxText(new Uint8Array(await (await fetch(saved.url)).arrayBuffer()))).toContain("Touch typed");
      await context.close();
    }, scaled(120_000));
  }

  test("on a phone the editor fits the demo's screen: the tools row whole with Bold and Italic in it, the status bar one line (issue 45)", async () => {
    const { context, page, frame } = await openOn(PHONE, "docx");
    // The editor's frame ends on the screen, without the host page scrolling.
    const frameBox = await page.evaluate(() => { const r = document.querySelector("#editor iframe")!.getBoundingClientRect(); return { bottom: r.bottom, screen: window.innerHeight, scrolled: window.scrollY }; });
    expect(frameBox.bottom).toBeLessThanOrEqual(frameBox.screen);
    expect(frameBox.scrolled).toBe(0);
    const layout = await frame.evaluate(() => {
      const H = window.innerHeight, box = (s: string) => document.querySelector(s)!.getBoundingClientRect();
      const shown = (s: string) => { const e = document.querySelector(s)!; const r = e.getBoundingClientRect(); return !e.closest("#tb-more-menu") && r.width > 0 && r.top >= 0 && r.bottom <= H && r.right <= window.innerWidth; };
      const bar = document.getElementById("statusbar")!;
      const tops = [...bar.children].filter((c) => c.getClientRects().length && c.textContent).map((c) => Math.round(c.getBoundingClientRect().top));
      return {
        ribbonWhole: box("#ribbon").bottom <= H, statusWhole: box("#statusbar").bottom <= H,
        bold: shown('[data-cmd=".uno:Bold"]'), italic: shown('[data-cmd=".uno:Italic"]'),
        statusLines: new Set(tops).size, statusFits: bar.scrollWidth <= bar.clientWidth + 1,
      };
    });
    expect(layout).toEqual({ ribbonWhole: true, statusWhole: true, bold: true, italic: true, statusLines: 1, statusFits: true });
    await page.screenshot({ path: path.resolve(import.meta.dir, "../../docs/img/phone-text.png") });
    await context.close();
  }, scaled(120_000));

  test("Vietnamese Telex from the phone's on-screen keyboard (IME composition) lands in the saved file", async () => {
    const { context, page, frame, cdp } = await openOn(PHONE, "docx");
    const box = await canvasBox(page);
    await page.touchscreen.tap(box.x + box.width / 2, box.y + 30);
    await frame.waitForFunction(() => document.activeElement?.id === "ime");
    await page.keyboard.press("Control+Home");
    for (const t of ["V", "Vi", "Vie", "Viê", "Việ", "Việt"]) await cdp.send("Input.imeSetComposition", { text: t, selectionStart: t.length, selectionEnd: t.length });
    await cdp.send("Input.insertText", { text: "Việt" });
    await page.keyboard.type(" ");
    await frame.waitForFunction(() => window.edState.compositions >= 1);
    await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onModified"));
    const saved = await page.evaluate(() => (window as any).demo.editor.save());
    expect(docxText(new Uint8Array(await (await fetch(saved.url)).arrayBuffer())).normalize("NFC")).toStartWith("Việt ");
    await context.close();
  }, scaled(120_000));

  test("on a phone a sheet's cell is edited through the formula bar", async () => {
    const { context, page, frame } = await openOn(PHONE, "xlsx");
    await page.touchscreen.tap(...(await (async () => { const b = (await frame.locator("#formula").boundingBox())!; return [b.x + b.width / 2, b.y + b.height / 2] as const; })()));
    await frame.waitForFunction(() => document.activeElement?.id === "formula");
    await frame.fill("#formula", "4242");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onModified"));
    const saved = await page.evaluate(() => (window as any).demo.editor.save());
    const sheet = strFromU8(unzipSync(new Uint8Array(await (await fetch(saved.url)).arrayBuffer()))["xl/worksheets/sheet1.xml"]!);
    expect(sheet).toContain("4242");
    await context.close();
  }, scaled(120_000));

  test("a long press asks the engine for its context menu, shown at the finger", async () => {
    const { context, page, frame, cdp } = await openOn(PHONE, "docx");
    const box = await canvasBox(page);
    const at = { x: box.x + 80, y: box.y + 40 };
    await longPress(cdp, at);
    await frame.waitForFunction(() => (window.edState.received.contextmenu ?? 0) > 0, undefined, { timeout: scaled(10_000) });
    await context.close();
  }, scaled(120_000));

  test("a long press on a word selects it with two handles; dragging the end handle extends the selection", async () => {
    const { context, page, frame, cdp } = await openOn(PHONE, "docx");
    const sizer = (await frame.locator("#sizer").boundingBox())!;
    const tpp = await frame.evaluate(() => (window as any).edApi.zoom());
    const caret = await frame.evaluate(() => window.edState.cursor);
    // The first word of the first line ("Hello").
    const word = { x: sizer.x + caret!.x / tpp + 12, y: sizer.y + (caret!.y + caret!.h / 2) / tpp };
    await longPress(cdp, word);
    await frame.waitForFunction(() => window.edState.selection.length > 0);
    await frame.waitForFunction(() => [...document.querySelectorAll(".selhandle")].every((h) => !(h as HTMLElement).hidden));
    const width = () => frame.evaluate(() => window.edState.selection.reduce((w: number, r: any) => w + r.w, 0));
    // The long press also opened the context menu: closed first, as a person taps it away.
    await frame.waitForFunction(() => (window.edState.received.contextmenu ?? 0) > 0);
    await page.keyboard.press("Escape");
    const before = await width();
    const end = (await frame.locator(".selhandle-end").boundingBox())!;
    const from = { x: end.x + end.width / 2, y: end.y + end.height / 2 };
    await touch(cdp, "touchStart", [from]);
    for (let i = 1; i <= 6; i++) await touch(cdp, "touchMove", [{ x: from.x + i * 12, y: from.y }]);
    await touch(cdp, "touchEnd", []);
    await frame.waitForFunction((b) => window.edState.selection.reduce((w: number, r: any) => w + r.w, 0) > b * 1.3, before);
    await context.close();
  }, scaled(120_000));

  test("two fingers pinch to zoom: spread apart, the document is drawn larger", async () => {
    const { context, page, frame, cdp } = await openOn(TABLET, "docx");
    const box = await canvasBox(page);
    const widthBefore = await frame.evaluate(() => document.getElementById("sizer")!.offsetWidth);
    const mid = { x: box.x + box.width / 2, y: box.y + 200 };
    await touch(cdp, "touchStart", [{ x: mid.x - 40, y: mid.y }, { x: mid.x + 40, y: mid.y }]);
    for (let d = 50; d <= 120; d += 10) await touch(cdp, "touchMove", [{ x: mid.x - d, y: mid.y }, { x: mid.x + d, y: mid.y }]);
    await touch(cdp, "touchEnd", []);
    await frame.waitForFunction(() => (window.edState.pinches ?? 0) > 0);
    const widthAfter = await frame.evaluate(() => document.getElementById("sizer")!.offsetWidth);
    expect(widthAfter / widthBefore).toBeGreaterThan(1.8);
    await context.close();
  }, scaled(120_000));

  test("a swipe across a slide goes to the next slide, and back; the slide has the phone's width (no slide panel)", async () => {
    const { context, page, frame, cdp } = await openOn(PHONE, "pptx");
    expect(await frame.evaluate(() => document.getElementById("viewport")!.clientWidth)).toBeGreaterThan(340);
    const parts = await frame.evaluate(() => window.edState.status!.parts);
    expect(parts).toBeGreaterThan(1);
    const box = await canvasBox(page);
    const swipe = async (from: number, to: number) => {
      const y = box.y + Math.min(150, box.height / 3);
      await touch(cdp, "touchStart", [{ x: from, y }]);
      for (let i = 1; i <= 5; i++) await touch(cdp, "touchMove", [{ x: from + ((to - from) * i) / 5, y }]);
      await touch(cdp, "touchEnd", []);
    };
    await swipe(box.x + box.width - 30, box.x + 30);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    await swipe(box.x + 30, box.x + box.width - 30);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 0);
    await context.close();
  }, scaled(120_000));
});
