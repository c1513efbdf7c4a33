// The editor with no dead ends (issue 45, layout): every tab and toolbar command reachable at every
// width from 320 px to 1920 px, in both languages and with several people shown; a phone's editor
// fits its frame with the common tools in the visible row and a one-line status bar; Special
// Characters does not clip its content; axe-core finds no serious or critical violation on the
// main screen and with the sidebar shown. Real editing server, real kits, Debian's Chromium.
import { describe, expect, test } from "bun:test";
import path from "node:path";
import type { Frame, Page } from "playwright-core";
import { editorEnvPerFile } from "./testing/editor-env";
import { control, modified, showTabOf } from "./testing/interface";
import { seriousViolations } from "../testing/axe";
import { scaled } from "../testing/until";

const env = editorEnvPerFile();
const IMG = path.resolve(import.meta.dir, "../../docs/img");

/**
 * The host page's frame as large as the browser's window (the test host page caps it at 1000×700),
 * less `aside` px at its right (the demo's panel of 380 px and its padding: 396).
 */
async function frameFillsWindow(page: Page, frame: Frame, width: number, height: number, aside = 0): Promise<void> {
  await page.setViewportSize({ width, height });
  await page.evaluate((a) => { Object.assign(document.getElementById("ed")!.style, { width: `calc(100vw - ${a}px)`, height: "100vh", display: "block" }); }, aside);
  await frame.waitForFunction((w) => window.innerWidth === w, width - aside, { polling: 25 });
  // The interface lays its rows out on the frame after a resize: two frames later it has.
  await frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Alice (in `lang`, the document modified) with Bob in the same document: two people shown. */
async function twoPeople(fixture: string, lang: string, width: number, height: number, aside = 0) {
  const f = env.newFile(fixture);
  const ctxB = await env.browser.newContext({ viewport: { width: 1000, height: 700 } });
  await env.openEditor(ctxB, f.src, "tok_bob", `lang=${lang}`);
  const ctx = await env.browser.newContext({ viewport: { width, height }, bypassCSP: true });
  const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice", `lang=${lang}`);
  await frame.waitForFunction(() => document.querySelectorAll("#people .person").length === 2, undefined, { polling: 50 });
  await frame.focus("#ime");
  await page.keyboard.type("x");
  await modified(frame);
  await frameFillsWindow(page, frame, width, height, aside);
  return { page, frame, close: async () => { await ctx.close(); await ctxB.close(); } };
}

/**
 * What cannot be reached on the screen as laid out now: a tab, a toolbar command (on each tab,
 * visible or in the "more" menu whose button is visible), undo, redo, save, find, download, print
 * (visible, or in the phone's actions sheet). Visible: inside the window and inside every ancestor
 * that clips it, unless that ancestor scrolls.
 */
function unreachable(frame: Frame): Promise<string[]> {
  return frame.evaluate(() => {
    const W = window.innerWidth, H = window.innerHeight;
    const seen = (e: Element): boolean => {
      if (!e.getClientRects().length) return false;
      const r = e.getBoundingClientRect();
      if (r.width < 1 || r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) return false;
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === "visible" && s.overflowY === "visible") continue;
        if (/auto|scroll/.test(s.overflowX + s.overflowY)) continue;
        const q = a.getBoundingClientRect();
        if (r.left < q.left - 0.5 || r.right > q.right + 0.5 || r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5) return false;
      }
      // Its text whole (a tab cut to "Vie" is not reached).
      return (e as HTMLElement).scrollWidth <= (e as HTMLElement).clientWidth + 1;
    };
    const more = document.querySelector('[data-cmd="more"]')!, actions = document.querySelector('[data-cmd="actions"]');
    const reached = (e: Element) =>
      e.closest("#tb-more-menu") ? seen(more) : e.closest(".tb-quick") && document.body.classList.contains("phone") ? !!actions && seen(actions) : seen(e);
    const lost = new Set<string>();
    const name = (e: Element) => e.getAttribute("data-cmd") ?? e.id;
    // Controls the session shows: not hidden themselves nor inside a closed menu of their own.
    const commands = () => [...document.querySelectorAll("#ribbon [data-cmd], #tb-more-menu [data-cmd]")].filter((e) =>
      !e.closest("[hidden]:not(.tb-panel):not(#tb-more-menu)") && !e.closest(".tb-popup:not(#tb-more-menu)") && name(e) !== "more");
    const compact = document.getElementById("ribbon")!.classList.contains("compact");
    const tabs = [...document.querySelectorAll<HTMLElement>(".tb-tab")].filter((t) => !t.hidden);
    for (const tab of compact ? [null] : tabs) {
      if (tab && !seen(tab)) lost.add("tab:" + tab.dataset.tab);
      tab?.click();
      const panel = tab ? document.getElementById("panel-" + tab.dataset.tab)! : null;
      for (const c of commands()) {
        if (panel && !panel.contains(c) && !c.closest("#tb-more-menu")) continue;
        if (!reached(c)) lost.add(`${tab?.dataset.tab ?? "compact"}:${name(c)}`);
      }
    }
    tabs[0]?.click();
    for (const c of document.querySelectorAll("#undo, #redo, #save, .tb-quick [data-cmd], #download")) if (!reached(c)) lost.add(name(c));
    return [...lost];
  });
}

