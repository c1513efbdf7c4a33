// The editor's interface in every family (issue 13, groups 4 and 5): zoom, find and replace,
// download and print through the engine, the status bar, the context menu and the people in the
// document with their colours. Read-only sessions, languages and the toolbar:
// interface-toolbar.browser.test.ts.
import { describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import type { Frame } from "playwright-core";
import { editorEnvPerFile } from "./testing/editor-env";
import { until, scaled } from "../testing/until";
import { control, modified, openFixture, press, saveAndRead, stateIs } from "./testing/interface";
import { docxText } from "../testing/office-files";

const env = editorEnvPerFile();

const open = (fixture: string, token = "tok_alice", query = "") => openFixture(env, fixture, token, query);
const zoomLabel = (frame: Frame) => frame.textContent("#zoomlevel");

describe("everywhere: viewing", () => {
  test("zoom: Ctrl+= and the buttons zoom in and out, Ctrl+0 goes back to 100 %, fit width fills the view's width", async () => {
    const { ctx, page, frame } = await open("hello.docx");
    expect(await zoomLabel(frame)).toBe("100 %");
    await page.keyboard.press("Control+Equal");
    expect(await zoomLabel(frame)).toBe("110 %");
    await press(frame, "zoomin");
    expect(await zoomLabel(frame)).toBe("125 %");
    await press(frame, "zoomout");
    await press(frame, "zoomout");
    expect(await zoomLabel(frame)).toBe("100 %");
    await page.keyboard.press("Control+Minus");
    expect(await zoomLabel(frame)).toBe("90 %");
    await page.keyboard.press("Control+0");
    expect(await zoomLabel(frame)).toBe("100 %");
    // Ctrl+wheel zooms too.
    const box = (await (await frame.frameElement()).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, -100);
    await page.keyboard.up("Control");
    await frame.waitForFunction(() => document.getElementById("zoomlevel")!.textContent === "110 %");
    // Fit width: the page's width is the view's, less a margin; the tiles are asked at that zoom.
    const drawn = await frame.evaluate(() => window.edState.tilesDrawn);
    await press(frame, "fitwidth");
    const fit = await frame.evaluate(() => ({ page: window.edState.status!.width / (window as any).edApi.zoom(), view: (window as any).edApi.viewportPx().w }));
    expect(fit.page).toBeGreaterThan(fit.view - 40);
    expect(fit.page).toBeLessThanOrEqual(fit.view);
    await frame.waitForFunction((n) => window.edState.tilesDrawn > n, drawn, { polling: 50 });
    await ctx.close();
  }, scaled(60_000));

  test("zoom: the selection, the caret, the cell cursor and other people's cursors and selections are drawn at the new scale at once", async () => {
    // Every mark is placed in CSS pixels from twips: at the new zoom each one's left, top and width
    // are the old ones times the ratio of the scales (no frame of the engine re-places them).
    const marks = (frame: Frame, selectors: string[]) =>
      frame.evaluate((sels) => ({
        tpp: (window as any).edApi.zoom() as number,
        boxes: sels.map((sel) => {
          const e = document.querySelector(sel) as HTMLElement | null;
          return e && !e.hidden ? [parseFloat(e.style.left), parseFloat(e.style.top), parseFloat(e.style.width)] : null;
        }),
      }), selectors);
    const scaledBy = (before: Awaited<ReturnType<typeof marks>>, after: Awaited<ReturnType<typeof marks>>) =>
      before.boxes.map((b, i) => (b && after.boxes[i] ? b.every((v, k) => Math.abs(v * (before.tpp / after.tpp) - after.boxes[i]![k]!) <= 1) : `mark ${i} missing`));

    const f = env.newFile("hello.docx");
    const [ca, cb] = await Promise.all([env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    const b = await env.openEditor(cb, f.src, "tok_bob");
    await a.frame.waitForFunction(() => document.querySelectorAll("#people .person").length === 2, undefined, { polling: 50 });
    const bob = await a.frame.$eval("#people .person[title='Bob']", (c) => c.getAttribute("data-view"));
    await b.frame.focus("#ime");
    await b.page.keyboard.press("Control+End");
    await b.page.keyboard.type("Bob was here");
    await b.page.keyboard.press("Shift+Home");
    await a.frame.focus("#ime");
    await a.page.keyboard.press("Shift+End");
    const selectors = ["#selection .sel", `.viewselection[data-view="${bob}"] > div`, `.viewcursor[data-view="${bob}"]`];
    await a.frame.waitForFunction((sels) => sels.every((s) => { const e = document.querySelector(s) as HTMLElement | null; return !!e && !e.hidden && parseFloat(e.style.left) > 0; }), selectors, { polling: 50 });
    const before = await marks(a.frame, selectors);
    await a.page.keyboard.press("Control+Equal");
    expect(await zoomLabel(a.frame)).toBe("110 %");
    expect(scaledBy(before, await marks(a.frame, selectors))).toEqual([true, true, true]);
    await Promise.all([ca.close(), cb.close()]);

    // A sheet's cell cursor.
    const s = await open("hello.xlsx");
    await s.page.keyboard.press("ArrowDown");
    await s.page.keyboard.press("ArrowRight");
    await s.frame.waitForFunction(() => { const e = document.getElementById("cellcursor"); return !!e && !e.hidden && parseFloat(e.style.left) > 0; }, undefined, { polling: 50 });
    const cellBefore = await marks(s.frame, ["#cellcursor"]);
    await s.page.keyboard.press("Control+Equal");
    expect(await zoomLabel(s.frame)).toBe("110 %");
    expect(scaledBy(cellBefore, await marks(s.frame, ["#cellcursor"]))).toEqual([true]);
    await s.close();
  }, scaled(60_000));

  test("on a phone (390 px): one header row whose controls never overlap, the tools in a row at the bottom, a text document fitted to the width, find, download and print in the actions sheet", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const { frame } = await env.openEditor(ctx, f.src, "tok_alice");
    await frame.waitForFunction(() => document.body.classList.contains("phone"));
    const boxes = await frame.evaluate(() => {
      const shown = (e: Element) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 ? { id: e.id || e.getAttribute("data-cmd") || e.className, left: r.left, right: r.right, top: r.top, bottom: r.bottom } : null; };
      const header = document.getElementById("toolbar")!;
      const controls = [...header.querySelectorAll("#docname, #undo, #redo, #save, .tb-actions, #people > :first-child")].map(shown).filter((b) => b !== null);
      const h = header.getBoundingClientRect();
      const v = document.getElementById("viewport")!.getBoundingClientRect();
      const ribbon = document.getElementById("ribbon")!.getBoundingClientRect();
      return { controls, header: { height: h.height, right: h.right }, width: window.innerWidth, viewportBottom: v.bottom, ribbonTop: ribbon.top, ribbonBottom: ribbon.bottom, height: window.innerHeight };
    });
    // One row, within the screen, and no two controls overlap.
    expect(boxes.header.height).toBeLessThan(52);
    expect(boxes.controls.length).toBe(6);
    for (const b of boxes.controls) expect(b!.right).toBeLessThanOrEqual(boxes.width);
    for (let i = 0; i < boxes.controls.length; i++) {
      for (let j = i + 1; j < boxes.controls.length; j++) {
        const a = boxes.controls[i]!, b = boxes.controls[j]!;
        expect([a.id, b.id, a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top]).toEqual([a.id, b.id, true]);
      }
    }
    // The tools below the document, where a thumb reaches them.
    expect(boxes.ribbonTop).toBeGreaterThanOrEqual(boxes.viewportBottom - 1);
    // No stray separators: none at the row's end, never two with nothing between.
    const row = await frame.evaluate(() => [...document.querySelectorAll<HTMLElement>("#ribbon .tb-panels *")].filter((e) => e.parentElement?.classList.contains("tb-panel") && e.getClientRects().length > 0).map((e) => (e.classList.contains("tb-sep") ? "|" : "c")).join(""));
    expect(row).not.toMatch(/\|\||\|$/);
    // The page fitted to the screen's width, yet not below a reading size (70 %; fitted, it was
    // 43 %): the rest of the page is reached by scrolling sideways.
    await frame.waitForFunction(() => Math.abs(15 / (window as any).edApi.zoom() - 0.7) < 0.01, undefined, { polling: 50 });
    expect(await frame.evaluate(() => { const v = document.getElementById("viewport")!; v.scrollLeft = 40; return v.scrollLeft > 0 && getComputedStyle(v).overflowX === "auto"; })).toBe(true);
    // The actions sheet: find, download as and print.
    await frame.tap(".tb-actions");
    await frame.waitForSelector(".tb-quick.open");
    for (const sel of ['[data-cmd="find"]', "#download", '[data-cmd="print"]']) expect(await frame.isVisible(".tb-quick.open " + sel)).toBe(true);
    await frame.tap('.tb-quick.open [data-cmd="find"]');
    await frame.waitForSelector("#findbar:not([hidden])");
    expect(await frame.isVisible(".tb-quick.open")).toBe(false);
    await ctx.close();
  }, scaled(60_000));

  test("on a phone, a tap on the text takes the soft keyboard, and Vietnamese typed through its input method (compositions, then the commit) is stored", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice");
    // A tap at the start of the first line (the editor is framed: page coordinates).
    await frame.waitForFunction(() => window.edState.cursor !== null);
    const caret = (await frame.locator("#cursor").boundingBox())!;
    await page.touchscreen.tap(caret.x + 1, caret.y + caret.height / 2);
    await frame.waitForFunction(() => document.activeElement?.id === "ime");
    const cdp = await ctx.newCDPSession(page);
    for (const [steps, word] of [[["V", "Vi", "Vie", "Viê", "Việ", "Việt"], "Việt"], [["N", "Na", "Nam", "Nam"], "Nam"]] as const) {
      for (const t of steps) await cdp.send("Input.imeSetComposition", { text: t, selectionStart: t.length, selectionEnd: t.length });
      await cdp.send("Input.insertText", { text: word });
      await cdp.send("Input.insertText", { text: " " });
    }
    const text = async () => docxText(await saveAndRead(env, page, f.id)).normalize("NFC");
    await until(text, (t) => t.includes("Việt Nam "), "the composed words stored");
    await ctx.close();
  }, scaled(60_000));

  test("screen reader support: the paragraph at the caret is in the document's input with the caret where LibreOffice's is, typing still lands, and the choice is remembered", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice");
    await press(frame, "screenreader");
    expect(await frame.getAttribute(control("screenreader"), "aria-pressed")).toBe("true");
    await frame.waitForFunction(() => document.activeElement?.id === "ime");
    const input = () => frame.evaluate(() => { const i = document.getElementById("ime") as HTMLTextAreaElement; return { value: i.value, caret: i.selectionStart, end: i.selectionEnd }; });
    await page.keyboard.press("ArrowDown");
    await until(input, (i) => i.value === "Xin chào thế giới: tài liệu thử nghiệm." && i.caret === 0, "the second paragraph mirrored, the caret at its start");
    await page.keyboard.press("End");
    await until(input, (i) => i.caret === i.value.length, "the caret at the paragraph's end");
    await page.keyboard.press("Shift+Home");
    await until(input, (i) => i.caret === 0 && i.end === i.value.length, "the whole line selected");
    await page.keyboard.press("End");
    await page.keyboard.type(" OK");
    await until(input, (i) => i.value.endsWith("nghiệm. OK") && i.caret === i.value.length, "the typed words in the mirror");
    expect(docxText(await saveAndRead(env, page, f.id))).toContain("thử nghiệm. OK");
    // The next time, on this browser, it is on from the start.
    const again = await env.openEditor(ctx, env.newFile("hello.docx").src, "tok_alice");
    await again.frame.waitForFunction(() => (window as any).edApi.screenReader() === true);
    expect(await again.frame.getAttribute(control("screenreader"), "aria-pressed")).toBe("true");
    await ctx.close();
  }, scaled(60_000));

  test("zoom: on a phone, two fingers spread apart zoom in: the label shows the new zoom and the selection stays on its words", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice");
    await frame.focus("#ime");
    await page.keyboard.press("Shift+End");
    await frame.waitForFunction(() => { const e = document.querySelector("#selection .sel") as HTMLElement | null; return !!e && parseFloat(e.style.width) > 0; }, undefined, { polling: 50 });
    const sel = () => frame.evaluate(() => { const e = document.querySelector("#selection .sel") as HTMLElement | null; return e ? { left: parseFloat(e.style.left), width: parseFloat(e.style.width), tpp: (window as any).edApi.zoom() as number } : null; });
    const before = (await sel())!;
    // The fingers, on the document (page coordinates: the editor is framed).
    const box = (await (await frame.frameElement()).boundingBox())!;
    const vp = await frame.evaluate(() => { const r = document.getElementById("viewport")!.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
    const cx = box.x + vp.x, cy = box.y + vp.y;
    const cdp = await ctx.newCDPSession(page);
    const fingers = (d: number) => [{ x: cx - d, y: cy, id: 0 }, { x: cx + d, y: cy, id: 1 }];
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: fingers(40) });
    for (const d of [50, 60, 70, 80]) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: fingers(d) });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await frame.waitForFunction(() => (window.edState.pinches ?? 0) === 1);
    const after = (await sel())!;
    expect(after.tpp).toBeLessThan(before.tpp); // fewer twips a pixel: zoomed in
    expect(await zoomLabel(frame)).toBe(`${Math.round((15 / after.tpp) * 100)} %`);
    expect(await zoomLabel(frame)).not.toBe("100 %");
    // The selection is drawn at the new scale, on the same words.
    expect(Math.abs(after.width - before.width * (before.tpp / after.tpp))).toBeLessThanOrEqual(1);
    expect(Math.abs(after.left - before.left * (before.tpp / after.tpp))).toBeLessThanOrEqual(1);
    await ctx.close();
  }, scaled(60_000));

  test("find (Ctrl+F) counts and highlights the matches; replace all (Ctrl+H) replaces every one in the stored file; the bar closes with the close-search icon", async () => {
    const { id, ctx, page, frame } = await open("hello.docx");
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" cat and cat and cat");
    await page.keyboard.press("Control+F");
    await frame.waitForSelector("#findbar:not([hidden])");
    expect(await frame.evaluate(() => document.activeElement?.id)).toBe("find-text");
    // The bar's close is LibreOffice's close-search picture (served), not the close-document one.
    await frame.waitForFunction(() => { const i = document.querySelector('[data-cmd="findclose"] img') as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; }, undefined, { polling: 50 });
    expect(await frame.getAttribute('[data-cmd="findclose"] img', "src")).toBe("icons/lc_exitsearch.svg");
    await page.keyboard.type("cat");
    await frame.waitForFunction(() => (window as any).edUi.matches === 3, undefined, { polling: 50 });
    expect(await frame.textContent("#find-count")).toBe("3 matches");
    // Every match is highlighted, where the engine found it.
    await frame.waitForFunction(() => document.querySelectorAll('.marks[data-name="find"] .mark').length === 3, undefined, { polling: 50 });
    await page.keyboard.press("Escape");
    await frame.waitForSelector("#findbar", { state: "hidden" });
    expect(await frame.$$eval('.marks[data-name="find"] .mark', (ms) => ms.length)).toBe(0);
    await page.keyboard.press("Control+H");
    await frame.fill("#find-text", "cat");
    await frame.fill("#replace-text", "dog");
    await press(frame, "replaceall");
    await modified(frame);
    // The count says what is left: none (it kept "1 match" after the replace all).
    await frame.waitForFunction(() => document.getElementById("find-count")!.textContent === "No matches", undefined, { polling: 50 });
    const text = docxText(await saveAndRead(env, page, id));
    expect(text).toContain(" dog and dog and dog");
    expect(text).not.toContain("cat");
    // Nothing found: said so.
    await frame.fill("#find-text", "xylophone");
    await frame.press("#find-text", "Enter");
    await frame.waitForFunction(() => document.getElementById("find-count")!.textContent === "No matches", undefined, { polling: 50 });
    await ctx.close();
  }, scaled(60_000));

  test("download as: the document's format, PDF and the family's other formats come from the engine with the right name", async () => {
    const { ctx, page, frame } = await open("hello.docx");
    const options = await frame.$$eval("#download option", (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(options).toEqual(["docx", "odt", "pdf", "rtf", "txt", "html", "epub"]);
    for (const [format, magic] of [["pdf", "%PDF"], ["docx", "PK"], ["odt", "PK"], ["txt", "Hello from svc"]] as const) {
      const [download] = await Promise.all([page.waitForEvent("download"), frame.selectOption("#download", format)]);
      expect(download.suggestedFilename()).toBe(`hello.${format}`);
      const bytes = new Uint8Array(await Bun.file((await download.path())!).arrayBuffer());
      expect(new TextDecoder().decode(bytes.slice(0, 64))).toContain(magic);
      if (format === "odt") expect(Object.keys(unzipSync(bytes))).toContain("content.xml");
    }
    // A download id serves once.
    const url = await frame.evaluate(() => (window as any).edUi.lastDownload.url);
    expect((await fetch(url)).status).toBe(404);
    await ctx.close();
  }, scaled(60_000));

  test("print (Ctrl+P) opens the document as a PDF in a new tab for the browser to print", async () => {
    const { ctx, page } = await open("hello.xlsx");
    const [tab] = await Promise.all([ctx.waitForEvent("page"), page.keyboard.press("Control+P")]);
    await tab.waitForLoadState("domcontentloaded").catch(() => {});
    expect(tab.url()).toMatch(/\/ed\/document\/download\/[0-9a-f]{32}\?inline=1$/);
    await ctx.close();
  }, scaled(60_000));

  test("a spreadsheet and a deck offer their own families' download formats", async () => {
    for (const [fixture, formats] of [["hello.xlsx", ["xlsx", "ods", "pdf", "csv", "html"]], ["hello.pptx", ["pptx", "odp", "pdf"]]] as const) {
      const { ctx, page, frame } = await open(fixture);
      expect(await frame.$$eval("#download option", (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean))).toEqual([...formats]);
      const [download] = await Promise.all([page.waitForEvent("download"), frame.selectOption("#download", formats[1])]);
      const bytes = new Uint8Array(await Bun.file((await download.path())!).arrayBuffer());
      expect(strFromU8(unzipSync(bytes)["mimetype"]!)).toContain(fixture.endsWith("xlsx") ? "spreadsheet" : "presentation");
      await ctx.close();
    }
  }, scaled(60_000));
});

