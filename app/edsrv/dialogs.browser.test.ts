// LibreOffice's dialogs in the browser (issue 33, item 1): a person opens a dialog from the
// toolbar, changes it with the page's own controls (found by their labels, as a screen reader
// finds them), presses OK, and the stored file holds the change. Real editing server, real kits
// with the full LibreOffice, Debian's Chromium, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import type { Frame, Locator } from "playwright-core";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { control, openFixture, part, press, saveAndRead, showTabOf } from "./testing/interface";
import { cellFormat, goTo, sheetCells } from "./testing/stored";
import { scaled, until } from "../testing/until";
import { seriousViolations } from "../testing/axe";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** Opens a dialog with its toolbar button and answers it once LibreOffice has described it. */
async function openDialog(frame: Frame, cmd: string, dialogId: string): Promise<Locator> {
  await press(frame, cmd);
  const dialog = frame.locator(`.jsd-dialog[data-dialog="${dialogId}"]`);
  await dialog.waitFor();
  return dialog;
}

/**
 * Format > Conditional formatting on B2:B4, once LibreOffice painted it: 25.2 does not describe it
 * as JSDialog, so it is a tunnelled window; answers its canvas.
 */
async function conditionalFormatting(frame: Frame): Promise<Locator> {
  await goTo(frame, "B2:B4");
  await press(frame, ".uno:ConditionalFormatDialog");
  const window = frame.locator('.jsd-tunnelled[data-dialog="ConditionalFormatDialog"]');
  await window.waitFor();
  const canvas = window.locator("canvas");
  await until(() => canvas.evaluate((c: HTMLCanvasElement) => c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0)), (painted) => painted, "the window painted");
  return canvas;
}

/** Selects a tab of the dialog by its name, as a person clicks it. */
async function tab(dialog: Locator, name: string): Promise<void> {
  await dialog.getByRole("tab", { name, exact: true }).click();
}

/** Presses OK and waits for LibreOffice to close the dialog. */
async function ok(dialog: Locator): Promise<void> {
  await dialog.getByRole("button", { name: "OK", exact: true }).click();
  await dialog.waitFor({ state: "detached" });
}

/** Types a value into a field found by its label, as a person does (then leaves the field). */
async function setField(dialog: Locator, label: string, value: string): Promise<void> {
  const field = dialog.getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press("Tab");
}

describe("LibreOffice's dialogs in a text document", () => {
  test("Format > Paragraph: the indent before the text and the spacing below the paragraph are stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    const dialog = await openDialog(frame, ".uno:ParagraphDialog", "ParagraphPropertiesDialog");
    expect(await dialog.getByRole("tab", { name: "Indents & Spacing" }).getAttribute("aria-selected")).toBe("true");
    await setField(dialog, "Before text:", "1");
    await setField(dialog, "Below paragraph:", "0.25");
    // LibreOffice took the value and shows it in its own form.
    await until(() => dialog.getByLabel("Before text:", { exact: true }).inputValue(), (v) => v === "1.00″", "the indent shown as LibreOffice formats it");
    await ok(dialog);
    const xml = part(await saveAndRead(env, page, id), "word/document.xml");
    expect(xml).toMatch(/<w:ind w:left="1440"/);
    expect(xml).toMatch(/<w:spacing [^>]*w:after="360"/);
    await close();
  }, scaled(90_000));

  test("Format > Character: an effect (shadow) on the selected words is stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    await page.keyboard.press("Control+A");
    const dialog = await openDialog(frame, ".uno:FontDialog", "CharacterPropertiesDialog");
    await tab(dialog, "Font Effects");
    await dialog.getByLabel("Shadow", { exact: true }).check();
    await ok(dialog);
    expect(part(await saveAndRead(env, page, id), "word/document.xml")).toContain("<w:shadow/>");
    await close();
  }, scaled(90_000));

  test("Format > Page setup: landscape is stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    const dialog = await openDialog(frame, ".uno:PageDialog", "TemplateDialog8");
    await tab(dialog, "Page");
    await dialog.getByLabel("Landscape", { exact: true }).check();
    await ok(dialog);
    expect(part(await saveAndRead(env, page, id), "word/document.xml")).toMatch(/<w:pgSz [^>]*w:orient="landscape"/);
    await close();
  }, scaled(90_000));

  test("Insert > Special character: a character found by its name is inserted", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    await page.keyboard.press("Control+End");
    await showTabOf(frame, ".uno:CharmapControl");
    await frame.click(control(".uno:CharmapControl"));
    await frame.getByRole("menuitem", { name: "More characters…" }).click();
    const dialog = frame.locator(`.jsd-dialog[data-dialog="SpecialCharactersDialog"]`);
    await dialog.waitFor();
    await setField(dialog, "Search:", "omega");
    // The first character found, then Insert.
    const grid = dialog.locator('[data-widget="searchcharset"]');
    await grid.waitFor({ state: "visible" });
    await grid.click({ position: { x: 8, y: 8 } });
    // LibreOffice shows the chosen character's code; that character is what goes in.
    const hex = await until(() => dialog.getByLabel("Hexadecimal:", { exact: true }).inputValue(), (v) => /^[0-9A-F]{2,6}$/i.test(v), "the chosen character's code");
    await dialog.getByRole("button", { name: "Insert", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    expect(part(await saveAndRead(env, page, id), "word/document.xml")).toContain(String.fromCodePoint(parseInt(hex, 16)));
    await close();
  }, scaled(90_000));
});

