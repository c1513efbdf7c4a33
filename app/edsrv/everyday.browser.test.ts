// A person's everyday tasks (issue 23 item 5), driven only by what a person uses — clicks on the
// toolbar and its menus, keys, the file chooser; the test sends no command of its own — in English
// and in Vietnamese, each checked in the file the WOPI host stored: a one-page letter, a budget
// sheet, a three-slide deck, and the letter again on a 390 px touch screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { settled as engineSettled } from "./testing/chromium";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { answer, control, modified, part, partNames, press, saveAndRead, stateIs } from "./testing/interface";
import { cellFormat, goTo, sheetCells, slidesWithPictures, slideTexts } from "./testing/stored";
import { scaled } from "../testing/until";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** A 2×2 red PNG: the picture a person picks in the file chooser. */
const PICTURE = { name: "photo.png", mimeType: "image/png", buffer: Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAhAAMDmn4jWQAAAABJRU5ErkJggg==", "base64") };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

type Lang = "en" | "vi";
const WORDS = {
  en: { heading: "Invitation", dear: "Dear Lan, this is ", bold: "important", points: ["First point", "Second point"], cells: ["Name", "Date", "Place", "Lan", "Monday", "Hanoi", "Minh", "Friday", "Hue"],
    items: [["Rent", 1200], ["Food", 450], ["Transport", 150], ["Utilities", 200], ["Savings", 500]] as [string, number][], total: "Total",
    title: "Quarterly review", slideTitle: "Plan", bullets: ["Revenue", "Costs"] },
  vi: { heading: "Thư mời", dear: "Kính gửi chị Lan, đây là việc ", bold: "quan trọng", points: ["Điểm thứ nhất", "Điểm thứ hai"], cells: ["Tên", "Ngày", "Nơi", "Lan", "Thứ Hai", "Hà Nội", "Minh", "Thứ Sáu", "Huế"],
    items: [["Tiền nhà", 1200], ["Ăn uống", 450], ["Xe buýt", 150], ["Điện nước", 200], ["Tiết kiệm", 500]] as [string, number][], total: "Tổng",
    title: "Báo cáo quý", slideTitle: "Kế hoạch", bullets: ["Doanh thu", "Chi phí"] },
};
const query = (lang: Lang) => (lang === "vi" ? "lang=vi-VN" : "lang=en-US");

async function open(fileName: string, bytes: Uint8Array | undefined, lang: Lang, device: Parameters<EditorEnv["browser"]["newContext"]>[0] = { viewport: { width: 1400, height: 900 } }) {
  const f = env.newFile(fileName, bytes);
  const ctx: BrowserContext = await env.browser.newContext(device);
  const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice", query(lang));
  await frame.focus("#ime");
  return { id: f.id, ctx, page, frame };
}

/**
 * Until the screen has settled (nothing from the server for 250 ms, every tile drawn), as a person
 * waits to see a shape selected or its text cursor before typing: LibreOffice starts editing a
 * shape a moment after the key that asks for it, and letters typed at machine speed before that
 * are lost.
 */
const settled = (frame: Frame) => engineSettled(frame, { quietMs: 250 });

/** Picks the file chooser's picture after clicking the picture button (`click` presses it). */
async function choosePicture(page: Page, click: () => Promise<void>): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), click()]);
  await chooser.setFiles(PICTURE);
}

/** Writes the letter with `use` pressing the toolbar's controls (a desktop click, or taps on a phone). */
async function writeLetter(page: Page, frame: Frame, lang: Lang, use: (cmd: string) => Promise<void>, style: () => Promise<void>): Promise<void> {
  const w = WORDS[lang];
  const k = page.keyboard;
  await k.press("Control+End");
  await k.press("Enter");
  const styleBefore = await frame.evaluate(() => (window as any).edUi.state[".uno:StyleApply"]);
  await style();
  // The engine names the style in the view's language ("Heading 1", in Vietnamese its own name).
  await frame.waitForFunction((b) => (window as any).edUi.state[".uno:StyleApply"] !== b, styleBefore, { polling: 25 });
  await k.type(w.heading);
  await k.press("Enter");
  await k.type(w.dear);
  await use(".uno:Bold");
  await k.type(w.bold);
  await use(".uno:Bold");
  await k.type(".");
  await k.press("Enter");
  await use(".uno:DefaultBullet");
  await k.type(w.points[0]!);
  await k.press("Enter");
  await k.type(w.points[1]!);
  await k.press("Enter");
  await use(".uno:DefaultBullet");
  await use(".uno:InsertTable");
  await frame.click('.tb-table-grid [data-size="3x3"]');
  for (let i = 0; i < 9; i++) {
    await k.type(w.cells[i]!);
    if (i < 8) await k.press("Tab");
  }
  await k.press("Control+End"); // below the table
  await choosePicture(page, () => use(".uno:InsertGraphic"));
  await modified(frame);
}

