import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { readFileSync } from "node:fs";
import path from "node:path";
import { targetsOf } from "../../workers/formats";
import { buildNative, countUnits, familyOf, nativeFormat, prepareScript, requestedOutputs, ScriptRunError, scriptRunFailed, validateScript, writeNative, type Script } from "./index";
import { Package } from "./testing";

const FIXTURES = path.resolve(import.meta.dir, "../../fixtures/svcscript");
const load = (name: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, name), "utf8"));
const valid = (input: unknown): Script => {
  const v = validateScript(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.script;
};
const wt = (xml: string) => [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]!);
const at = (xml: string) => [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]!);

describe("the example scripts of docs/svcscript.md build", () => {
  test("invoice.json: a text document with header, footer, table, lists and a second page", async () => {
    const script = valid(load("invoice.json"));
    expect([familyOf(script), nativeFormat(script)]).toEqual(["text", "docx"]);
    expect(requestedOutputs(script)).toEqual(["docx", "pdf"]);
    expect(countUnits(script)).toBe(71);
    const pkg = new Package(await writeNative(script));
    const body = wt(pkg.text("word/document.xml"));
    expect(body).toContain("HÓA ĐƠN BÁN HÀNG");
    expect(body).toContain("11.556.000");
    expect(body).toContain("Chậm thanh toán chịu lãi 0,05% mỗi ngày.");
    expect(pkg.names("word/media/").length).toBe(1);
    expect(pkg.text("docProps/core.xml")).toContain("<dc:title>Hóa đơn HD-2024-0193</dc:title>");
  });

  test("data-export.json: two sheets with dates, formulas, formats, a frozen header and merges", async () => {
    const script = valid(load("data-export.json"));
    expect([familyOf(script), nativeFormat(script)]).toEqual(["spreadsheet", "xlsx"]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await writeNative(script)) as never);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Đơn hàng", "Tổng hợp"]);
    const ws = wb.worksheets[0]!;
    expect(ws.getCell("F2").formula).toBe("D2*E2");
    expect(ws.getCell("B2").numFmt).toBe("dd/mm/yyyy");
    expect(ws.getCell("A1").font.bold).toBe(true);
    expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(wb.worksheets[1]!.getCell("B4").formula).toBe("SUM('Đơn hàng'!F2:F6)");
  });

  test("deck.json: five slides with titles, bullets, a table and images", async () => {
    const script = valid(load("deck.json"));
    expect([familyOf(script), nativeFormat(script)]).toEqual(["presentation", "pptx"]);
    const pkg = new Package(await writeNative(script));
    expect(pkg.names("ppt/slides/slide").length).toBe(5);
    expect(at(pkg.text("ppt/slides/slide1.xml"))).toEqual(["Kết quả kinh doanh quý II/2024", "Phòng Kế hoạch · Tháng 7/2024"]);
    expect(at(pkg.text("ppt/slides/slide3.xml"))).toContain("Miền Trung");
    expect(pkg.names("ppt/media/").length).toBe(2);
  });

  test("every example asks only for outputs of its family", () => {
    for (const name of ["invoice.json", "data-export.json", "deck.json"]) {
      const script = valid(load(name));
      for (const o of requestedOutputs(script)) expect(targetsOf(familyOf(script))).toContain(o);
    }
  });
});

describe("script_error as the spec's error", () => {
  test("buildNative turns a run-time failure into 422 script_error with detail.path", async () => {
    const script = prepareScript({ type: "text", outputs: ["docx"], body: [{ type: "image", data: "AAAA" }] }, 500);
    try {
      await buildNative(script);
      throw new Error("not thrown");
    } catch (e: any) {
      expect(e.code).toBe("script_error");
      expect(e.status).toBe(422);
      expect(e.detail.path).toBe("/body/0");
      expect(e.message).toContain("/body/0");
    }
    expect(scriptRunFailed(new ScriptRunError("/sheets/0/merges/1", "x")).detail).toEqual({ path: "/sheets/0/merges/1", reason: "x" });
  });
});