describe("LibreOffice's dialogs in a spreadsheet", () => {
  test("Format cells: a number format typed as its code is stored for the selected cells", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "C2:C4");
    const dialog = await openDialog(frame, ".uno:FormatCellDialog", "FormatCellsDialog");
    await tab(dialog, "Numbers");
    // The format code's three buttons show LibreOffice's pictures (they were blank pills).
    for (const name of ["Add", "Edit Comment", "Remove"]) expect(await dialog.getByRole("button", { name, exact: true }).locator("img").count()).toBe(1);
    await setField(dialog, "Format Code", "0.000");
    await ok(dialog);
    const bytes = await saveAndRead(env, page, id);
    expect(cellFormat(bytes, sheetCells(bytes).get("C3")!).numFmt).toBe("0.000");
    await close();
  }, scaled(90_000));

  test("Conditional formatting: a condition on the selected cells is stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    const canvas = await conditionalFormatting(frame);
    // The condition's value, typed where LibreOffice put the keyboard, then Enter (OK).
    await canvas.pressSequentially("12");
    await canvas.press("Enter");
    await frame.locator('.jsd-tunnelled[data-dialog="ConditionalFormatDialog"]').waitFor({ state: "detached" });
    const sheet = part(await saveAndRead(env, page, id), "xl/worksheets/sheet1.xml");
    expect(sheet).toMatch(/<conditionalFormatting [^>]*sqref="B2:B4"/);
    await close();
  }, scaled(90_000));

  test("Data > Validity (a dialog LibreOffice runs in a loop of its own): a rule for the selected cells is stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "B2:B4");
    const dialog = await openDialog(frame, ".uno:Validation", "ValidationDialog");
    await dialog.getByLabel("Allow:", { exact: true }).selectOption({ label: "Integer" });
    await dialog.getByLabel("Data:", { exact: true }).selectOption({ label: "greater than" });
    expect(await seriousViolations(frame)).toEqual([]);
    // LibreOffice labels the grid around the value field, not the field.
    const value = dialog.locator('[data-widget="min"]');
    await value.fill("0");
    await value.press("Tab");
    await ok(dialog);
    const sheet = part(await saveAndRead(env, page, id), "xl/worksheets/sheet1.xml");
    const rule = /<dataValidation [^>]*>/.exec(sheet)?.[0] ?? "";
    for (const attribute of ['type="whole"', 'operator="greaterThan"', 'sqref="B2:B4"']) expect(rule).toContain(attribute);
    expect(sheet).toContain("<formula1>0</formula1>");
    await close();
  }, scaled(90_000));

  test("Data > Sort with options: the rows sorted by a chosen column, descending", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "A1:C4");
    const dialog = await openDialog(frame, ".uno:DataSort", "SortDialog");
    await tab(dialog, "Options");
    await dialog.getByLabel("Case sensitive", { exact: true }).check();
    await tab(dialog, "Sort Criteria");
    expect(await dialog.getByLabel("Range contains column labels", { exact: true }).isChecked()).toBe(true);
    await dialog.locator('[data-widget="sortlb"]').first().selectOption({ label: "Qty" });
    await dialog.getByLabel("Descending", { exact: true }).first().check();
    await ok(dialog);
    const cells = sheetCells(await saveAndRead(env, page, id));
    expect(["A2", "A3", "A4"].map((c) => cells.get(c)?.value)).toEqual(["Cherry", "Chuối", "Apple"]);
    await close();
  }, scaled(90_000));
});

