// The editor's interface for spreadsheets (issue 13, group 2): headers, the address box and the
// formula bar, cell formats, rows and columns, sort, filter, freeze, and sheets from the tab bar;
// each checked in the stored file and in the state the controls show.
import { describe, expect, test } from "bun:test";
import { editorEnvPerFile } from "./testing/editor-env";
import { answer, control, openFixture, part, press, saveAndRead, stateIs } from "./testing/interface";
import { cellFormat, goTo, sheetCells } from "./testing/stored";
import { scaled } from "../testing/until";

const env = editorEnvPerFile();

/** hello.xlsx (A1:C4: Item/Qty/Price; Apple 3 1.5; Chuối 12 0.25; Cherry 100 0.1) opened by Alice. */
const openSheet = () => openFixture(env, "hello.xlsx");

const cells = sheetCells;

describe("spreadsheets on a phone", () => {
  test("a range of cells is selected by touch: a tap on a cell, then its handle dragged to another cell", async () => {
    const f = env.newFile("hello.xlsx");
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice");
    /** A cell's centre on the page (the editor is framed), from the cell cursor placed on it. */
    const centre = async (ref: string) => {
      await goTo(frame, ref);
      await frame.waitForFunction((r) => (document.getElementById("address") as HTMLInputElement).value === r, ref);
      const b = (await frame.locator("#cellcursor").boundingBox())!;
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    };
    const to = await centre("D4");
    const from = await centre("B2");
    const cdp = await ctx.newCDPSession(page);
    const touch = async (type: "touchStart" | "touchMove" | "touchEnd", x: number, y: number) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: type === "touchEnd" ? [] : [{ x, y, id: 0 }] });
    await touch("touchStart", from.x, from.y);
    await touch("touchEnd", from.x, from.y);
    // One cell chosen by touch: its end handle, at its corner.
    const handle = frame.locator(".selhandle-end");
    await handle.waitFor({ state: "visible" });
    expect(await frame.isVisible(".selhandle-start")).toBe(false);
    const h = (await handle.boundingBox())!;
    await touch("touchStart", h.x + h.width / 2, h.y + h.height / 2);
    // The finger moves to D4 (the handle points just above the finger).
    for (let i = 1; i <= 5; i++) await touch("touchMove", h.x + ((to.x - h.x) * i) / 5, h.y + ((to.y + 12 - h.y) * i) / 5);
    await touch("touchEnd", to.x, to.y + 12);
    await frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value === "B2:D4", undefined, { polling: 50 });
    await ctx.close();
  }, scaled(60_000));
});

describe("spreadsheets: where you are", () => {
  test("column letters and row numbers come from the engine and are drawn beside the grid", async () => {
    const { frame, close } = await openSheet();
    await frame.waitForFunction(() => (window as any).edUi.headers?.columns?.length > 3, undefined, { polling: 50 });
    const h = await frame.evaluate(() => (window as any).edUi.headers);
    expect(h.columns.slice(1, 4).map((c: any) => c.text)).toEqual(["A", "B", "C"]);
    expect(h.rows.slice(1, 4).map((r: any) => String(r.text))).toEqual(["1", "2", "3"]);
    // Something is drawn: the letters are darker than the header's background.
    const dark = await frame.evaluate(() => {
      const c = document.getElementById("colheaders") as HTMLCanvasElement;
      const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i]! < 120) n++;
      return n;
    });
    expect(dark).toBeGreaterThan(20);
    await close();
  }, scaled(60_000));

  test("the address box goes to the cell typed in it and shows the current cell; the formula bar shows and edits its formula", async () => {
    const { id, page, frame, close } = await openSheet();
    await frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value === "A1");
    await goTo(frame, "E5");
    await frame.fill("#formula", "=B2+B3");
    await frame.press("#formula", "Enter");
    await goTo(frame, "B3");
    await frame.waitForFunction(() => (document.getElementById("formula") as HTMLInputElement).value === "12");
    await goTo(frame, "E5");
    await frame.waitForFunction(() => (document.getElementById("formula") as HTMLInputElement).value === "=B2+B3");
    // Keys move the cell cursor: the address box follows.
    await page.keyboard.press("ArrowDown");
    await frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value === "E6");
    const c = cells(await saveAndRead(env, page, id));
    expect(c.get("E5")).toMatchObject({ formula: "B2+B3", value: "15" });
    await close();
  }, scaled(60_000));

  test("the status bar shows the sum of the selected cells", async () => {
    const { frame, close } = await openSheet();
    await goTo(frame, "B2:B4");
    await frame.waitForFunction(() => /115/.test(document.getElementById("sb-count")!.textContent ?? ""), undefined, { polling: 50 });
    await close();
  }, scaled(60_000));

  test("a text cell shows no sum in the status bar (not \"Average: ; Sum: 0\")", async () => {
    const { frame, close } = await openSheet();
    await goTo(frame, "B2:B4");
    await frame.waitForFunction(() => /115/.test(document.getElementById("sb-count")!.textContent ?? ""), undefined, { polling: 50 });
    await goTo(frame, "A1");
    await frame.waitForFunction(() => (window as any).edUi.state[".uno:StateTableCell"] !== undefined && !/115/.test((window as any).edUi.state[".uno:StateTableCell"]), undefined, { polling: 50 });
    expect(await frame.evaluate(() => (window as any).edUi.state[".uno:StateTableCell"])).toMatch(/:\s*;/);
    expect(await frame.textContent("#sb-count")).toBe("");
    await close();
  }, scaled(60_000));
});

