import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { ScriptRunError, validateScript, writeNative } from "./index";
import { formulaProblem } from "./spreadsheet";
import { Package } from "./testing";

async function build(sheets: unknown[], extra: Record<string, unknown> = {}) {
  const v = validateScript({ type: "spreadsheet", outputs: ["xlsx"], sheets, ...extra });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const bytes = await writeNative(v.script);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as never);
  return { wb, pkg: new Package(bytes) };
}

async function runError(sheets: unknown[]): Promise<ScriptRunError> {
  const v = validateScript({ type: "spreadsheet", outputs: ["xlsx"], sheets });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  try {
    await writeNative(v.script);
  } catch (e) {
    if (e instanceof ScriptRunError) return e;
    throw e;
  }
  throw new Error("expected a ScriptRunError");
}

describe("spreadsheet: sheets and values", () => {
  test("several sheets keep their names and order; unnamed sheets are Sheet<n>", async () => {
    const { wb } = await build([{ name: "Đơn hàng", rows: [] }, { rows: [] }, { name: "Tổng hợp", rows: [] }]);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Đơn hàng", "Sheet2", "Tổng hợp"]);
  });

  test("strings, numbers, booleans, dates and empty cells read back as written", async () => {
    const { wb } = await build([{ rows: [["Tên", 12.5, true, false, null, { date: "2024-05-02" }, { date: "2024-05-02T14:30" }, -3], [null, "B2"]] }]);
    const ws = wb.worksheets[0]!;
    expect(ws.getCell("A1").value).toBe("Tên");
    expect(ws.getCell("B1").value).toBe(12.5);
    expect(ws.getCell("C1").value).toBe(true);
    expect(ws.getCell("D1").value).toBe(false);
    expect(ws.getCell("E1").value).toBeNull();
    expect((ws.getCell("F1").value as Date).toISOString()).toBe("2024-05-02T00:00:00.000Z");
    expect(ws.getCell("F1").numFmt).toBe("yyyy-mm-dd");
    expect((ws.getCell("G1").value as Date).toISOString()).toBe("2024-05-02T14:30:00.000Z");
    expect(ws.getCell("G1").numFmt).toBe("yyyy-mm-dd hh:mm");
    expect(ws.getCell("H1").value).toBe(-3);
    expect(ws.getCell("A2").value).toBeNull();
    expect(ws.getCell("B2").value).toBe("B2");
  });

  test("formulas are stored without the leading = and computed on load", async () => {
    const { wb, pkg } = await build([{ name: "S", rows: [[1, 2, { formula: "=SUM(A1:B1)" }, { formula: "IF(A1>0,\"có\",\"không\")" }]] }, { rows: [[{ formula: "='S'!C1*2" }]] }]);
    expect(wb.worksheets[0]!.getCell("C1").formula).toBe("SUM(A1:B1)");
    expect(wb.worksheets[0]!.getCell("D1").formula).toBe('IF(A1>0,"có","không")');
    expect(wb.worksheets[1]!.getCell("A1").formula).toBe("'S'!C1*2");
    expect(pkg.text("xl/workbook.xml")).toContain('fullCalcOnLoad="1"');
  });

  test("a string that starts with = stays text", async () => {
    const { wb } = await build([{ rows: [["=1+1"]] }]);
    expect(wb.worksheets[0]!.getCell("A1").value).toBe("=1+1");
    expect(wb.worksheets[0]!.getCell("A1").formula).toBeUndefined();
  });
});

