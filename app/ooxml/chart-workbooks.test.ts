// The chart-workbook step on small packages written here: what it adds, where, and when it leaves
// a package alone. The real documents' round trip is app/docbuilder/structure-kept.test.ts.

import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { memoryLogger } from "../log";
import { keepChartWorkbooks, originalHasChartWorkbooks, restoreChartWorkbooks } from "./chart-workbooks";

const NS = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
const DECL = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n`;

/** A series as LibreOffice writes it: placeholder formulas, the data in caches. */
function series(i: number, name: string, values: number[], categories = ["Q1 &amp; Q2", "Q3"]): string {
  const pts = (vs: (string | number)[]) => vs.map((v, k) => `<c:pt idx="${k}"><c:v>${v}</c:v></c:pt>`).join("");
  return `<c:ser><c:idx val="${i}"/><c:order val="${i}"/><c:tx><c:strRef><c:f>label ${i}</c:f><c:strCache><c:ptCount val="1"/>${pts([name])}</c:strCache></c:strRef></c:tx>` +
    `<c:cat><c:strRef><c:f>categories</c:f><c:strCache><c:ptCount val="${categories.length}"/>${pts(categories)}</c:strCache></c:strRef></c:cat>` +
    `<c:val><c:numRef><c:f>${i}</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="${values.length}"/>${pts(values)}</c:numCache></c:numRef></c:val></c:ser>`;
}

function chart(body: string, tail = `<c:printSettings><c:headerFooter/></c:printSettings>`): string {
  return `${DECL}<c:chartSpace ${NS}><c:lang val="en-US"/><c:chart><c:plotArea><c:barChart>${body}</c:barChart></c:plotArea></c:chart><c:spPr/>${tail}</c:chartSpace>`;
}

const CONTENT_TYPES = `${DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/></Types>`;

function pack(files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));
}

async function sheetRows(bytes: Uint8Array): Promise<unknown[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  const rows: unknown[][] = [];
  wb.getWorksheet("Sheet1")!.eachRow({ includeEmpty: true }, (row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

describe("chart workbooks", () => {
  test("a chart without data gets a workbook laid out as Office does, its relationship, externalData in place, the content type and Sheet1 formulas", async () => {
    const pkg = pack({
      "[Content_Types].xml": CONTENT_TYPES,
      "ppt/charts/chart1.xml": chart(series(0, "North", [1.5, 2]) + series(1, "South", [3, 4])),
    });
    const { bytes, report } = await restoreChartWorkbooks(pkg);
    expect(report).toEqual({ charts: 1, added: 1, skipped: [] });
    // The save path's step gives the same package, rebuilt on its own thread.
    const kept = unzipSync(await keepChartWorkbooks(true, pkg, memoryLogger()));
    expect(Object.keys(kept)).toEqual(Object.keys(unzipSync(bytes)));
    expect(strFromU8(kept["ppt/charts/chart1.xml"]!)).toEqual(strFromU8(unzipSync(bytes)["ppt/charts/chart1.xml"]!));
    const parts = unzipSync(bytes);
    expect(Object.keys(parts)).toEqual(["[Content_Types].xml", "ppt/charts/chart1.xml", "ppt/charts/_rels/chart1.xml.rels", "ppt/embeddings/Microsoft_Excel_Worksheet1.xlsx"]);

    expect(await sheetRows(parts["ppt/embeddings/Microsoft_Excel_Worksheet1.xlsx"]!)).toEqual([
      [undefined, "North", "South"],
      ["Q1 & Q2", 1.5, 3],
      ["Q3", 2, 4],
    ]);
    const rels = strFromU8(parts["ppt/charts/_rels/chart1.xml.rels"]!);
    expect(rels).toContain(`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/package" Target="../embeddings/Microsoft_Excel_Worksheet1.xlsx"/>`);

    const xml = strFromU8(parts["ppt/charts/chart1.xml"]!);
    expect(xml.startsWith(DECL)).toBe(true);
    // ECMA-376's CT_ChartSpace: … c:spPr, c:txPr, c:externalData, c:printSettings, c:userShapes, c:extLst.
    expect(xml).toContain(`<c:spPr/><c:externalData r:id="rId1"><c:autoUpdate val="0"/></c:externalData><c:printSettings>`);
    expect([...xml.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => m[1])).toEqual([
      "Sheet1!$B$1", "Sheet1!$A$2:$A$3", "Sheet1!$B$2:$B$3",
      "Sheet1!$C$1", "Sheet1!$A$2:$A$3", "Sheet1!$C$2:$C$3",
    ]);
    // The cached text, escaped as it was, is untouched.
    expect(xml).toContain("<c:v>Q1 &amp; Q2</c:v>");
    const types = strFromU8(parts["[Content_Types].xml"]!);
    expect(types).toContain(`<Default Extension="xlsx" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"/><Override`);
  });

  test("an existing relationships part keeps its relationships and the new one takes a free id; an existing workbook name is not reused", async () => {
    const pkg = pack({
      "[Content_Types].xml": CONTENT_TYPES.replace("<Override", `<Default Extension="xlsx" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"/><Override`),
      "ppt/charts/chart1.xml": chart(series(0, "A", [1, 2]), ""),
      "ppt/charts/_rels/chart1.xml.rels": `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/themeOverride" Target="../theme/themeOverride1.xml"/></Relationships>`,
      "ppt/embeddings/Microsoft_Excel_Worksheet1.xlsx": "someone else's",
    });
    const parts = unzipSync((await restoreChartWorkbooks(pkg)).bytes);
    const rels = strFromU8(parts["ppt/charts/_rels/chart1.xml.rels"]!);
    expect(rels).toContain(`Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/themeOverride"`);
    expect(rels).toContain(`Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/package" Target="../embeddings/Microsoft_Excel_Worksheet2.xlsx"`);
    expect(strFromU8(parts["ppt/embeddings/Microsoft_Excel_Worksheet1.xlsx"]!)).toBe("someone else's");
    // No printSettings, userShapes or extLst: externalData is chartSpace's last child.
    expect(strFromU8(parts["ppt/charts/chart1.xml"]!)).toEndWith(`<c:externalData r:id="rId2"><c:autoUpdate val="0"/></c:externalData></c:chartSpace>`);
    // The content type was there already: not added twice.
    expect(strFromU8(parts["[Content_Types].xml"]!).match(/Extension="xlsx"/g)).toHaveLength(1);
  });

  test("a chart with no cached data is left as it is, with a log line naming the part and the reason, no content", async () => {
    const noCache = `<c:ser><c:idx val="0"/><c:order val="0"/><c:val><c:numRef><c:f>Secret!$B$2:$B$3</c:f></c:numRef></c:val></c:ser>`;
    const pkg = pack({ "[Content_Types].xml": CONTENT_TYPES, "ppt/charts/chart1.xml": chart(noCache) });
    const { bytes, report } = await restoreChartWorkbooks(pkg);
    expect(report).toEqual({ charts: 1, added: 0, skipped: [{ part: "ppt/charts/chart1.xml", reason: "no cached data" }] });
    expect(bytes).toBe(pkg);
    // The save path's step (the rebuild on its thread) says why, once, and keeps the bytes.
    const log = memoryLogger();
    expect(await keepChartWorkbooks(true, pkg, log)).toBe(pkg);
    expect(log.lines).toHaveLength(2);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({ event: "chart_workbook_skipped", part: "ppt/charts/chart1.xml", reason: "no cached data" });
    expect(log.lines[0]).not.toContain("Secret");
  });

  test("in a workbook, a chart bound to the workbook's own cells stays bound (no workbook of its own)", async () => {
    const bound = series(0, "A", [1, 2]).replace("<c:f>label 0</c:f>", "<c:f>Data!$B$1</c:f>").replace("<c:f>categories</c:f>", "<c:f>Data!$A$2:$A$3</c:f>").replace("<c:f>0</c:f>", "<c:f>Data!$B$2:$B$3</c:f>");
    const pkg = pack({ "[Content_Types].xml": CONTENT_TYPES, "xl/charts/chart1.xml": chart(bound) });
    const { bytes, report } = await restoreChartWorkbooks(pkg);
    expect(report.skipped).toEqual([{ part: "xl/charts/chart1.xml", reason: "bound to the workbook's own cells" }]);
    expect(bytes).toBe(pkg);
  });

  test("a package whose charts all have their data, or that has no chart, comes back as the same bytes", async () => {
    const withData = pack({
      "[Content_Types].xml": CONTENT_TYPES,
      "ppt/charts/chart1.xml": chart(series(0, "A", [1, 2]), `<c:externalData r:id="rId1"><c:autoUpdate val="0"/></c:externalData>`),
    });
    expect((await restoreChartWorkbooks(withData)).bytes).toBe(withData);
    const noChart = pack({ "[Content_Types].xml": CONTENT_TYPES, "word/document.xml": `${DECL}<w:document/>` });
    const { bytes, report } = await restoreChartWorkbooks(noChart);
    expect(bytes).toBe(noChart);
    expect(report.charts).toBe(0);
    // Not a zip at all (a txt saved by the editor): nothing to do, no failure.
    const text = strToU8("plain text");
    expect((await restoreChartWorkbooks(text)).bytes).toBe(text);
  });

  test("the policy: an original has chart workbooks only when a chart's relationships name an embedded package", () => {
    const rels = (type: string, extra = "") => `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${type}" Target="../embeddings/x.xlsx"${extra}/></Relationships>`;
    const pkgType = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package";
    expect(originalHasChartWorkbooks(pack({ "ppt/charts/_rels/chart1.xml.rels": rels(pkgType) }))).toBe(true);
    expect(originalHasChartWorkbooks(pack({ "ppt/charts/_rels/chart1.xml.rels": rels(pkgType, ` TargetMode="External"`) }))).toBe(false);
    expect(originalHasChartWorkbooks(pack({ "ppt/charts/_rels/chart1.xml.rels": rels("http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject") }))).toBe(false);
    expect(originalHasChartWorkbooks(pack({ "ppt/charts/chart1.xml": chart(series(0, "A", [1])) }))).toBe(false);
    expect(originalHasChartWorkbooks(strToU8("plain text"))).toBe(false);
  });
});
