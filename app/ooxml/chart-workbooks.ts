// Charts stay editable after LibreOffice has written an OOXML package (issue 46).
//
// A chart in an Office file keeps its data twice: as caches inside the chart part (what is drawn)
// and as an embedded workbook (`…/embeddings/*.xlsx`, what PowerPoint or Word opens when someone
// edits the chart's data). LibreOffice reads the workbook's values into its own chart model and,
// on export, writes the caches only: its formulas become placeholders ("label 0", "categories",
// "0") and the workbook is gone, so in Office the chart can no longer be edited. The round trip
// of pythonpptx_cht_series.pptx went from 11 chart workbooks to 0.
//
// This step rebuilds a workbook for each chart part that has none, from the chart's own caches
// (so from what the person saw and edited last), laid out as Office lays out a new chart's data:
// A1 empty, the series names in row 1 from B1, the categories (or a scatter chart's X values) in
// column A, each series' values below its name. The chart's formulas are pointed at those cells,
// and the package gets the workbook, the chart's relationship to it, its `c:externalData` and the
// xlsx content type. A chart whose data cannot be recovered (no caches, multi-level categories)
// is left as it is, with a log line saying why.
//
// Policy (decided by the callers through originalHasChartWorkbooks): only a file whose original
// had chart workbooks gets them back; a file that never had them is not given parts its author
// did not have. Which original chart became which saved chart is not knowable (LibreOffice
// renumbers them), so every saved chart without data gets a workbook.

import ExcelJS from "exceljs";
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import { strFromU8, strToU8, unzipSync, zipSync, type Unzipped, type ZipOptions } from "fflate";
import type { Logger } from "../log";

const CHART_PART = /^(.+\/)charts\/chart(\d+)\.xml$/;
const CHART_RELS = /^(.+\/)charts\/_rels\/chart\d+\.xml\.rels$/;
const PACKAGE_RELATIONSHIP = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package";
const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const SHEET = "Sheet1";
/** A chart's link to its data; only ever a direct child of chartSpace, so a text search is as good as a parse here and cheaper. */
const EXTERNAL_DATA = /<(\w+:)?externalData[\s>/]/;
/** Parts that come after c:externalData in CT_ChartSpace (ECMA-376 Part 1, 21.2.2.29): it goes before the first of them. */
const AFTER_EXTERNAL_DATA = new Set(["c:printSettings", "c:userShapes", "c:extLst"]);
/** Already compressed: stored as they are when the package is written again, not deflated a second time. */
const COMPRESSED = /\.(png|jpe?g|gif|tiff?|emf\.gz|wdp|mp4|m4a|mp3|xlsx|xlsm|docx|pptx|zip|bin)$/i;

// Text and attributes kept as written (entities included), so parts come out as they went in.
const XML_OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  suppressEmptyNode: true,
} as const;

type XmlNode = Record<string, unknown>;

export interface ChartWorkbooksReport {
  /** Chart parts in the saved package. */
  charts: number;
  /** Workbooks added by this step. */
  added: number;
  /** Charts left without a workbook, with the reason. */
  skipped: { part: string; reason: string }[];
}