describe("spreadsheets: formatting cells", () => {
  test("number formats (percent, currency, date, number, general) change the stored cell's format, and the picker shows the format at the cursor", async () => {
    const { id, page, frame, close } = await openSheet();
    const set = async (ref: string, cmd: string) => { await goTo(frame, ref); await frame.selectOption(".tb-numfmt", cmd); };
    await set("C2", ".uno:NumberFormatPercent");
    await set("C3", ".uno:NumberFormatCurrency");
    await set("B2", ".uno:NumberFormatDate");
    await set("B3", ".uno:NumberFormatDecimal");
    await set("C4", ".uno:NumberFormatPercent");
    await set("C4", ".uno:NumberFormatStandard");
    await goTo(frame, "C2");
    await stateIs(frame, ".uno:NumberFormatPercent", "true");
    // The picker shows the format of the cell at the cursor.
    await frame.waitForFunction(() => (document.querySelector(".tb-numfmt") as HTMLSelectElement).value === ".uno:NumberFormatPercent");
    await goTo(frame, "C3");
    await frame.waitForFunction(() => (document.querySelector(".tb-numfmt") as HTMLSelectElement).value === ".uno:NumberFormatCurrency");
    await goTo(frame, "C4");
    await frame.waitForFunction(() => (document.querySelector(".tb-numfmt") as HTMLSelectElement).value === ".uno:NumberFormatStandard");
    const bytes = await saveAndRead(env, page, id);
    const c = cells(bytes);
    const fmt = (ref: string) => cellFormat(bytes, c.get(ref)!).numFmt;
    expect(fmt("C2")).toMatch(/%|builtin (9|10)/);
    expect(fmt("C3")).toMatch(/\[\$|€|\$|builtin (5|6|7|8|164)/);
    expect(fmt("B2")).toMatch(/(Y|y).*(M|m).*(D|d)|(D|d).*(M|m).*(Y|y)|(M|m).*(D|d).*(Y|y)|builtin 14/);
    expect(fmt("B3")).toMatch(/0\.00|builtin (2|4)/);
    expect(fmt("C4")).toMatch(/^(General|builtin 0)$/);
    await close();
  }, scaled(60_000));

  test("fill colour, bold, wrap and merge change the stored cells, and the buttons show the state at the cursor", async () => {
    const { id, page, frame, close } = await openSheet();
    await goTo(frame, "A2");
    await frame.$eval('[role=dialog][aria-label="Fill colour"] input[type=color]', (i) => { (i as HTMLInputElement).value = "#f6d32d"; i.dispatchEvent(new Event("change")); });
    await press(frame, ".uno:Bold");
    await stateIs(frame, ".uno:Bold", "true");
    await press(frame, ".uno:WrapText");
    await stateIs(frame, ".uno:WrapText", "true");
    await goTo(frame, "A6:C6");
    await press(frame, ".uno:ToggleMergeCells");
    await stateIs(frame, ".uno:ToggleMergeCells", "true");
    await goTo(frame, "A3");
    await stateIs(frame, ".uno:Bold", "false");
    expect(await frame.getAttribute(control(".uno:Bold"), "aria-pressed")).toBe("false");

    const bytes = await saveAndRead(env, page, id);
    const styles = part(bytes, "xl/styles.xml");
    const a2 = cellFormat(bytes, cells(bytes).get("A2")!).xf;
    expect(a2).toContain('wrapText="true"');
    const fill = Number(/fillId="(\d+)"/.exec(a2)![1]);
    const fills = [.../<fills[^>]*>([\s\S]*?)<\/fills>/.exec(styles)![1]!.matchAll(/<fill>[\s\S]*?<\/fill>/g)].map((m) => m[0]);
    expect(fills[fill]).toMatch(/rgb="FFF6D32D"/i);
    const font = Number(/fontId="(\d+)"/.exec(a2)![1]);
    const fonts = [.../<fonts[^>]*>([\s\S]*?)<\/fonts>/.exec(styles)![1]!.matchAll(/<font>[\s\S]*?<\/font>/g)].map((m) => m[0]);
    expect(fonts[font]).toMatch(/<b( val="true")?\/>/);
    expect(part(bytes, "xl/worksheets/sheet1.xml")).toContain('<mergeCell ref="A6:C6"/>');
    await close();
  }, scaled(60_000));

  test("borders: all borders puts a line on every side of every selected cell; none removes them", async () => {
    const { id, page, frame, close } = await openSheet();
    await goTo(frame, "B2:C3");
    await frame.selectOption(".tb-borders", "all");
    await goTo(frame, "B4");
    await frame.selectOption(".tb-borders", "outer");
    await goTo(frame, "B4");
    await frame.selectOption(".tb-borders", "none");
    const bytes = await saveAndRead(env, page, id);
    const borderOf = (ref: string) => cellFormat(bytes, cells(bytes).get(ref)!).border;
    for (const ref of ["B2", "C2", "B3", "C3"]) {
      const b = borderOf(ref);
      for (const side of ["left", "right", "top", "bottom"]) expect(b).toMatch(new RegExp(`<${side} style="\\w+"`));
    }
    expect(borderOf("B4")).not.toMatch(/style="/);
    await close();
  }, scaled(60_000));
});

describe("spreadsheets: rows, columns, data", () => {
  test("insert a row above and a column before, delete a row and a column: the cells move in the stored sheet", async () => {
    const { id, page, frame, close } = await openSheet();
    await goTo(frame, "A2");
    await press(frame, ".uno:InsertRowsBefore"); // Apple moves to row 3
    await goTo(frame, "B1");
    await press(frame, ".uno:InsertColumnsBefore"); // Qty moves to C
    await goTo(frame, "A4");
    await press(frame, ".uno:DeleteRows"); // Chuối (now row 4) goes
    await goTo(frame, "D1");
    await press(frame, ".uno:DeleteColumns"); // Price (now D) goes
    await goTo(frame, "A1");
    const c = cells(await saveAndRead(env, page, id));
    expect(c.get("A3")?.value).toBe("Apple");
    expect(c.get("C1")?.value).toBe("Qty");
    expect(c.get("A4")?.value).toBe("Cherry");
    expect([...c.values()].some((x) => x.value === "Chuối" || x.value === "Price")).toBe(false);
    expect(c.get("A2")?.value ?? "").toBe("");
    await close();
  }, scaled(60_000));

  test("sort descending orders the selected rows; autofilter and freeze panes are stored with the sheet", async () => {
    const { id, page, frame, close } = await openSheet();
    await goTo(frame, "A2:C4");
    await press(frame, ".uno:SortDescending");
    await goTo(frame, "A1:C4");
    await press(frame, ".uno:DataFilterAutoFilter");

    await goTo(frame, "B2");
    await press(frame, ".uno:FreezePanes");
    await stateIs(frame, ".uno:FreezePanes", "true");
    const bytes = await saveAndRead(env, page, id);
    const c = cells(bytes);
    expect(["A2", "A3", "A4"].map((r) => c.get(r)?.value)).toEqual(["Chuối", "Cherry", "Apple"]);
    expect(c.get("B2")?.value).toBe("12"); // the rows moved whole
    const sheet = part(bytes, "xl/worksheets/sheet1.xml");
    expect(sheet).toMatch(/<autoFilter ref="A1:C4"/);
    expect(sheet).toMatch(/<pane xSplit="1" ySplit="1" [^>]*state="frozen"/);
    await close();
  }, scaled(60_000));
});

describe("spreadsheets: the tab bar", () => {
  test("a sheet is added with +, renamed from the tab bar and deleted; the stored workbook has the sheets", async () => {
    const { id, page, frame, close } = await openSheet();
    const tabs = () => frame.$$eval("#parts button", (bs) => bs.map((b) => b.textContent));
    await frame.click("#sheetactions " + control(".uno:Insert"));
    await frame.waitForFunction(() => document.querySelectorAll("#parts button").length === 2);
    expect(await tabs()).toEqual(["hello", "Sheet2"]);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    // Renamed by a double click on its tab.
    await frame.dblclick("#parts button:nth-child(2)");
    await answer(frame, ["Budget 2027"]);
    await frame.waitForFunction(() => [...document.querySelectorAll("#parts button")].some((b) => b.textContent === "Budget 2027"));
    let wb = part(await saveAndRead(env, page, id), "xl/workbook.xml");
    expect([...wb.matchAll(/<sheet name="([^"]+)"/g)].map((m) => m[1])).toEqual(["hello", "Budget 2027"]);

    await frame.click("#parts button:nth-child(1)");
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 0);
    await frame.click("#sheetactions " + control(".uno:Remove"));
    await frame.waitForFunction(() => document.querySelectorAll("#parts button").length === 1);
    expect(await tabs()).toEqual(["Budget 2027"]);
    wb = part(await saveAndRead(env, page, id), "xl/workbook.xml");
    expect([...wb.matchAll(/<sheet name="([^"]+)"/g)].map((m) => m[1])).toEqual(["Budget 2027"]);
    await close();
  }, scaled(60_000));
});
