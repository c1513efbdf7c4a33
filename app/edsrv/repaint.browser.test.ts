// The screen is always true (issue 12, item 2): what the engine changes is repainted in every view.
// LibreOffice 7.4 invalidates only the edited row of a sheet, not the cells and charts that depend
// on it; a SUM kept its old value on screen while the file was right. The kit now repaints every
// sheet when a cell's content changes. A chart redrawn with new data was reported to the editing
// view only: the kit sends a sheet's invalidations to every view.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { scaled, until } from "../testing/until";
import { allTilesDrawn, edState, settled } from "./testing/chromium";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** tika_charts.xlsx (B2:B9 monthly numbers and a chart of them in H13:N27) with B20 = SUM(B2:B9). */
function sumAndChartWorkbook(): Uint8Array {
  const files = unzipSync(readFileSync(path.join("/work/shared/corpus/xlsx/tika_charts.xlsx")));
  const sheet = strFromU8(files["xl/worksheets/sheet1.xml"]!);
  // Row 20: on another tile row than the edited cell (a tile repainted for the edit shows no
  // dependent), and within the view under the editor's toolbars.
  const withSum = sheet.replace("</sheetData>", '<row r="20"><c r="B20"><f>SUM(B2:B9)</f></c></row></sheetData>');
  if (withSum === sheet) throw new Error("fixture: no sheetData");
  files["xl/worksheets/sheet1.xml"] = strToU8(withSum);
  return zipSync(files);
}

type Box = { x: number; y: number; w: number; h: number }; // canvas pixels

/** A digest of a box of the view's canvas. */
const boxHash = (frame: Frame, b: Box) =>
  frame.evaluate((b) => {
    const c = document.getElementById("canvas") as HTMLCanvasElement;
    const d = c.getContext("2d")!.getImageData(b.x, b.y, b.w, b.h).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i]! + (d[i + 1]! << 8) + (d[i + 2]! << 16)) | 0;
    return h;
  }, b);

/** The RGB values of a box of the view's canvas. */
const boxPixels = (frame: Frame, b: Box) =>
  frame.evaluate((b) => Array.from((document.getElementById("canvas") as HTMLCanvasElement).getContext("2d")!.getImageData(b.x, b.y, b.w, b.h).data), b);
/**
 * How many pixels of two boxes differ by more than anti-aliasing does: LibreOffice smooths a
 * chart's edges differently depending on where a paint starts, so a view that repainted a chart
 * and a fresh view differ in about 800 edge pixels of this chart, by at most 20 (the three channels'
 * differences added up); another chart differs by hundreds in thousands of pixels.
 */
function differing(p: number[], q: number[], tolerance = 0): number {
  let n = 0;
  for (let i = 0; i < p.length; i += 4) if (Math.abs(p[i]! - q[i]!) + Math.abs(p[i + 1]! - q[i + 1]!) + Math.abs(p[i + 2]! - q[i + 2]!) > tolerance) n++;
  return n;
}
const ANTI_ALIASING = 60;

/** Moves the cell cursor with keys to `cell` and answers its box on the canvas (the view is not scrolled). */
async function cellBox(page: Page, frame: Frame, keys: string[], cell: string): Promise<Box> {
  for (const k of keys) await page.keyboard.press(k);
  await frame.waitForFunction((c) => (document.getElementById("address") as HTMLInputElement).value === c, cell, { polling: 25, timeout: scaled(30_000) });
  // Each arrow key is a command the engine runs in turn, and the address may come before the
  // cursor's last move: the cursor is read once the engine has nothing more to say.
  await settled(frame);
  const r = (await edState(frame)).cellCursor!;
  return { x: Math.round(r.x / 15) + 2, y: Math.round(r.y / 15) + 2, w: Math.round(r.w / 15) - 4, h: Math.round(r.h / 15) - 4 };
}