/** The OOXML formats whose charts can hold a workbook (a macro-enabled or template package included). */
export const CHART_WORKBOOK_FORMATS = new Set(["docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "xltm", "pptx", "pptm", "potx", "potm", "ppsx", "ppsm"]);

/**
 * The save path's step: `saved` (what LibreOffice wrote) with its chart workbooks given back when
 * `originalHad` (originalHasChartWorkbooks of the file the person opened or sent). One log line
 * when it worked on charts, with what it did and what it cost; never a failure: a step that
 * throws leaves the saved bytes as LibreOffice wrote them. The charts are looked at here (the
 * central directory and the chart parts only, well under a millisecond); the rebuild itself
 * (exceljs, a zip written again: 0.4 s for a deck of 11 charts) runs on a thread of its own
 * (chart-workbooks-thread.ts), so the process that carries everyone's typing and requests never
 * waits for it.
 */
export async function keepChartWorkbooks(originalHad: boolean, saved: Uint8Array, log: Logger): Promise<Uint8Array> {
  if (!originalHad || chartsLackingWorkbooks(saved).length === 0) return saved;
  const t0 = performance.now();
  try {
    const { bytes, report } = await restoreOnThread(saved);
    for (const s of report.skipped) log.info("chart_workbook_skipped", s);
    log.info("chart_workbooks_restored", { charts: report.charts, added: report.added, skipped: report.skipped.length, ms: Math.round(performance.now() - t0), bytes_before: saved.byteLength, bytes_after: bytes.byteLength });
    return report.added > 0 ? bytes : saved;
  } catch (err) {
    log.warn("chart_workbooks_failed", { error: err as Error, ms: Math.round(performance.now() - t0) });
    return saved;
  }
}

/** Runs restoreChartWorkbooks on a thread of its own, one thread per rebuild (they are rare: a save of a file whose charts had workbooks). */
function restoreOnThread(pkg: Uint8Array): Promise<{ bytes: Uint8Array; report: ChartWorkbooksReport }> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL("./chart-workbooks-thread.ts", import.meta.url).href);
    const done = () => thread.terminate();
    thread.onmessage = (e: MessageEvent<{ bytes: Uint8Array; report: ChartWorkbooksReport } | { error: string }>) => {
      done();
      if ("error" in e.data) reject(new Error(e.data.error));
      else resolve(e.data);
    };
    thread.onerror = (e) => {
      done();
      reject(new Error(e.message || "the chart workbooks thread failed"));
    };
    thread.postMessage(pkg);
  });
}

/** The chart parts of a package that have no `c:externalData` (none when the package has no chart or is no zip). */
export function chartsLackingWorkbooks(pkg: Uint8Array): string[] {
  const charts = readParts(pkg, (name) => CHART_PART.test(name));
  return charts ? Object.keys(charts).filter((name) => !EXTERNAL_DATA.test(strFromU8(charts[name]!))) : [];
}

/** Whether a package (the original a person opened or sent) has at least one chart with an embedded workbook. */
export function originalHasChartWorkbooks(pkg: Uint8Array): boolean {
  const rels = readParts(pkg, (name) => CHART_RELS.test(name));
  if (!rels) return false;
  return Object.values(rels).some((bytes) => relationships(strFromU8(bytes)).some((r) => r.type === PACKAGE_RELATIONSHIP && !r.external));
}

/**
 * The package with a workbook for every chart part that has no `c:externalData`; the same bytes
 * when no chart lacks one (found from the central directory and the chart parts alone).
 */
export async function restoreChartWorkbooks(pkg: Uint8Array): Promise<{ bytes: Uint8Array; report: ChartWorkbooksReport }> {
  const charts = readParts(pkg, (name) => CHART_PART.test(name));
  const report: ChartWorkbooksReport = { charts: 0, added: 0, skipped: [] };
  if (!charts) return { bytes: pkg, report };
  report.charts = Object.keys(charts).length;
  const lacking = Object.keys(charts).filter((name) => !EXTERNAL_DATA.test(strFromU8(charts[name]!)));
  if (lacking.length === 0) return { bytes: pkg, report };

  const parts = unzipSync(pkg);
  const added: string[] = [];
  for (const part of lacking.sort(byChartNumber)) {
    const reason = await addWorkbook(parts, part, added);
    if (reason) report.skipped.push({ part, reason });
    else report.added++;
  }
  if (report.added === 0) return { bytes: pkg, report };
  addXlsxContentType(parts);
  return { bytes: zipPackage(parts, added), report };
}

/** Reads the parts whose names match; null when the package holds none (nothing is inflated then), or is no zip. */
function readParts(pkg: Uint8Array, wanted: (name: string) => boolean): Unzipped | null {
  let any = false;
  let parts: Unzipped;
  try {
    parts = unzipSync(pkg, { filter: (f) => (wanted(f.name) ? (any = true) : false) });
  } catch {
    return null;
  }
  return any ? parts : null;
}