describe("LibreOffice's dialogs in a deck", () => {
  test("in a deck, Format > Character (a dialog LibreOffice runs in a loop of its own) stays open until answered, and its underline on the title's words is stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.pptx");
    await frame.waitForFunction(() => document.querySelectorAll("#slides .thumb").length === 2);
    // Into the title's text (across the middle of the first slide), its words selected.
    const slide = (await frame.locator("#sizer").boundingBox())!;
    await page.mouse.click(slide.x + slide.width / 2, slide.y + slide.height * 0.45);
    await page.keyboard.press("Control+A");
    const dialog = await openDialog(frame, ".uno:FontDialog", "DrawCharDialog");
    await tab(dialog, "Font Effects");
    await dialog.getByLabel("Underlining:", { exact: true }).selectOption({ label: "Single" });
    expect(await seriousViolations(frame)).toEqual([]);
    await ok(dialog);
    await page.keyboard.press("Escape");
    expect(part(await saveAndRead(env, page, id), "ppt/slides/slide1.xml")).toMatch(/<a:rPr [^>]*u="sng"[^>]*>(?:(?!<\/a:r>).)*<a:t>This is<\/a:t>/);
    await close();
  }, scaled(90_000));
});

describe("LibreOffice's dialogs: keyboard, screen readers, language, phone, and a crash", () => {
  test("a dialog takes the keyboard, keeps it inside (Tab), and Escape cancels it and gives the keyboard back to the document; the dialog has no serious accessibility violation", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
    const { frame } = await env.openEditor(ctx, f.src);
    await frame.focus("#ime");
    const dialog = await openDialog(frame, ".uno:ParagraphDialog", "ParagraphPropertiesDialog");
    // The dialog's first field has the keyboard, as LibreOffice asks (init_focus_id).
    await until(() => frame.evaluate(() => document.activeElement?.id ?? ""), (id) => id.endsWith("-spinED_LEFTINDENT"), "the first field focused");
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await frame.evaluate(() => document.querySelector(".jsd-dialog")!.getAttribute("aria-labelledby") && document.getElementById(document.querySelector(".jsd-dialog")!.getAttribute("aria-labelledby")!)?.textContent)).toBe("Paragraph");
    // Shift+Tab from the first control goes round to the last: the keyboard stays in the dialog.
    await frame.focus(".jsd-dialog .jsd-close");
    await frame.press(".jsd-dialog .jsd-close", "Shift+Tab");
    expect(await frame.evaluate(() => document.querySelector(".jsd-dialog")!.contains(document.activeElement))).toBe(true);
    expect(await seriousViolations(frame)).toEqual([]);
    await frame.press(".jsd-dialog .jsd-close", "Escape");
    await dialog.waitFor({ state: "detached" });
    await until(() => frame.evaluate(() => document.activeElement?.id ?? ""), (id) => id === "ime", "the keyboard back in the document");
    await ctx.close();
  }, scaled(90_000));

  test("in a Vietnamese session LibreOffice writes the dialog in Vietnamese", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { frame } = await env.openEditor(ctx, f.src, "tok_alice", "&lang=vi");
    await frame.focus("#ime");
    // The view's language is set once the first screen is painted (ui.ts): the dialog after it.
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    const dialog = await openDialog(frame, ".uno:ParagraphDialog", "ParagraphPropertiesDialog");
    expect(await dialog.locator("h2").textContent()).toBe("Đoạn văn");
    // LibreOffice's own Vietnamese translation (some of its labels it leaves in English).
    expect(await dialog.getByRole("tab").allTextContents()).toContain("Canh lề");
    await ctx.close();
  }, scaled(90_000));

  test("on a phone a dialog fills the screen, one column, its OK in reach, and works", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const { page, frame } = await env.openEditor(ctx, f.src);
    await frame.evaluate(() => (window as any).edApi.uno(".uno:ParagraphDialog"));
    const dialog = frame.locator('.jsd-dialog[data-dialog="ParagraphPropertiesDialog"]');
    await dialog.waitFor();
    const box = (await dialog.boundingBox())!;
    const viewport = await frame.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
    expect(Math.round(box.width)).toBe(viewport.w);
    expect(Math.round(box.height)).toBe(viewport.h);
    // Nothing wider than the screen.
    expect(await frame.evaluate(() => document.querySelector(".jsd-body")!.scrollWidth <= window.innerWidth)).toBe(true);
    const okButton = dialog.getByRole("button", { name: "OK", exact: true });
    const okBox = (await okButton.boundingBox())!;
    expect(okBox.y + okBox.height).toBeLessThanOrEqual(viewport.h);
    await setField(dialog, "Before text:", "1");
    await okButton.tap();
    await dialog.waitFor({ state: "detached" });
    expect(part(await saveAndRead(env, page, f.id), "word/document.xml")).toMatch(/<w:ind w:left="1440"/);
    await ctx.close();
  }, scaled(90_000));

  test("a change made in a dialog survives the kit being killed (SIGKILL) right after its OK: the journal replays the dialog", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    const dialog = await openDialog(frame, ".uno:ParagraphDialog", "ParagraphPropertiesDialog");
    await setField(dialog, "Before text:", "1");
    await ok(dialog);
    const broker = [...env.ed.brokers.values()].find((b) => b.wopiSrc.endsWith("/" + id))!;
    process.kill(broker.pid, "SIGKILL");
    await frame.waitForFunction(() => window.edState.reconnects === 1 && window.edState.connected, undefined, { timeout: scaled(30_000) });
    expect(part(await saveAndRead(env, page, id), "word/document.xml")).toMatch(/<w:ind w:left="1440"/);
    await close();
  }, scaled(90_000));
});