/** The stored letter has every part a person made. */
function checkLetter(bytes: Uint8Array, lang: Lang): void {
  const w = WORDS[lang];
  const xml = part(bytes, "word/document.xml");
  const paragraphs = [...xml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((m) => m[0]);
  const text = (p: string) => p.replace(/<[^>]+>/g, "");
  const heading = paragraphs.find((p) => text(p) === w.heading)!;
  // The style is known by its name: its id follows the view's language (Vietnamese gives "Tiu1").
  const headingId = /<w:style [^>]*w:styleId="([^"]+)"[^>]*><w:name w:val="[Hh]eading 1"\/>/.exec(part(bytes, "word/styles.xml"))![1];
  expect(heading).toContain(`<w:pStyle w:val="${headingId}"/>`);
  const dear = paragraphs.find((p) => text(p).startsWith(w.dear.trim()))!;
  expect(dear).toMatch(new RegExp(`<w:b/>[\\s\\S]*?<w:t[^>]*>${w.bold}</w:t>`));
  for (const point of w.points) expect(paragraphs.find((p) => text(p) === point)).toMatch(/<w:numPr>/);
  const table = /<w:tbl>[\s\S]*?<\/w:tbl>/.exec(xml)![0];
  const rows = [...table.matchAll(/<w:tr[ >][\s\S]*?<\/w:tr>/g)].map((m) => [...m[0].matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((c) => text(c[0])));
  expect(rows).toEqual([w.cells.slice(0, 3), w.cells.slice(3, 6), w.cells.slice(6, 9)]);
  expect(partNames(bytes).some((n) => n.startsWith("word/media/"))).toBe(true);
  expect(xml).toContain("<w:drawing>");
}