/** Adds the workbook of one chart part; answers why not when its data cannot be recovered. */
async function addWorkbook(parts: Unzipped, part: string, added: string[]): Promise<string | null> {
  const xml = strFromU8(parts[part]!);
  const { declaration, tree } = parseXml(xml);
  const chartSpace = tree.find((n) => tagOf(n) === "c:chartSpace");
  if (!chartSpace) return "no chartSpace element";
  const series = findAll(childrenOf(chartSpace), "c:ser");
  if (series.length === 0) return "no series";
  // In a workbook LibreOffice binds a chart to the workbook's own cells and says so in its formulas:
  // that chart is editable where it is, and a workbook of its own would cut it from those cells.
  const formulas = findAll(series, "c:f").map(textOf);
  if (part.startsWith("xl/") && formulas.length > 0 && formulas.every((f) => f.includes("!"))) return "bound to the workbook's own cells";
  const layout = layOut(series);
  if (typeof layout === "string") return layout;

  const [, folder] = CHART_PART.exec(part)!;
  const workbookName = freeName(parts, `${folder}embeddings/Microsoft_Excel_Worksheet`, ".xlsx");
  const workbook = await workbookBytes(layout.columns);
  const relsName = part.replace(/charts\/(chart\d+\.xml)$/, "charts/_rels/$1.rels");
  const relId = addRelationship(parts, relsName, `../embeddings/${workbookName.slice(workbookName.lastIndexOf("/") + 1)}`);
  if (!relId) return "its relationships part is not readable";
  parts[workbookName] = workbook;
  added.push(workbookName);

  for (const [formula, ref] of layout.formulas) setText(formula, ref);
  insertExternalData(childrenOf(chartSpace), relId);
  parts[part] = strToU8(declaration + new XMLBuilder({ ...XML_OPTIONS, format: false }).build(tree));
  return null;
}

// ---------------------------------------------------------------------------------------------
// The chart's data, from its caches, and where each sequence goes in the workbook

type Cell = string | number | null;
interface Column {
  /** Row 1: a series name; null leaves the header cell empty (A1 above the categories). */
  header: string | null;
  cells: Cell[];
  numFmt?: string;
}
interface Layout {
  columns: Column[];
  /** Each `c:f` element with the range it must name. */
  formulas: [XmlNode, string][];
}

/** One ref (strRef, numRef) of a series: its formula element and its cached points. */
interface CachedSequence {
  formula: XmlNode | null;
  cells: Cell[];
  numFmt?: string;
}

function layOut(series: XmlNode[]): Layout | string {
  const columns: Column[] = [{ header: null, cells: [] }];
  const formulas: [XmlNode, string][] = [];
  let sharedKey: string | null = null;
  for (const ser of series) {
    const kids = childrenOf(ser);
    const name = sequenceOf(kids, "c:tx");
    const categories = sequenceOf(kids, "c:cat") ?? sequenceOf(kids, "c:xVal");
    const values = sequenceOf(kids, "c:val") ?? sequenceOf(kids, "c:yVal");
    const sizes = sequenceOf(kids, "c:bubbleSize");
    for (const s of [name, categories, values, sizes]) if (typeof s === "string") return s;
    if (!values || typeof values === "string") return "a series has no cached values";
    if (categories && typeof categories !== "string") {
      const key = JSON.stringify(categories.cells);
      let col = 0;
      // Column A holds the first series' categories; a series with other categories gets a column of its own.
      if (sharedKey === null) {
        sharedKey = key;
        columns[0] = { header: null, cells: categories.cells, numFmt: categories.numFmt };
      } else if (key !== sharedKey) {
        columns.push({ header: null, cells: categories.cells, numFmt: categories.numFmt });
        col = columns.length - 1;
      }
      if (categories.formula) formulas.push([categories.formula, rangeOf(col, 2, 1 + Math.max(1, categories.cells.length))]);
    }
    const seriesName = name && typeof name !== "string" ? String(name.cells[0] ?? "") : `Series ${columns.length}`;
    columns.push({ header: seriesName, cells: values.cells, numFmt: values.numFmt });
    const col = columns.length - 1;
    if (name && typeof name !== "string" && name.formula) formulas.push([name.formula, rangeOf(col, 1, 1)]);
    if (values.formula) formulas.push([values.formula, rangeOf(col, 2, 1 + Math.max(1, values.cells.length))]);
    if (sizes && typeof sizes !== "string") {
      columns.push({ header: "Size", cells: sizes.cells, numFmt: sizes.numFmt });
      if (sizes.formula) formulas.push([sizes.formula, rangeOf(columns.length - 1, 2, 1 + Math.max(1, sizes.cells.length))]);
    }
  }
  return { columns, formulas };
}