describe("the tab row and the toolbars reach every command", () => {
  test("in the demo at 1366 px in Vietnamese, the document modified and two people shown, the View tab is whole and opens its row", async () => {
    // The demo's editor beside its 380 px panel: a 970 px frame.
    const { page, frame, close } = await twoPeople("hello.docx", "vi", 1366, 768, 396);
    expect(await frame.isVisible("#modified")).toBe(true);
    expect(await unreachable(frame)).toEqual([]);
    await frame.click('.tb-tab[data-tab="view"]');
    expect(await frame.isVisible(control("zoomin"))).toBe(true);
    await frame.click('.tb-tab[data-tab="home"]');
    await page.screenshot({ path: path.join(IMG, "tabs-1366-vi.png"), clip: { x: 0, y: 0, width: 970, height: 768 } });
    await close();
  }, scaled(90_000));

  for (const lang of ["vi", "en"]) {
    test(`every tab and command is reachable at 320, 768, 1024, 1366 and 1920 px (${lang}, two people)`, async () => {
      const { page, frame, close } = await twoPeople("hello.docx", lang, 1366, 800);
      const lost: Record<number, string[]> = {};
      for (const width of [320, 768, 1024, 1366, 1920]) {
        await frameFillsWindow(page, frame, width, 800);
        lost[width] = await unreachable(frame);
      }
      expect(lost).toEqual({ 320: [], 768: [], 1024: [], 1366: [], 1920: [] });
      await close();
    }, scaled(120_000));
  }
});

describe("dialogs and panels do not clip, every button has a name", () => {
  test("axe-core finds no serious or critical violation on the main screen nor with the sidebar shown, which makes room beside the document", async () => {
    const { page, frame, close } = await twoPeople("hello.docx", "vi", 1366, 800);
    const found: Record<string, unknown> = { main: await seriousViolations(frame) };
    await showTabOf(frame, "sidebar");
    await frame.click(control("sidebar"));
    await frame.locator("#sidebar .jsd-panel").first().waitFor();
    // LibreOffice fills the deck panel by panel: until its content stops changing.
    await frame.waitForFunction(() => document.querySelectorAll("#sidebar button").length > 5, undefined, { polling: 50 });
    found.sidebar = await seriousViolations(frame);
    // Nothing of the sidebar beyond its right edge (what is, named).
    found.clipped = await frame.evaluate(() => {
      const s = document.getElementById("sidebar")!, right = s.getBoundingClientRect().left + s.clientWidth;
      return [...s.querySelectorAll("*")].filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > right + 1).map((e) => e.id || e.className || e.tagName).slice(0, 8);
    });
    found.covers = await frame.evaluate(() => document.getElementById("sidebar")!.getBoundingClientRect().left < document.getElementById("viewport")!.getBoundingClientRect().right - 1);
    expect(found).toEqual({ main: [], sidebar: [], clipped: [], covers: false });
    await page.screenshot({ path: path.join(IMG, "editor-sidebar.png"), clip: { x: 0, y: 0, width: 1366, height: 800 } });
    await close();
  }, scaled(120_000));

  test("Special Characters shows its whole content, also after a search (no column cut off, Insert in view)", async () => {
    const { page, frame, close } = await twoPeople("hello.docx", "en", 1366, 800);
    await showTabOf(frame, ".uno:CharmapControl");
    await frame.click(control(".uno:CharmapControl"));
    await frame.getByRole("menuitem", { name: "More characters…" }).click();
    const dialog = frame.locator('.jsd-dialog[data-dialog="SpecialCharactersDialog"]');
    await dialog.waitFor();
    const fits = () => dialog.evaluate((d) => {
      const b = d.querySelector(".jsd-body")!, insert = [...d.querySelectorAll("button")].find((x) => x.textContent?.trim() === "Insert")!;
      const r = insert.getBoundingClientRect(), box = d.getBoundingClientRect();
      return { bodyFits: b.scrollWidth <= b.clientWidth + 1, insertInView: r.bottom <= box.bottom + 1 && r.bottom <= window.innerHeight, closeNamed: d.querySelector(".jsd-close")!.getAttribute("aria-label") !== "✕" };
    });
    expect(await fits()).toEqual({ bodyFits: true, insertInView: true, closeNamed: true });
    await dialog.getByLabel("Search:", { exact: true }).fill("omega");
    await dialog.getByLabel("Search:", { exact: true }).press("Tab");
    await dialog.locator('[data-widget="searchcharset"]').waitFor({ state: "visible" });
    expect(await fits()).toEqual({ bodyFits: true, insertInView: true, closeNamed: true });
    await page.screenshot({ path: path.join(IMG, "dialog-special-characters.png"), clip: { x: 0, y: 0, width: 1366, height: 800 } });
    await close();
  }, scaled(120_000));
});
