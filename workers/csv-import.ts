// CSV and TSV handed to LibreOffice as a flat ODS (.fods): Calc's text-import dialog waits
// forever under LibreOfficeKit (engine.ts), so the file is parsed here (papaparse) instead.
import { basename, extname } from "node:path";
import Papa from "papaparse";

const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function xmlEscape(s: string): string {
  return s.replace(XML_INVALID, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** One ODF paragraph's inline content: tabs and runs of spaces made explicit (ODF collapses white space). */
function odfInline(line: string): string {
  let out = "";
  const parts = line.split(/( +|\t)/);
  parts.forEach((p, i) => {
    if (p === "") return;
    if (p === "\t") out += "<text:tab/>";
    else if (/^ +$/.test(p)) {
      const atEdge = i === 0 || i === parts.length - 1 || (i === 1 && parts[0] === "");
      if (p.length === 1 && !atEdge) out += " ";
      else out += `<text:s text:c="${p.length}"/>`;
    } else out += xmlEscape(p);
  });
  return out;
}

const PLAIN_NUMBER = /^[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$|^[+-]?\.\d+$/;

function cellXml(v: string): string {
  if (v === "") return "<table:table-cell/>";
  const t = v.trim();
  if (PLAIN_NUMBER.test(t) && t.replace(/[^0-9]/g, "").length <= 15 && Number.isFinite(Number(t))) {
    return `<table:table-cell office:value-type="float" office:value="${Number(t)}"><text:p>${xmlEscape(t)}</text:p></table:table-cell>`;
  }
  const paras = v.split(/\r\n|\r|\n/).map((l) => `<text:p>${odfInline(l)}</text:p>`).join("");
  return `<table:table-cell office:value-type="string">${paras}</table:table-cell>`;
}

export function sheetNameFrom(file: string): string {
  const n = basename(file, extname(file)).replace(/[\[\]*?:/\\']/g, "_").trim().slice(0, 31);
  return n || "Sheet1";
}

/**
 * Parses CSV/TSV text (delimiter sniffed unless given) into a flat ODS document. Values are
 * typed conservatively: plain decimal numbers become numbers, everything else (dates, "007",
 * "=SUM(…)") stays text; formulas are never evaluated.
 */
export function csvToFods(text: string, sheetName: string, delimiter?: string): { xml: string; rows: number; cols: number; delimiter: string } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), {
    delimiter: delimiter ?? "",
    delimitersToGuess: [",", ";", "\t", "|"],
    quoteChar: '"',
    header: false,
    skipEmptyLines: false,
  });
  const rows = parsed.data;
  while (rows.length && rows[rows.length - 1]!.every((c) => c === "")) rows.pop();
  let cols = 0;
  const body: string[] = [];
  for (const r of rows) {
    let last = r.length;
    while (last > 0 && r[last - 1] === "") last--;
    cols = Math.max(cols, last);
    body.push(`<table:table-row>${r.slice(0, Math.max(last, 1)).map(cellXml).join("")}</table:table-row>`);
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
    `xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
    `xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
    `office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">` +
    `<office:body><office:spreadsheet><table:table table:name="${xmlEscape(sheetName)}">` +
    `<table:table-column table:number-columns-repeated="${Math.max(cols, 1)}"/>` +
    (body.length ? body.join("\n") : "<table:table-row><table:table-cell/></table:table-row>") +
    `</table:table></office:spreadsheet></office:body></office:document>\n`;
  return { xml, rows: rows.length, cols, delimiter: parsed.meta.delimiter };
}