/**
 * The sequence under a series' child `tag`: null when the series has none or holds it as a
 * literal (nothing to point at), a reason when it is a reference whose data cannot be recovered.
 */
function sequenceOf(seriesKids: XmlNode[], tag: string): CachedSequence | string | null {
  const holder = seriesKids.find((n) => tagOf(n) === tag);
  if (!holder) return null;
  const kids = childrenOf(holder);
  if (kids.some((n) => tagOf(n) === "c:multiLvlStrRef")) return "multi-level categories";
  const ref = kids.find((n) => tagOf(n) === "c:strRef" || tagOf(n) === "c:numRef");
  if (!ref) return null;
  const refKids = childrenOf(ref);
  const cache = refKids.find((n) => tagOf(n) === "c:strCache" || tagOf(n) === "c:numCache");
  if (!cache) return "no cached data";
  const cacheKids = childrenOf(cache);
  const numeric = tagOf(cache) === "c:numCache";
  const count = Number(attrOf(cacheKids.find((n) => tagOf(n) === "c:ptCount"), "val") ?? 0);
  const cells: Cell[] = Array.from({ length: Math.max(0, Math.min(count, 1_048_575)) }, () => null);
  for (const pt of cacheKids.filter((n) => tagOf(n) === "c:pt")) {
    const idx = Number(attrOf(pt, "idx"));
    const v = childrenOf(pt).find((n) => tagOf(n) === "c:v");
    if (!Number.isInteger(idx) || idx < 0 || idx >= cells.length || !v) continue;
    const text = decodeEntities(textOf(v));
    cells[idx] = numeric && text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
  }
  const formatCode = cacheKids.find((n) => tagOf(n) === "c:formatCode");
  const numFmt = formatCode ? decodeEntities(textOf(formatCode)) : undefined;
  return { formula: refKids.find((n) => tagOf(n) === "c:f") ?? null, cells, numFmt: numFmt && numFmt !== "General" ? numFmt : undefined };
}

/** `Sheet1!$B$2:$B$5` for zero-based column `col`, rows `from`..`to` (one-based). */
function rangeOf(col: number, from: number, to: number): string {
  const letter = columnLetter(col);
  return from === to ? `${SHEET}!$${letter}$${from}` : `${SHEET}!$${letter}$${from}:$${letter}$${to}`;
}