async function emptyWorkbook(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet("Budget");
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

for (const lang of ["en", "vi"] as const) {
  describe(`a person's everyday tasks (${lang})`, () => {
    test(`a one-page letter: a heading, a bold word, a bulleted list, a 3x3 table and a picture, saved (${lang})`, async () => {
      const { id, ctx, page, frame } = await open("hello.docx", undefined, lang);
      await writeLetter(page, frame, lang, (cmd) => press(frame, cmd), async () => {
        await frame.click('[role="tab"][data-tab="home"]');
        await frame.click('.tb-gallery-item[data-style="Heading 1"]');
      });
      checkLetter(await saveAndRead(env, page, id), lang);
      await ctx.close();
    }, scaled(90_000));

    test(`a budget sheet: five rows, a SUM, a percentage, borders, a frozen header row, a chart, sorted by amount, saved (${lang})`, async () => {
      const w = WORDS[lang];
      const { id, ctx, page, frame } = await open("budget.xlsx", await emptyWorkbook(), lang);
      const k = page.keyboard;
      /** Types a row's cells, Tab between them and Enter at its end (back to the row's first column). */
      const row = async (...values: string[]) => {
        for (const [i, v] of values.entries()) {
          await k.type(v);
          await k.press(i < values.length - 1 ? "Tab" : "Enter");
        }
      };
      await goTo(frame, "A1");
      await frame.focus("#ime");
      await row(...(lang === "vi" ? ["Khoản", "Số tiền", "Tỉ lệ"] : ["Item", "Amount", "Share"]));
      for (const [i, [item, amount]] of w.items.entries()) await row(item, String(amount), `=B${i + 2}/B$7`);
      await row(w.total, "=SUM(B2:B6)");
      await goTo(frame, "C2:C6");
      await frame.selectOption(".tb-numfmt", ".uno:NumberFormatPercent");
      await goTo(frame, "A1:C7");
      await frame.selectOption(".tb-borders", "all");
      await goTo(frame, "A2");
      await press(frame, ".uno:FreezePanes");
      await stateIs(frame, ".uno:FreezePanes", "true");
      await goTo(frame, "A1:B6");
      await press(frame, ".uno:InsertObjectChart");
      // LibreOffice's chart wizard, finished with its defaults (a column chart of the cells).
      await frame.locator('.jsd-dialog[data-dialog="CHART2_HID_SCH_WIZARD_ROADMAP"] [data-widget="finish"]').click();
      await frame.locator(".jsd-dialog").waitFor({ state: "detached" });
      await page.keyboard.press("Escape");
      // Sorted by amount: the rows selected, the cell cursor moved into the Amount column with Tab.
      await goTo(frame, "A2:C6");
      await frame.focus("#ime");
      await k.press("Tab");
      await frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value.startsWith("A2:C6") || /^B2/.test((document.getElementById("address") as HTMLInputElement).value));
      await press(frame, ".uno:SortDescending");
      const bytes = await saveAndRead(env, page, id);
      const c = sheetCells(bytes);
      const sorted = [...w.items].sort((a, b) => b[1] - a[1]);
      expect(["A2", "A3", "A4", "A5", "A6"].map((r) => c.get(r)?.value)).toEqual(sorted.map(([item]) => item));
      expect(["B2", "B3", "B4", "B5", "B6"].map((r) => Number(c.get(r)?.value))).toEqual(sorted.map(([, amount]) => amount));
      expect(c.get("B7")).toMatchObject({ formula: "SUM(B2:B6)", value: "2500" });
      expect(cellFormat(bytes, c.get("C2")!).numFmt).toMatch(/%|builtin (9|10)/);
      for (const side of ["left", "right", "top", "bottom"]) expect(cellFormat(bytes, c.get("A1")!).border).toMatch(new RegExp(`<${side} style="\\w+"`));
      expect(part(bytes, "xl/worksheets/sheet1.xml")).toMatch(/<pane [^>]*ySplit="1"[^>]*state="frozen"/);
      expect(partNames(bytes).some((n) => /^xl\/charts\/chart\d+\.xml$/.test(n))).toBe(true);
      await ctx.close();
    }, scaled(90_000));

    test(`a three-slide deck: a title slide, a bulleted slide with a picture duplicated and moved, saved and shown as a slideshow (${lang})`, async () => {
      const w = WORDS[lang];
      const { id, ctx, page, frame } = await open("hello.pptx", undefined, lang);
      const k = page.keyboard;
      /** Selects the next shape with Tab and starts editing its text with Enter, waiting for each as a person does. */
      const editNextShape = async () => {
        for (const key of ["Tab", "Enter"]) {
          await k.press(key);
          await settled(frame);
        }
      };
      const leaveShape = async () => {
        await k.press("Escape");
        await settled(frame);
      };
      // Slide 1, the title slide: its title selected, edited, its text replaced.
      await editNextShape();
      await k.press("Control+A");
      await k.type(w.title);
      await leaveShape();
      await leaveShape();
      // Slide 2: the layout "Title, Content", a title, two bullets, a picture.
      await frame.click("#slides .thumb:nth-child(2)");
      await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
      await press(frame, ".uno:AssignLayout");
      await frame.click('.tb-popup:not([hidden]) [role="menuitem"]:nth-child(3)');
      await frame.focus("#ime");
      await settled(frame);
      await editNextShape();
      await k.type(w.slideTitle);
      await leaveShape();
      await editNextShape();
      await k.type(w.bullets[0]!);
      await k.press("Enter");
      await k.type(w.bullets[1]!);
      await leaveShape();
      await leaveShape();
      await choosePicture(page, () => press(frame, ".uno:InsertGraphic"));
      await modified(frame);
      // Duplicated, and the copy moved before the original.
      await press(frame, ".uno:DuplicatePage");
      await frame.waitForFunction(() => window.edState.status!.parts === 3 && window.edState.status!.selectedPart === 2);
      await press(frame, "moveup");
      await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
      const bytes = await saveAndRead(env, page, id);
      const texts = slideTexts(bytes);
      expect(texts.length).toBe(3);
      expect(texts[0]).toStartWith(w.title);
      const bulleted = `${w.slideTitle} ${w.bullets.join(" ")}`;
      expect(texts.slice(1)).toEqual([bulleted, bulleted]);
      expect(slidesWithPictures(bytes)).toEqual([false, true, true]);
      // And shown: the slideshow from the first slide, ended with Escape.
      await frame.click("#slides .thumb:nth-child(1)");
      await press(frame, "slideshow");
      await frame.waitForFunction(() => document.body.classList.contains("slideshow"));
      await frame.press("body", "ArrowRight");
      await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
      await frame.press("body", "Escape");
      await frame.waitForFunction(() => !document.body.classList.contains("slideshow"));
      await ctx.close();
    }, scaled(90_000));

    test(`the letter on a 390 px touch screen: the compact toolbar and its "more" menu, tapped (${lang})`, async () => {
      const { id, ctx, page, frame } = await open("hello.docx", undefined, lang, PHONE);
      expect(await frame.evaluate(() => document.getElementById("ribbon")!.classList.contains("compact"))).toBe(true);
      /** Taps a control, through the "more" menu when it is there. */
      const tap = async (cmd: string) => {
        const inMore = await frame.evaluate((sel) => !!document.querySelector(`#tb-more-menu ${sel}`), control(cmd));
        if (inMore && (await frame.evaluate(() => document.getElementById("tb-more-menu")!.hidden))) {
          await frame.tap('#ribbon [data-cmd="more"]');
          await frame.waitForSelector("#tb-more-menu:not([hidden])");
        }
        await frame.tap(`${inMore ? "#tb-more-menu " : "#ribbon "}${control(cmd)}`);
        if (cmd !== ".uno:InsertTable" && cmd !== ".uno:InsertGraphic") await frame.focus("#ime");
      };
      await writeLetter(page, frame, lang, tap, async () => {
        const inMore = await frame.evaluate(() => !!document.querySelector("#tb-more-menu .tb-style") && document.getElementById("tb-more-menu")!.hidden);
        if (inMore) await frame.tap('#ribbon [data-cmd="more"]');
        await frame.selectOption(".tb-style", "Heading 1");
        await frame.focus("#ime");
      });
      checkLetter(await saveAndRead(env, page, id), lang);
      await ctx.close();
    }, scaled(120_000));
  });
}
