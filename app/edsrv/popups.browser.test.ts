// LibreOffice's popups in the browser (issue 45, item 1): the AutoFilter's list of values, the
// cell validity list and the toolbar's colour palettes each work as a person expects, and none is
// left open over the document. Real editing server, real kits with the full LibreOffice, Debian's
// Chromium, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import type { Frame, Page } from "playwright-core";
import { FIXTURES, startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { control, openFixture, part, press, saveAndRead } from "./testing/interface";
import { goTo, sheetCells } from "./testing/stored";
import { scaled, until } from "../testing/until";
import { seriousViolations } from "../testing/axe";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** Clicks the AutoFilter arrow of a cell (at the cell's right edge), as a person does. */
async function clickFilterArrow(page: Page, frame: Frame, cell: string): Promise<void> {
  await goTo(frame, cell);
  const r = (await frame.locator("#cellcursor").boundingBox())!;
  await page.mouse.click(r.x + r.width - 6, r.y + r.height - 6);
}

/** Whether each stored row (1-based) of the first sheet is hidden. */
const hiddenRows = (sheet: string): Record<string, boolean> =>
  Object.fromEntries([...sheet.matchAll(/<row r="(\d+)"([^>]*)>/g)].map((m) => [m[1]!, / hidden="(true|1)"/.test(m[2]!)]));

/** hello.xlsx with a validity of type list on A6 (Red, Green, Blue), as Excel writes one. */
function withValidityList(): Uint8Array {
  const files = unzipSync(readFileSync(path.join(FIXTURES, "hello.xlsx")));
  const sheet = strFromU8(files["xl/worksheets/sheet1.xml"]!);
  const validity = '<dataValidations count="1"><dataValidation type="list" allowBlank="true" sqref="A6"><formula1>"Red,Green,Blue"</formula1></dataValidation></dataValidations>';
  files["xl/worksheets/sheet1.xml"] = strToU8(sheet.replace("<printOptions", validity + "<printOptions"));
  return zipSync(files);
}

describe("LibreOffice's popups (issue 45)", () => {
  test("the AutoFilter list's values can be ticked: OK keeps only the ticked rows", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "A1:C4");
    await press(frame, ".uno:DataFilterAutoFilter");
    await clickFilterArrow(page, frame, "A1");
    const dropDown = frame.locator(".jsd-dropdown").first();
    const cherry = dropDown.getByRole("checkbox", { name: "Cherry", exact: true });
    await cherry.waitFor();
    expect(await cherry.isChecked()).toBe(true);
    // Every value a labelled checkbox, every button named: axe-core finds nothing serious.
    expect(await seriousViolations(frame)).toEqual([]);
    await cherry.uncheck();
    // The tick and then OK go to LibreOffice in this order (the kit runs a view's events in turn).
    await dropDown.getByRole("button", { name: "OK", exact: true }).click();
    await until(() => frame.locator(".jsd-dropdown").count(), (n) => n === 0, "closed by OK");
    // Cherry is row 4; Apple (2) and Chuối (3) stay.
    const rows = hiddenRows(part(await saveAndRead(env, page, id), "xl/worksheets/sheet1.xml"));
    expect([rows["2"], rows["3"], rows["4"]]).toEqual([false, false, true]);
    await close();
  }, scaled(120_000));

  test("a cell's validity list opens with Alt+Down at the cell, and the entry picked is written into the cell", async () => {
    const f = env.newFile("validity.xlsx", withValidityList());
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, frame } = await env.openEditor(ctx, f.src);
    await goTo(frame, "A6");
    await frame.focus("#ime");
    await page.keyboard.press("Alt+ArrowDown");
    const list = frame.locator(".jsd-dropdown");
    await list.getByRole("menuitem", { name: "Green", exact: true }).waitFor({ timeout: scaled(30_000) });
    // At the cell, not in a corner of the page.
    const cell = (await frame.locator("#cellcursor").boundingBox())!, box = (await list.boundingBox())!;
    expect(Math.abs(box.x - cell.x)).toBeLessThan(40);
    expect(Math.abs(box.y - (cell.y + cell.height))).toBeLessThan(40);
    await list.getByRole("menuitem", { name: "Green", exact: true }).click();
    await until(() => list.count(), (n) => n === 0, "the list closed");
    expect(await frame.evaluate(() => window.edState.modalWindows)).toBe(0);
    expect(sheetCells(await saveAndRead(env, page, f.id)).get("A6")?.value).toBe("Green");
    await ctx.close();
  }, scaled(120_000));

  test("a cell's validity list has its drop-down button at the cell, shown only there: a click opens the list and the entry picked is written", async () => {
    const f = env.newFile("validity-button.xlsx", withValidityList());
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, frame } = await env.openEditor(ctx, f.src);
    const drop = frame.locator("#validity-list");
    await goTo(frame, "A6");
    await drop.waitFor({ state: "visible", timeout: scaled(30_000) });
    expect(await seriousViolations(frame)).toEqual([]);
    // Right of the cell cursor, not elsewhere on the page.
    const cell = (await frame.locator("#cellcursor").boundingBox())!, button = (await drop.boundingBox())!;
    expect(Math.abs(button.x - (cell.x + cell.width))).toBeLessThan(24);
    expect(Math.abs(button.y - cell.y)).toBeLessThan(8);
    await drop.click();
    const list = frame.locator(".jsd-dropdown");
    await list.getByRole("menuitem", { name: "Blue", exact: true }).click({ timeout: scaled(30_000) });
    await until(() => list.count(), (n) => n === 0, "the list closed");
    // A cell without a list has no button.
    await goTo(frame, "B6");
    await drop.waitFor({ state: "hidden", timeout: scaled(30_000) });
    expect(sheetCells(await saveAndRead(env, page, f.id)).get("A6")?.value).toBe("Blue");
    await ctx.close();
  }, scaled(120_000));

  test("the font colour's palette: ✕ and Escape close it, a colour picked colours the selected word in the stored file, and the document takes typing afterwards", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    const palette = frame.getByRole("dialog", { name: "Text colour" });
    // ✕ closes it, and so does Escape; the keyboard is then the document's again.
    await press(frame, ".uno:Color");
    await palette.getByRole("button", { name: "Close", exact: true }).click();
    await palette.waitFor({ state: "hidden" });
    await press(frame, ".uno:Color");
    await palette.waitFor();
    // Each colour named as LibreOffice names it, the close box too: nothing serious for axe-core.
    expect(await seriousViolations(frame)).toEqual([]);
    await page.keyboard.press("Escape");
    await palette.waitFor({ state: "hidden" });
    // The first word selected, then Red.
    await frame.focus("#ime");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+Shift+ArrowRight");
    await press(frame, ".uno:Color");
    await palette.getByRole("button", { name: "Red", exact: true }).click();
    await palette.waitFor({ state: "hidden" });
    expect(await frame.evaluate(() => window.edState.modalWindows)).toBe(0);
    await page.keyboard.press("End");
    await page.keyboard.type("!");
    const xml = part(await saveAndRead(env, page, id), "word/document.xml");
    expect(xml).toMatch(/<w:color w:val="FF0000"\/>[\s\S]*?<w:t[^>]*>Hello /);
    expect(xml).toMatch(/svc!<\/w:t>/);
    await close();
  }, scaled(90_000));
});