describe("LibreOffice's sidebar", () => {
  test("the sidebar's Properties deck shows LibreOffice's panels; its Bold makes the selected words bold in the stored file; items the door refuses are not offered", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    await press(frame, "sidebar");
    const sidebar = frame.locator("#sidebar");
    await sidebar.getByRole("region", { name: "Character" }).waitFor();
    expect(await frame.getAttribute(control("sidebar"), "aria-pressed")).toBe("true");
    // The first line selected, then the sidebar's Bold.
    await frame.focus("#ime");
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+End");
    await sidebar.locator('[data-cmd=".uno:Bold"]').click();
    await sidebar.locator('[data-cmd=".uno:Bold"][aria-pressed="true"]').waitFor();
    // LibreOffice's hyphenation command is not one the door lets through: not offered.
    expect(await sidebar.locator('[data-cmd=".uno:Hyphenate"]').count()).toBe(0);
    const xml = part(await saveAndRead(env, page, id), "word/document.xml");
    expect(xml).toMatch(/<w:b\/>[\s\S]*?<w:t[^>]*>Hello from svc<\/w:t>/);
    await close();
  }, scaled(90_000));
});

describe("LibreOffice's windows never lock the document (issue 45)", () => {
  /** Clicks the AutoFilter arrow of a cell (at the cell's right edge), as a person does. */
  async function clickFilterArrow(page: import("playwright-core").Page, frame: Frame, cell: string): Promise<void> {
    await goTo(frame, cell);
    const r = (await frame.locator("#cellcursor").boundingBox())!;
    await page.mouse.click(r.x + r.width - 6, r.y + r.height - 6);
  }

  test("the AutoFilter drop-down: one list, separators drawn as lines, a submenu only when asked for; ✕ and Escape close the topmost, Cancel and OK close it; the sheet takes typing afterwards", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "A1:C4");
    await press(frame, ".uno:DataFilterAutoFilter");
    await clickFilterArrow(page, frame, "A1");
    const dropDowns = frame.locator(".jsd-dropdown");
    await dropDowns.first().waitFor();
    // One window: the hidden submenus LibreOffice describes with it are not shown.
    const menu = dropDowns.first().locator('[data-widget="menu"]').first();
    await menu.getByRole("menuitem", { name: "Filter by Condition" }).waitFor();
    expect(await dropDowns.count()).toBe(1);
    expect(await menu.getByRole("menuitem", { name: "Separator" }).count()).toBe(0);
    expect(await menu.getByRole("separator").count()).toBeGreaterThan(0);
    // A menu of items with its lines, the search field named: nothing serious for axe-core.
    expect(await seriousViolations(frame)).toEqual([]);
    // The submenu, asked for.
    await menu.getByRole("menuitem", { name: "Filter by Condition" }).click();
    await until(() => dropDowns.count(), (n) => n === 2, "the submenu open");
    // ✕ closes the topmost, Escape the next.
    await dropDowns.nth(1).locator(".jsd-close").click();
    await until(() => dropDowns.count(), (n) => n <= 1, "the submenu closed");
    await page.keyboard.press("Escape");
    await until(() => dropDowns.count(), (n) => n === 0, "the drop-down closed");
    // Cancel closes it; OK applies and closes it.
    await clickFilterArrow(page, frame, "B1");
    await dropDowns.first().waitFor();
    await dropDowns.first().getByRole("button", { name: "Cancel", exact: true }).click();
    await until(() => dropDowns.count(), (n) => n === 0, "closed by Cancel");
    await clickFilterArrow(page, frame, "C1");
    await dropDowns.first().waitFor();
    await dropDowns.first().getByRole("button", { name: "OK", exact: true }).click();
    await until(() => dropDowns.count(), (n) => n === 0, "closed by OK");
    expect(await frame.evaluate(() => window.edState.modalWindows)).toBe(0);
    // The sheet takes typing again.
    await goTo(frame, "E6");
    await frame.focus("#ime");
    await page.keyboard.type("after");
    await page.keyboard.press("Enter");
    const cells = sheetCells(await saveAndRead(env, page, id));
    expect(cells.get("E6")?.value).toBe("after");
    await close();
  }, scaled(120_000));

  test("a painted dialog's field takes Vietnamese text and Ctrl+A (its own, not the page's), and the document behind gets nothing", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    const canvas = await conditionalFormatting(frame);
    const window = frame.locator('.jsd-tunnelled[data-dialog="ConditionalFormatDialog"]');
    // The condition's value field (right of "is equal to"), clicked as a person does.
    await canvas.click({ position: { x: 610, y: 68 } });
    await page.keyboard.type("99");
    // Ctrl+A is the field's: nothing of the page is selected, and what is typed next replaces the field's text.
    await page.keyboard.press("Control+A");
    expect(await frame.evaluate(() => String(getSelection()))).toBe("");
    await page.keyboard.insertText('"Bảng giá"');
    // The document behind a modal dialog takes nothing, even sent straight to the server.
    await frame.evaluate(() => { (window as any).edApi.send("textinput text=" + encodeURIComponent("Tên bảng")); });
    await page.keyboard.press("Enter");
    await window.waitFor({ state: "detached" });
    const bytes = await saveAndRead(env, page, id);
    const sheet = part(bytes, "xl/worksheets/sheet1.xml");
    expect(sheet).toMatch(/<conditionalFormatting [^>]*sqref="B2:B4"/);
    expect(sheet).toContain("Bảng giá");
    expect(sheet).not.toContain("99");
    expect(JSON.stringify([...sheetCells(bytes).values()])).not.toContain("Tên");
    await close();
  }, scaled(90_000));

  // Issue 45, item 6: a painted dialog is read control by control. The kit describes its controls
  // from VCL; the page mirrors them for a screen reader, names the one LibreOffice's keyboard is on,
  // and presses one activated in the mirror where it is painted.
  test("a painted dialog is read control by control: named controls with their values, the one Tab reaches said, one pressed from the mirror", async () => {
    const { page, frame, close } = await openFixture(env, "hello.xlsx");
    await conditionalFormatting(frame);
    const window = frame.locator('.jsd-tunnelled[data-dialog="ConditionalFormatDialog"]');
    const controls = window.locator(".jsd-window-controls");
    // Out of sight (a screen reader's, not the eye's): attached, not visible.
    await controls.getByRole("button", { name: "OK", exact: true }).waitFor({ state: "attached" });
    for (const name of ["Add", "Delete", "Cancel"]) expect(await controls.getByRole("button", { name, exact: true }).count()).toBe(1);
    // A field is named by its label and holds its value; a list says the entry chosen.
    expect(await controls.getByRole("textbox", { name: "Range:", exact: true }).textContent()).toBe("B2:B4");
    expect(await controls.getByRole("combobox").first().textContent()).toBe("Cell value");
    expect(await controls.getByText("Condition 2").count()).toBe(0);
    // Activated as a screen reader activates it: the condition is added in LibreOffice's dialog.
    await controls.getByRole("button", { name: "Add", exact: true }).dispatchEvent("click");
    await controls.getByText("Condition 2").waitFor({ state: "attached" });
    // The keyboard is the painted window's; its field names the control LibreOffice focused.
    const keyboard = window.locator(".jsd-window-input");
    const focusedName = () => keyboard.evaluate((k) => document.getElementById(k.getAttribute("aria-activedescendant") ?? "")?.getAttribute("aria-label") ?? "");
    await until(focusedName, (n) => n === "Add", "Add said as focused");
    await page.keyboard.press("Tab");
    await until(focusedName, (n) => n === "Delete", "Tab's next control said");
    expect(await seriousViolations(frame)).toEqual([]);
    await controls.getByRole("button", { name: "Cancel", exact: true }).dispatchEvent("click");
    await window.waitFor({ state: "detached" });
    await close();
  }, scaled(90_000));

  // Issue 45, item 2: the keyboard and text input in a dialog are the dialog's. Insert > Table is a
  // window LibreOffice paints (25.2 does not describe it as JSDialog): what is typed while its Name
  // field has the focus names the table, and nothing of it reaches the document behind.
  for (const how of ["typed", "composed (IME)"] as const) {
    test(`Insert > Table: a Vietnamese name ${how} into the dialog's Name field names the table, and the document gets none of it`, async () => {
      const { page, frame, close } = await openFixture(env, "hello.docx");
      await page.keyboard.press("Control+End");
      await showTabOf(frame, ".uno:InsertTable");
      await frame.click(control(".uno:InsertTable"));
      await frame.click(".tb-table-more");
      const dialog = frame.locator('.jsd-tunnelled[data-dialog="InsertTableDialog"]');
      await dialog.waitFor();
      const canvas = dialog.locator("canvas");
      await until(() => canvas.evaluate((c: HTMLCanvasElement) => c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0)), (painted) => painted, "the window painted");
      // Its Name field (top right of "Name:"), clicked as a person does; its text replaced.
      await canvas.click({ position: { x: 220, y: 43 } });
      await page.keyboard.press("Control+A");
      if (how === "typed") await page.keyboard.type("Bảng giá");
      else {
        // As an input method does: the word composed, then committed, then the rest typed.
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Input.imeSetComposition", { text: "Bả", selectionStart: 2, selectionEnd: 2 });
        await cdp.send("Input.imeSetComposition", { text: "Bảng", selectionStart: 4, selectionEnd: 4 });
        await cdp.send("Input.insertText", { text: "Bảng" });
        await cdp.send("Input.insertText", { text: " giá" });
      }
      // Rows: 3 (the field right of "Rows:"), then Insert.
      await canvas.click({ position: { x: 290, y: 75 } });
      await page.keyboard.press("Control+A");
      await page.keyboard.type("3");
      // The document behind the modal dialog takes nothing, even sent straight to the server.
      await frame.evaluate(() => { (window as any).edApi.send("textinput text=" + encodeURIComponent("Tên bảng")); });
      await canvas.click({ position: { x: 287, y: 247 } });
      await dialog.waitFor({ state: "detached" });
      await frame.waitForFunction(() => window.edState.modified === true, undefined, { polling: 50 });
      // A docx keeps no table's name (LibreOffice writes none): the document is read as ODF,
      // downloaded as a person does, where the name is the table's table:name.
      const [download] = await Promise.all([page.waitForEvent("download"), frame.selectOption("#download", "odt")]);
      const content = strFromU8(unzipSync(new Uint8Array(await Bun.file((await download.path())!).arrayBuffer()))["content.xml"]!);
      const table = /<table:table [\s\S]*?<\/table:table>/.exec(content)?.[0] ?? "";
      // LibreOffice's Name field lets no space into a table's name (its filter " .<>", as on the desktop).
      expect(/table:name="([^"]*)"/.exec(table)?.[1]).toBe("Bảnggiá");
      expect(table.match(/<table:table-row[ >]/g)?.length).toBe(3);
      // The name only in the table's properties: no text of the document has any of it.
      const text = content.replace(/<[^>]*>/g, " ");
      expect(text).not.toContain("Bả");
      expect(text).not.toContain("giá");
      expect(text).not.toContain("Tên");
      await close();
    }, scaled(90_000));
  }
});
