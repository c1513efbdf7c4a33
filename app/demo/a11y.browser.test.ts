// Keyboard and screen readers (issue 23 item 4): axe-core finds no serious or critical violation
// on the demo and on the editor of each family; F6 cycles toolbar → document → status bar; the
// document says in a live region what is under the caret.

import { describe, expect, test } from "bun:test";
import type { Frame, Page } from "playwright-core";
import { useDemoStack } from "./testing";
import { seriousViolations } from "../testing/axe";
import { scaled } from "../testing/until";

const demo = useDemoStack();

const editorFrame = (page: Page): Frame => page.frames().find((f) => f.url().includes("/ed.html"))!;

async function openDemo(sample: string, lang = "en"): Promise<{ page: Page; frame: Frame; close: () => Promise<void> }> {
  const context = await demo().browser.newContext({ bypassCSP: true, viewport: { width: 1400, height: 900 }, locale: lang });
  const page = await context.newPage();
  await page.goto(`${demo().caddy.url}/svc/demo?sample=${sample}`);
  await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onDocumentLoaded"), undefined, { timeout: scaled(60_000) });
  const frame = editorFrame(page);
  await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
  return { page, frame, close: () => context.close() };
}

describe("accessibility (axe-core, WCAG 2.1 AA)", () => {
  for (const sample of ["docx", "xlsx", "pptx"]) {
    test(`no serious or critical violation on the demo and in the ${sample} editor`, async () => {
      const { page, frame, close } = await openDemo(sample);
      const found = { demo: await seriousViolations(page), editor: await seriousViolations(frame) };
      expect(found).toEqual({ demo: [], editor: [] });
      await close();
    }, scaled(120_000));
  }
});

describe("keyboard", () => {
  test("F6 cycles toolbar → document → status bar → toolbar, Shift+F6 goes back", async () => {
    const { page, frame, close } = await openDemo("docx");
    await frame.focus("#ime");
    const region = () => frame.evaluate(() => {
      const a = document.activeElement!;
      return a.id === "ime" ? "document" : a.closest("#statusbar") ? "statusbar" : a.closest("#ribbon, #toolbar") ? "toolbar" : a.id || a.tagName;
    });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("F6");
      seen.push(await region());
    }
    expect(seen).toEqual(["statusbar", "toolbar", "document"]);
    await page.keyboard.press("Shift+F6");
    expect(await region()).toBe("toolbar");
    await close();
  }, scaled(120_000));
});

describe("screen readers", () => {
  test("the live region says the cell under the cell cursor and what it holds", async () => {
    const { page, frame, close } = await openDemo("xlsx");
    await frame.focus("#ime");
    await page.keyboard.press("Control+Home");
    await frame.waitForFunction(() => /^A1: /.test(document.getElementById("announce")?.textContent ?? ""));
    await page.keyboard.press("ArrowRight");
    await frame.waitForFunction(() => /^B1: /.test(document.getElementById("announce")?.textContent ?? ""));
    expect(await frame.getAttribute("#announce", "aria-live")).toBe("polite");
    await close();
  }, scaled(120_000));
});