describe("performance (logged, not asserted)", () => {
  test("a 10-page report with a 200-row table and a 10,000-cell spreadsheet build in-process", async () => {
    const lorem = "Doanh nghiệp đã hoàn thành các chỉ tiêu chính của năm với mức tăng trưởng ổn định ở tất cả các khu vực, ".repeat(6);
    const body: unknown[] = [];
    for (let ch = 1; ch <= 8; ch++) {
      body.push({ type: "heading", text: `Chương ${ch}` });
      for (let p = 0; p < 5; p++) body.push({ type: "paragraph", runs: [{ text: `${ch}.${p} `, bold: true }, lorem] });
      body.push({ type: "list", items: ["Một", "Hai", { text: "Ba", items: ["Ba a", "Ba b"] }] });
    }
    body.push({
      type: "table",
      columns: [15, 60, 30, 30, 35],
      header: ["STT", "Mặt hàng", "SL", "Đơn giá", "Thành tiền"],
      rows: Array.from({ length: 200 }, (_, i) => [i + 1, `Mặt hàng số ${i + 1}`, { text: String(i % 17), align: "right" }, "125.000", { text: "1.000.000", align: "right" }]),
    });
    const report = { type: "text", outputs: ["docx"], body };
    const sheet = {
      type: "spreadsheet",
      outputs: ["xlsx"],
      sheets: [{ name: "Data", freeze: { rows: 1 }, rows: Array.from({ length: 1000 }, (_, r) => Array.from({ length: 10 }, (_, c) => (c === 0 ? `R${r}` : c === 9 ? { formula: `=SUM(B${r + 1}:I${r + 1})` } : r * c))) }],
    };

    // Warm the libraries once so the figures are the steady state.
    await writeNative(valid({ type: "text", outputs: ["docx"], body: [{ type: "paragraph", text: "x" }] }));
    await writeNative(valid({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [[1]] }] }));

    let t = performance.now();
    const r = valid(report);
    const rUnits = countUnits(r);
    const docx = await writeNative(r);
    const reportMs = performance.now() - t;
    t = performance.now();
    const s = valid(sheet);
    const sUnits = countUnits(s);
    const xlsx = await writeNative(s);
    const sheetMs = performance.now() - t;
    console.log(
      `[perf] svcscript report (${rUnits} units, 200-row table) validate+build ${reportMs.toFixed(0)} ms, ${docx.length} bytes; ` +
        `spreadsheet (${sUnits} units, 10,000 cells) validate+build ${sheetMs.toFixed(0)} ms, ${xlsx.length} bytes`,
    );
    expect(docx.length).toBeGreaterThan(0);
    expect(xlsx.length).toBeGreaterThan(0);
  });
});

describe("docs/svcscript.md stays true", () => {
  const docs = readFileSync(path.resolve(import.meta.dir, "../../docs/svcscript.md"), "utf8");
  const blocks = [...docs.matchAll(/```json\n([\s\S]*?)\n\s*```/g)].map((m) => m[1]!);

  test("the docs show the three example scripts exactly as in fixtures/svcscript", () => {
    for (const name of ["invoice.json", "data-export.json", "deck.json"]) {
      const fixture = load(name);
      expect(blocks.some((b) => Bun.deepEquals((() => { try { return JSON.parse(b); } catch { return undefined; } })(), fixture))).toBe(true);
    }
  });

  test("the worked units example and the examples' costs are what countUnits says", () => {
    const worked = JSON.parse(blocks.find((b) => b.startsWith("[") && b.includes('"Báo cáo"'))!);
    expect(countUnits({ body: worked })).toBe(16);
    expect(docs).toContain("costs **16** units");
    expect([countUnits(load("invoice.json")), countUnits(load("data-export.json")), countUnits(load("deck.json"))]).toEqual([71, 56, 45]);
    expect(docs).toContain("cost 71 (invoice), 56 (data export) and 45");
  });

  test("the script_invalid example is what the service answers for those three mistakes", () => {
    const example = JSON.parse(blocks.find((b) => b.includes('"script_invalid"'))!);
    const v = validateScript({ type: "text", outputs: ["docx"], body: [{ type: "heading", level: 7, text: "x" }, { type: "paragraph", color: "blue" }, { type: "chart" }] });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.errors).toEqual(example.error.detail.errors);
  });
});