function columnLetter(col: number): string {
  let s = "";
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

async function workbookBytes(columns: Column[]): Promise<Uint8Array<ArrayBuffer>> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(SHEET);
  columns.forEach((column, c) => {
    if (column.header !== null) sheet.getCell(1, c + 1).value = column.header;
    column.cells.forEach((value, r) => {
      if (value === null) return;
      const cell = sheet.getCell(r + 2, c + 1);
      cell.value = value;
      if (column.numFmt && typeof value === "number") cell.numFmt = column.numFmt;
    });
  });
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

// ---------------------------------------------------------------------------------------------
// The package: relationships, content types, names, writing it again

/** Adds the chart's relationship to its workbook; answers its id, null when the relationships part has no root. */
function addRelationship(parts: Unzipped, relsName: string, target: string): string | null {
  const existing = parts[relsName] ? strFromU8(parts[relsName]!) : null;
  const { declaration, tree } = parseXml(existing ?? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>`);
  const root = tree.find((n) => tagOf(n) === "Relationships");
  if (!root) return null;
  const taken = new Set(childrenOf(root).map((n) => attrOf(n, "Id")));
  let n = 1;
  while (taken.has(`rId${n}`)) n++;
  const id = `rId${n}`;
  childrenOf(root).push({ Relationship: [], ":@": { "@_Id": id, "@_Type": PACKAGE_RELATIONSHIP, "@_Target": target } });
  parts[relsName] = strToU8(declaration + new XMLBuilder({ ...XML_OPTIONS, format: false }).build(tree));
  return id;
}

function insertExternalData(chartSpaceKids: XmlNode[], relId: string): void {
  const element: XmlNode = { "c:externalData": [{ "c:autoUpdate": [], ":@": { "@_val": "0" } }], ":@": { "@_r:id": relId } };
  const before = chartSpaceKids.findIndex((n) => AFTER_EXTERNAL_DATA.has(tagOf(n)));
  if (before < 0) chartSpaceKids.push(element);
  else chartSpaceKids.splice(before, 0, element);
}

function addXlsxContentType(parts: Unzipped): void {
  const name = "[Content_Types].xml";
  if (!parts[name]) return;
  const { declaration, tree } = parseXml(strFromU8(parts[name]!));
  const types = tree.find((n) => tagOf(n) === "Types");
  if (!types) return;
  const kids = childrenOf(types);
  if (kids.some((n) => tagOf(n) === "Default" && String(attrOf(n, "Extension") ?? "").toLowerCase() === "xlsx")) return;
  // Defaults come before Overrides in CT_Types.
  const firstOverride = kids.findIndex((n) => tagOf(n) === "Override");
  const element: XmlNode = { Default: [], ":@": { "@_Extension": "xlsx", "@_ContentType": XLSX_CONTENT_TYPE } };
  if (firstOverride < 0) kids.push(element);
  else kids.splice(firstOverride, 0, element);
  parts[name] = strToU8(declaration + new XMLBuilder({ ...XML_OPTIONS, format: false }).build(tree));
}

/** `${stem}${n}${ext}` with the first n from 1 that no part has (case-insensitively: zip readers differ). */
function freeName(parts: Unzipped, stem: string, ext: string): string {
  const taken = new Set(Object.keys(parts).map((k) => k.toLowerCase()));
  let n = 1;
  while (taken.has(`${stem}${n}${ext}`.toLowerCase())) n++;
  return `${stem}${n}${ext}`;
}

/** The parts in their order ([Content_Types].xml first, as read), new ones last; pictures and workbooks stored, the rest deflated. */
function zipPackage(parts: Unzipped, added: string[]): Uint8Array {
  const entries: Record<string, [Uint8Array, ZipOptions]> = {};
  const addedSet = new Set(added);
  const order = [...Object.keys(parts).filter((k) => !addedSet.has(k)), ...added];
  for (const name of order) entries[name] = [parts[name]!, { level: COMPRESSED.test(name) ? 0 : 6 }];
  return zipSync(entries);
}

function byChartNumber(a: string, b: string): number {
  return Number(CHART_PART.exec(a)![2]) - Number(CHART_PART.exec(b)![2]) || a.localeCompare(b);
}

// ---------------------------------------------------------------------------------------------
// The XML tree (fast-xml-parser's preserveOrder form: [{ tag: children, ":@": attributes }])

function parseXml(xml: string): { declaration: string; tree: XmlNode[] } {
  const declaration = /^\s*<\?xml[^>]*\?>\s*/.exec(xml)?.[0] ?? "";
  return { declaration, tree: new XMLParser(XML_OPTIONS).parse(xml) as XmlNode[] };
}

function tagOf(node: XmlNode | undefined): string {
  if (!node) return "";
  return Object.keys(node).find((k) => k !== ":@") ?? "";
}

function childrenOf(node: XmlNode): XmlNode[] {
  const kids = node[tagOf(node)];
  return Array.isArray(kids) ? (kids as XmlNode[]) : [];
}

function attrOf(node: XmlNode | undefined, name: string): string | undefined {
  const attrs = node?.[":@"] as Record<string, string> | undefined;
  return attrs?.[`@_${name}`];
}

function findAll(nodes: XmlNode[], tag: string): XmlNode[] {
  const found: XmlNode[] = [];
  for (const n of nodes) {
    if (tagOf(n) === tag) found.push(n);
    else if (tagOf(n) !== "#text") found.push(...findAll(childrenOf(n), tag));
  }
  return found;
}

function textOf(node: XmlNode): string {
  return childrenOf(node).map((n) => (typeof n["#text"] === "string" ? n["#text"] : "")).join("");
}

/** Replaces an element's content by text (the ranges this step writes need no escaping). */
function setText(node: XmlNode, text: string): void {
  node[tagOf(node)] = [{ "#text": text }];
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(Number(lower.slice(1)));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower]!;
  });
}

function relationships(xml: string): { type: string; external: boolean }[] {
  const { tree } = parseXml(xml);
  const root = tree.find((n) => tagOf(n) === "Relationships");
  if (!root) return [];
  return childrenOf(root)
    .filter((n) => tagOf(n) === "Relationship")
    .map((n) => ({ type: attrOf(n, "Type") ?? "", external: attrOf(n, "TargetMode") === "External" }));
}