describe("everywhere: the status bar, the context menu, people", () => {
  test("the status bar shows page n of m, the word count, the language and the save state", async () => {
    const { ctx, page, frame } = await open("hello.docx");
    await frame.waitForFunction(() => /Page 1 of 1/.test(document.getElementById("sb-position")!.textContent ?? ""), undefined, { polling: 50 });
    await frame.waitForFunction(() => /\d+ words?, \d+ characters?/.test(document.getElementById("sb-count")!.textContent ?? ""), undefined, { polling: 50 });
    const words = Number(/(\d+) word/.exec((await frame.textContent("#sb-count"))!)![1]);
    await frame.waitForFunction(() => (document.getElementById("sb-language")!.textContent ?? "").length > 1, undefined, { polling: 50 });
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" two more");
    await frame.waitForFunction((w) => Number(/(\d+) word/.exec(document.getElementById("sb-count")!.textContent ?? "")?.[1]) === w + 2, words, { polling: 50 });
    await frame.waitForFunction(() => document.getElementById("sb-save")!.dataset.state === "unsaved");
    await page.evaluate(() => (window as any).save());
    await frame.waitForFunction(() => document.getElementById("sb-save")!.dataset.state === "saved", undefined, { polling: 20 });
    expect(await frame.textContent("#sb-save")).toBe("Saved");
    await ctx.close();
  }, scaled(60_000));

  test("a right click shows the engine's context menu; choosing an entry runs its command", async () => {
    const { id, ctx, page, frame } = await open("hello.docx");
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" menu");
    await page.keyboard.press("Shift+Home");
    const cursor = await frame.evaluate(() => window.edState.cursor);
    const box = (await (await frame.frameElement()).boundingBox())!;
    const origin = await frame.evaluate(() => { const r = document.getElementById("sizer")!.getBoundingClientRect(); return { x: r.left, y: r.top }; });
    await page.mouse.click(box.x + origin.x + cursor!.x / 15 + 20, box.y + origin.y + cursor!.y / 15 + cursor!.h / 30, { button: "right" });
    await frame.waitForSelector("#contextmenu");
    const commands = await frame.$$eval("#contextmenu [data-cmd]", (bs) => bs.map((b) => b.getAttribute("data-cmd")));
    expect(commands.length).toBeGreaterThan(2);
    expect(commands).toContain(".uno:Paste");
    // Escape closes it.
    await page.keyboard.press("Escape");
    await frame.waitForSelector("#contextmenu", { state: "detached" });
    void id;
    await ctx.close();
  }, scaled(60_000));

  test("a context menu taller than the window fits it and scrolls: every entry is reachable, a submenu opens on the screen, arrow keys move through the entries", async () => {
    const f = env.newFile("hello.docx");
    // A short window (a laptop with the browser's bars, a phone held sideways).
    const ctx = await env.browser.newContext({ viewport: { width: 900, height: 300 } });
    const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice");
    await frame.focus("#ime");
    await page.keyboard.press("Control+End");
    // Near the bottom of the window, as a right click on the last line of a screen is.
    const box = (await (await frame.frameElement()).boundingBox())!;
    const vp = await frame.evaluate(() => { const r = document.getElementById("viewport")!.getBoundingClientRect(); return { x: r.left + 200, y: r.bottom - 30 }; });
    await page.mouse.click(box.x + vp.x, box.y + vp.y, { button: "right" });
    await frame.waitForSelector("#contextmenu");
    const fit = await frame.evaluate(() => {
      const m = document.getElementById("contextmenu")!, r = m.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: innerHeight, w: innerWidth, tall: m.scrollHeight, scrolls: m.scrollHeight > m.clientHeight, entries: m.querySelectorAll("button").length };
    });
    expect(fit.tall).toBeGreaterThan(fit.h); // the case under test: the menu is taller than the window
    expect(fit.top).toBeGreaterThanOrEqual(0);
    expect(fit.bottom).toBeLessThanOrEqual(fit.h);
    expect(fit.right).toBeLessThanOrEqual(fit.w);
    // LibreOffice's text menu is longer than this window: it scrolls, and Paste can be reached.
    expect(fit.scrolls).toBe(true);
    await frame.locator('#contextmenu [data-cmd=".uno:Paste"]').scrollIntoViewIfNeeded();
    expect(await frame.locator('#contextmenu [data-cmd=".uno:Paste"]').isVisible()).toBe(true);
    // Arrow keys: from the first entry down one, then back up.
    const focused = () => frame.evaluate(() => document.activeElement?.textContent ?? "");
    const first = await focused();
    await page.keyboard.press("ArrowDown");
    expect(await focused()).not.toBe(first);
    await page.keyboard.press("ArrowUp");
    expect(await focused()).toBe(first);
    // A submenu opens on the screen, beside its entry.
    const opener = frame.locator("#contextmenu .menu-group > button").first();
    await opener.scrollIntoViewIfNeeded();
    await opener.click();
    const sub = await frame.evaluate(() => {
      const s = document.querySelector("#contextmenu .submenu.open") as HTMLElement | null, r = s?.getBoundingClientRect();
      return r ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: innerHeight, w: innerWidth, entries: s!.querySelectorAll("button").length } : null;
    });
    expect(sub).not.toBeNull();
    expect(sub!.entries).toBeGreaterThan(0);
    expect(sub!.top).toBeGreaterThanOrEqual(0);
    expect(sub!.bottom).toBeLessThanOrEqual(sub!.h);
    expect(sub!.right).toBeLessThanOrEqual(sub!.w);
    expect(sub!.left).toBeGreaterThanOrEqual(0);
    await page.keyboard.press("Escape");
    await frame.waitForSelector("#contextmenu", { state: "detached" });
    await ctx.close();
  }, scaled(60_000));

  test("the toolbar is one stop of the Tab key: arrow keys move between its controls, Home and End to its ends; a button used from the keyboard gives the keys back to the document", async () => {
    const { id, ctx, page, frame } = await open("hello.docx");
    const active = () => frame.evaluate(() => { const a = document.activeElement as HTMLElement | null; return a ? (a.getAttribute("data-cmd") ?? a.id) : ""; });
    const tabStops = () => frame.$$eval("#ribbon .tb-panel button, #ribbon .tb-panel select, #ribbon .tb-panel input, #ribbon .tb-more", (cs) => cs.filter((c) => (c as HTMLElement).getClientRects().length > 0 && (c as HTMLElement).tabIndex === 0).length);
    await frame.focus(`#ribbon ${control(".uno:Bold")}`);
    expect(await active()).toBe(".uno:Bold");
    expect(await tabStops()).toBe(1);
    await page.keyboard.press("ArrowRight");
    const second = await active();
    expect(second).not.toBe(".uno:Bold");
    expect(await frame.evaluate(() => !!document.activeElement?.closest("#ribbon"))).toBe(true);
    expect(await tabStops()).toBe(1);
    await page.keyboard.press("ArrowLeft");
    expect(await active()).toBe(".uno:Bold");
    await page.keyboard.press("Home");
    const first = await active();
    await page.keyboard.press("End");
    expect(await active()).not.toBe(first);
    // Bold from the keyboard: the next letters go into the document, bold.
    await frame.focus(`#ribbon ${control(".uno:Bold")}`);
    await page.keyboard.press("Enter");
    await frame.waitForFunction(() => document.activeElement?.id === "ime");
    await page.keyboard.type("Keyboard");
    await stateIs(frame, ".uno:Bold", "true");
    await modified(frame);
    const xml = strFromU8(unzipSync(await saveAndRead(env, page, id))["word/document.xml"]!);
    expect(xml).toMatch(/<w:b\/>(?:(?!<\/w:r>).)*<w:t[^>]*>Keyboard/s);
    await ctx.close();
  }, scaled(60_000));

  test("the people in the document are listed, each in their own colour, which their named cursor and their selection have on the other's screen; the name shows while they move, then hides", async () => {
    const f = env.newFile("hello.docx");
    const [ca, cb] = await Promise.all([env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    const b = await env.openEditor(cb, f.src, "tok_bob");
    for (const fr of [a.frame, b.frame]) await fr.waitForFunction(() => document.querySelectorAll("#people .person").length === 2, undefined, { polling: 50 });
    const chips = await a.frame.$$eval("#people .person", (cs) => cs.map((c) => ({ title: c.getAttribute("title"), view: c.getAttribute("data-view"), colour: (c as HTMLElement).style.background, text: c.textContent })));
    expect(chips.map((c) => c.title).sort()).toEqual(["Alice (you)", "Bob"]);
    expect(chips.find((c) => c.title === "Bob")!.text).toBe("B");
    expect(chips[0]!.colour).not.toBe(chips[1]!.colour);
    // Bob types: his cursor on Alice's screen has the colour of his chip.
    await b.frame.focus("#ime");
    await b.page.keyboard.press("Control+End");
    await b.page.keyboard.type("Bob was here");
    const bob = chips.find((c) => c.title === "Bob")!;
    await a.frame.waitForFunction((v) => { const e = document.querySelector(`.viewcursor[data-view="${v}"]`) as HTMLElement | null; return !!e && !e.hidden; }, bob.view, { polling: 50 });
    const cursorColour = await a.frame.$eval(`.viewcursor[data-view="${bob.view}"]`, (e) => getComputedStyle(e).backgroundColor || (e as HTMLElement).style.borderColor);
    const same = (c: string) => c.replace(/\s/g, "");
    expect(same(cursorColour)).toBe(same(bob.colour));
    expect(await a.frame.textContent(`.viewcursor[data-view="${bob.view}"] .viewname`)).toBe("Bob");
    // His name shows while he types, then gives the text under it back; it comes back when he moves.
    const nameShown = (v: string) => a.frame.evaluate((id) => getComputedStyle(document.querySelector(`.viewcursor[data-view="${id}"] .viewname`)!).display !== "none", v);
    expect(await nameShown(bob.view!)).toBe(true);
    await a.frame.waitForFunction((id) => getComputedStyle(document.querySelector(`.viewcursor[data-view="${id}"] .viewname`)!).display === "none", bob.view, { polling: 100, timeout: scaled(15_000) });
    await b.page.keyboard.press("ArrowLeft");
    await a.frame.waitForFunction((id) => getComputedStyle(document.querySelector(`.viewcursor[data-view="${id}"] .viewname`)!).display !== "none", bob.view, { polling: 50 });
    // Bob selects what he typed: Alice sees the selection in his colour.
    await b.page.keyboard.press("Shift+Home");
    await a.frame.waitForFunction((v) => document.querySelectorAll(`.viewselection[data-view="${v}"] > div`).length > 0, bob.view, { polling: 50 });
    const selColour = await a.frame.$eval(`.viewselection[data-view="${bob.view}"] > div`, (e) => getComputedStyle(e).backgroundColor);
    expect(same(selColour)).toBe(same(bob.colour));
    await b.page.keyboard.press("End");
    await a.frame.waitForFunction((v) => document.querySelectorAll(`.viewselection[data-view="${v}"] > div`).length === 0, bob.view, { polling: 50 });
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(60_000));

  test("in a spreadsheet, the other person's cell cursor is drawn in their colour", async () => {
    const f = env.newFile("hello.xlsx");
    const [ca, cb] = await Promise.all([env.browser.newContext(), env.browser.newContext()]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    const b = await env.openEditor(cb, f.src, "tok_bob");
    await a.frame.waitForFunction(() => document.querySelectorAll("#people .person").length === 2, undefined, { polling: 50 });
    const bob = await a.frame.$eval('#people .person[title="Bob"]', (c) => ({ view: c.getAttribute("data-view")!, colour: (c as HTMLElement).style.background }));
    await b.frame.fill("#address", "C3");
    await b.frame.press("#address", "Enter");
    await a.frame.waitForFunction((v) => { const e = document.querySelector(`.viewcellcursor[data-view="${v}"]`) as HTMLElement | null; return !!e && !e.hidden && e.offsetTop > 0; }, bob.view, { polling: 50 });
    const box = await a.frame.$eval(`.viewcellcursor[data-view="${bob.view}"]`, (e) => ({ left: (e as HTMLElement).offsetLeft, top: (e as HTMLElement).offsetTop, colour: getComputedStyle(e).borderTopColor }));
    // C3 at 100 %: right of columns A and B, below rows 1 and 2.
    expect(box.left).toBeGreaterThan(40);
    expect(box.top).toBeGreaterThan(25);
    expect(box.colour.replace(/\s/g, "")).toBe(bob.colour.replace(/\s/g, ""));
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(60_000));
});