describe("spreadsheet: formatting", () => {
  test("number formats from the cell, the row and the column, in that order", async () => {
    const { wb } = await build([
      {
        columns: [{ width: 12, format: "#,##0" }, 10],
        rows: [[1234567, { value: 0.25, format: "0%" }], { cells: [5, 6], format: "0.00" }, [{ value: 7, format: "0.0" }]],
      },
    ]);
    const ws = wb.worksheets[0]!;
    expect(ws.getCell("A1").numFmt).toBe("#,##0");
    expect(ws.getCell("B1").numFmt).toBe("0%");
    expect(ws.getCell("A2").numFmt).toBe("0.00");
    expect(ws.getCell("B2").numFmt).toBe("0.00");
    expect(ws.getCell("A3").numFmt).toBe("0.0");
  });

  test("bold, italic, colour, fill and alignment on cells and whole rows", async () => {
    const { wb } = await build([
      {
        rows: [
          { cells: ["H1", { value: "H2", fill: "#FF0000" }], bold: true, fill: "#1F4E79", color: "#FFFFFF", align: "center" },
          [{ value: "x", italic: true, wrap: true }, "plain"],
        ],
      },
    ]);
    const ws = wb.worksheets[0]!;
    expect(ws.getCell("A1").font.bold).toBe(true);
    expect(ws.getCell("A1").font.color?.argb).toBe("FFFFFFFF");
    expect((ws.getCell("A1").fill as ExcelJS.FillPattern).fgColor?.argb).toBe("FF1F4E79");
    expect((ws.getCell("B1").fill as ExcelJS.FillPattern).fgColor?.argb).toBe("FFFF0000");
    expect(ws.getCell("A1").alignment.horizontal).toBe("center");
    expect(ws.getCell("A2").font.italic).toBe(true);
    expect(ws.getCell("A2").alignment.wrapText).toBe(true);
    expect(ws.getCell("B2").font?.bold).toBeFalsy();
  });

  test("column widths, hidden columns and row heights", async () => {
    const { wb } = await build([{ columns: [25, null, { width: 8, hidden: true }], rows: [{ cells: ["a"], height: 30 }] }]);
    const ws = wb.worksheets[0]!;
    expect(ws.getColumn(1).width).toBe(25);
    expect(ws.getColumn(3).width).toBe(8);
    expect(ws.getColumn(3).hidden).toBe(true);
    expect(ws.getRow(1).height).toBe(30);
  });

  test("a frozen header row and frozen columns", async () => {
    const { wb, pkg } = await build([{ freeze: { rows: 1 }, rows: [["h"]] }, { freeze: { rows: 2, columns: 1 }, rows: [] }]);
    expect(wb.worksheets[0]!.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(pkg.text("xl/worksheets/sheet1.xml")).toMatch(/<pane [^>]*ySplit="1"[^>]*topLeftCell="A2"[^>]*state="frozen"/);
    expect(pkg.text("xl/worksheets/sheet2.xml")).toMatch(/<pane xSplit="1" ySplit="2" topLeftCell="B3"[^>]*state="frozen"/);
  });

  test("merged cells are written as merge ranges", async () => {
    const { pkg } = await build([{ rows: [["Tiêu đề"], ["a", "b", "c"]], merges: ["A1:C1", "b3:a2"] }]);
    const xml = pkg.text("xl/worksheets/sheet1.xml");
    expect(xml).toContain('<mergeCell ref="A1:C1"/>');
    expect(xml).toContain('<mergeCell ref="A2:B3"/>');
  });

  test("title, author and subject are in docProps/core.xml", async () => {
    const { pkg } = await build([{ rows: [] }], { properties: { title: "Xuất dữ liệu", author: "Hệ thống", subject: "Đơn hàng" } });
    const core = pkg.text("docProps/core.xml");
    expect(core).toContain("<dc:title>Xuất dữ liệu</dc:title>");
    expect(core).toContain("<dc:creator>Hệ thống</dc:creator>");
    expect(core).toContain("<dc:subject>Đơn hàng</dc:subject>");
  });
});

describe("spreadsheet: run-time failures point at the failing element", () => {
  test("overlapping merged ranges fail at the later range, naming both", async () => {
    const err = await runError([{ rows: [], merges: ["A1:C1"] }, { rows: [], merges: ["A1:B2", "D4:E5", "B2:D4"] }]);
    expect(err.path).toBe("/sheets/1/merges/2");
    expect(err.message).toContain("B2:D4 overlaps A1:B2");
  });

  test("a merge of a single cell fails", async () => {
    expect((await runError([{ rows: [], merges: ["B2:B2"] }])).path).toBe("/sheets/0/merges/0");
  });

  test("a merge past Excel's last column fails", async () => {
    expect((await runError([{ rows: [], merges: ["XFD1:XFE1"] }])).message).toContain("XFD1048576");
  });

  test("a syntactically broken formula fails at its cell, in plain and object rows", async () => {
    const e1 = await runError([{ rows: [[1], [2, { formula: "=SUM(A1:A2" }]] }]);
    expect(e1.path).toBe("/sheets/0/rows/1/1");
    expect(e1.message).toContain("never closed");
    const e2 = await runError([{ rows: [{ cells: [{ formula: '=IF(A1="x,1,2)' }] }] }]);
    expect(e2.path).toBe("/sheets/0/rows/0/cells/0");
    expect(e2.message).toContain("double quotes");
  });

  test("two sheets with the same name (ignoring case) fail at the second name", async () => {
    const err = await runError([{ name: "Data", rows: [] }, { name: "DATA", rows: [] }]);
    expect(err.path).toBe("/sheets/1/name");
    const unnamed = await runError([{ rows: [] }, { name: "sheet1", rows: [] }]);
    expect(unnamed.path).toBe("/sheets/1/name");
  });
});

describe("formulaProblem: balanced parentheses and quotes, nothing more", () => {
  test("well formed formulas pass, quotes may contain brackets", () => {
    for (const f of ["=SUM(A1:A3)", "A1+B1", '=IF(A1="(",1,2)', "='Sheet (1)'!A1", '=CONCAT("a""b",")")', "={1,2;3,4}", "=Table1[[#Headers],[Col]]"]) expect(formulaProblem(f)).toBeUndefined();
  });
  test("broken formulas are named", () => {
    expect(formulaProblem("=")).toBe("the formula is empty");
    expect(formulaProblem("=SUM(A1))")).toContain('")"');
    expect(formulaProblem("=(A1")).toContain("never closed");
    expect(formulaProblem("='Sheet!A1")).toContain("single quotes");
    expect(formulaProblem("=(A1]")).toContain('"]"');
  });
});