/**
 * Resolves with the ms it took until the box's pixels differ from `before` (rejects after `ms`).
 * How fast is the benchmarks' business (bench:edsrv); the tests only ask that it happens without
 * the page doing anything, so the bound is far past what a loaded CI machine needs.
 */
async function changes(frame: Frame, box: Box, before: number, ms = REPAINT_BOUND_MS): Promise<number> {
  const t0 = Date.now();
  await until(() => boxHash(frame, box), (h) => h !== before, `the box ${JSON.stringify(box)} repainted (its digest other than ${before})`, ms);
  return Date.now() - t0;
}

const REPAINT_BOUND_MS = 10_000;
/** A person clicking quickly through sheet tabs: a click every 30 ms or so. */
const CLICK_PACE_MS = 30;

describe("the screen follows the document", () => {
  test("changing a cell repaints the SUM that depends on it, in the editing view and in a second view, with no scroll or new view", async () => {
    const f = env.newFile("sum-chart.xlsx", sumAndChartWorkbook());
    const [ca, cb] = await Promise.all([env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    const b = await env.openEditor(cb, f.src, "tok_bob");
    await a.frame.focus("#ime");
    // B20 (the SUM), found with Alice's cell cursor.
    const sum = await cellBox(a.page, a.frame, ["Control+Home", ...Array(19).fill("ArrowDown"), "ArrowRight"], "B20");
    await cellBox(a.page, a.frame, ["Control+Home", "ArrowDown", "ArrowRight"], "B2");
    // The digests before the edit are of the screens as the engine left them: a late paint taken
    // for the edit's would pass the test without the repaint it is about.
    await Promise.all([settled(a.frame), settled(b.frame)]);
    const before = { a: await boxHash(a.frame, sum), b: await boxHash(b.frame, sum) };

    await a.page.keyboard.type("500");
    await a.page.keyboard.press("Enter");
    await Promise.all([changes(a.frame, sum, before.a), changes(b.frame, sum, before.b)]);
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(60_000));

  test("changing a cell repaints the chart that depends on it, in the editing view and in a second view, as a fresh view paints it", async () => {
    const f = env.newFile("sum-chart.xlsx", sumAndChartWorkbook());
    const contexts = await Promise.all([env.browser.newContext(), env.browser.newContext(), env.browser.newContext()]);
    const scrolledRight = async (frame: Frame) => {
      await frame.evaluate(() => (document.getElementById("viewport")!.scrollLeft = 400));
      await settled(frame);
    };
    // The chart (H13:N27, a pie of B2:B9) starts at the right edge of Alice's first screen; Bob,
    // scrolled right, sees all of it.
    const a = await env.openEditor(contexts[0]!, f.src, "tok_alice");
    const b = await env.openEditor(contexts[1]!, f.src, "tok_bob");
    await Promise.all([settled(a.frame), scrolledRight(b.frame)]);
    // Boxes within every view's canvas: a view whose tabs take a row of their own (a modified
    // document with three people at this width) has a canvas 465 px high, a fresh one 504.
    const edge = { x: 750, y: 270, w: 190, h: 180 }, chart = { x: 350, y: 270, w: 520, h: 180 };
    const before = { a: await boxHash(a.frame, edge), b: await boxHash(b.frame, chart) };
    await a.frame.focus("#ime");
    await a.page.keyboard.press("Control+Home");
    await a.page.keyboard.press("ArrowDown");
    await a.page.keyboard.press("ArrowRight");
    await a.frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value === "B2", undefined, { polling: 25, timeout: scaled(30_000) });
    await a.page.keyboard.type("500");
    await a.page.keyboard.press("Enter");
    // LibreOffice redraws the chart on its own timer, about 0.6 s after the change (measured).
    await Promise.all([changes(a.frame, edge, before.a), changes(b.frame, chart, before.b)]);

    // Both show the new data: a view opened now paints the same chart, but for anti-aliasing
    // (see differing); "the same" is judged against what is drawn.
    // On a loaded machine LibreOffice's chart timer can fire after the views settled: the views
    // are compared until they agree (or 10 s pass), never the other way round.
    await Promise.all([scrolledRight(a.frame), settled(b.frame)]);
    const c = await env.openEditor(contexts[2]!, f.src, "tok_carol");
    await scrolledRight(c.frame);
    // Three boxes of pixels out of the browser a read: polled every 300 ms, not 25.
    const { apart, drawn } = await until(
      async () => {
        const fresh = await boxPixels(c.frame, chart);
        const drawn = differing(fresh, fresh.map((v, i) => (i % 4 === 3 ? v : 255))); // the box's pixels that are not white
        return { apart: [differing(await boxPixels(a.frame, chart), fresh, ANTI_ALIASING), differing(await boxPixels(b.frame, chart), fresh, ANTI_ALIASING)], drawn };
      },
      (s) => s.apart.every((d) => d * 20 < s.drawn),
      "Alice's and Bob's charts as a fresh view paints it (fewer than 1 in 20 of its drawn pixels apart)",
      10_000,
      300,
    );
    for (const d of apart) expect(d * 20, `${d} of ${drawn} drawn pixels apart`).toBeLessThan(drawn);
    await Promise.all(contexts.map((x) => x.close()));
  }, scaled(60_000));


  // The server answers a tile request whose version a push already carried with nothing; the page
  // waited for a reply of its own, and a tile awaited is never asked for again: when the push
  // arrived while the tile's previous answer was still being decoded, that place of the sheet
  // stayed as it was, whatever changed there later (the chart test above waited for it for good
  // on a loaded machine). Switching sheets faster than their tiles come makes that race frequent.
  test("every tile asked for is answered or given up, also when sheets are switched faster than their tiles come", async () => {
    const f = env.newFile("sheets.xlsx", readFileSync("/work/shared/corpus/xlsx/sheetjs_formula_stress_test.xlsx"));
    const ctx = await env.browser.newContext();
    const { frame } = await env.openEditor(ctx, f.src, "tok_alice");
    await allTilesDrawn(frame);
    const sheets = await frame.$$eval("#parts button", (bs) => bs.length);
    expect(sheets).toBe(10);
    for (let round = 0; round < 3; round++)
      for (let i = 1; i < sheets; i++) {
        await frame.click(`#parts button[data-part="${i}"]`);
        // The pace of a person clicking through the tabs: input, not a wait for anything (nothing
        // here needs the switch done; the test is that switches come faster than tiles).
        await Bun.sleep(CLICK_PACE_MS);
      }
    await allTilesDrawn(frame, 20_000);
    const seen = await frame.evaluate(() => { const S = window.edState; return { errors: S.errors, drawn: S.tilesDrawn, requested: S.tilesRequested }; });
    expect(seen.errors).toEqual([]);
    expect(seen.drawn).toBe(seen.requested); // answered exactly once each: the count is exact
    await ctx.close();
  }, scaled(60_000));

  // Typed at automation speed, tiles of one place arrive in quick succession; decoded in parallel,
  // an older one could finish last and cover the newer (seen in the keystroke benchmark: a line
  // kept without its last characters). Tiles of one place are now applied in the order they came.
  // The race is timing-dependent and does not show on every run; the test guards the property.
  /** hello.docx opened by Alice, the caret at the end of its first paragraph; Bob's context for a fresh view later. */
  async function typingAtLineEnd() {
    const f = env.newFile("hello.docx");
    const [ca, cb] = await Promise.all([env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    await a.frame.focus("#ime");
    await a.page.keyboard.press("End");
    return { f, a, ca, cb };
  }
  /** Once the engine has settled: the screen's digest in the typing view, and in a fresh view opened now. */
  async function typedAndFresh(a: { frame: Frame }, cb: BrowserContext, src: string) {
    // LibreOffice spell-checks and lays out what was typed on its idle timers, after the keys.
    await settled(a.frame, { quietMs: 500 });
    const b = await env.openEditor(cb, src, "tok_bob");
    // A second view joining is news to the first one too.
    await Promise.all([settled(a.frame, { quietMs: 500 }), settled(b.frame, { quietMs: 500 })]);
    const screen = { x: 0, y: 0, w: 700, h: 400 };
    return { typed: await boxHash(a.frame, screen), fresh: await boxHash(b.frame, screen) };
  }

  test("after typing at full speed the screen shows exactly what a fresh view of the document shows", async () => {
    const { f, a, ca, cb } = await typingAtLineEnd();
    await a.page.keyboard.type("x".repeat(50) + " typed at full speed " + "y".repeat(30));
    const { typed, fresh } = await typedAndFresh(a, cb, f.src);
    expect(typed).toBe(fresh);
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(60_000));

  /** A person's pace: words, new lines and deletions one key at a time (lines added and removed, characters deleted). */
  async function linesAndDeletions(page: Page) {
    await page.keyboard.type(" one", { delay: 40 });
    await page.keyboard.press("Enter");
    await page.keyboard.type("second line", { delay: 40 });
    for (let i = 0; i < 4; i++) await page.keyboard.press("Backspace", { delay: 40 });
    await page.keyboard.press("Enter");
    await page.keyboard.type("third", { delay: 40 });
  }

  // The page is sent only the band of rows an edit changed in a tile it holds (tile deltas), and
  // the caret waits for the tiles of an edit before it moves: lines added and removed, characters
  // deleted, each band laid on the copy it was made for, must still give the document's pixels.
  test("tile deltas: after typing, new lines and deletions one key at a time the screen shows exactly what a fresh view shows", async () => {
    const { f, a, ca, cb } = await typingAtLineEnd();
    const received = await a.frame.evaluate(() => window.edState.received.invalidatetiles ?? 0);
    await linesAndDeletions(a.page);
    await a.page.keyboard.press("ArrowUp");
    await a.page.keyboard.type("!", { delay: 40 });
    const { typed, fresh } = await typedAndFresh(a, cb, f.src);
    expect(await a.frame.evaluate(() => window.edState.tileDeltas)).toBeGreaterThan(10);
    expect(await a.frame.evaluate(() => window.edState.received.invalidatetiles)).toBeGreaterThan(received);
    expect(typed).toBe(fresh);
    // The caret shown is where the engine put it.
    const caret = await a.frame.evaluate(() => { const S = window.edState, el = document.getElementById("cursor")!; return { engine: Math.round(S.cursor!.x / 15), shown: Math.round(parseFloat(el.style.left)) }; });
    expect(caret.shown).toBe(caret.engine);
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(60_000));

  // LibreOffice 25.2 tells the other views "the whole document" for each change; the kit tells them
  // the rectangles the typing view was told instead (workers/kit/callbacks.ts, wholeDocumentStandIns):
  // they must be enough for the other person's screen to follow.
  test("another person's screen follows their typing: Bob's screen shows exactly what a fresh view shows after Alice typed", async () => {
    const f = env.newFile("hello.docx");
    const [ca, cb, cc] = await Promise.all([env.browser.newContext(), env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    const b = await env.openEditor(cb, f.src, "tok_bob");
    await Promise.all([settled(a.frame), settled(b.frame)]);
    await a.frame.focus("#ime");
    await a.page.keyboard.press("End");
    await linesAndDeletions(a.page);
    await Promise.all([settled(a.frame, { quietMs: 500 }), settled(b.frame, { quietMs: 500 })]);
    const c = await env.openEditor(cc, f.src, "tok_bob");
    await Promise.all([settled(b.frame, { quietMs: 500 }), settled(c.frame, { quietMs: 500 })]);
    const screen = { x: 0, y: 0, w: 700, h: 400 };
    expect(await boxHash(b.frame, screen)).toBe(await boxHash(c.frame, screen));
    await Promise.all([ca.close(), cb.close(), cc.close()]);
  }, scaled(60_000));
});
