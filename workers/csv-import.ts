// CSV and TSV handed to LibreOffice as a flat ODS (.fods): Calc's text-import dialog waits
// forever under LibreOfficeKit (engine.ts), so the file is parsed here (papaparse) instead.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, extname } from "node:path";
import Papa from "papaparse";
import { decodeText } from "./sniff";

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

/** How a CSV/TSV source was written (its delimiter, encoding and byte order mark), to write it back alike. */
export interface CsvDialect {
  delimiter: string;
  /** decodeText's name for the encoding (utf-8, utf-16le, shift_jis, windows-1252…). */
  encoding: string;
  bom: boolean;
  /** What ends a record (a line break inside a quoted field is the cell's own). */
  newline: "\r\n" | "\n" | "\r";
  /** The line break inside a cell. */
  cellNewline: "\r\n" | "\n";
  /** The last record ends with a line break too. */
  finalNewline: boolean;
}

/**
 * The CSV export filter options (field separator, text delimiter, character set, first line)
 * that write a sheet with the delimiter it was read with; commas for a sheet that was not a CSV
 * file. Always UTF-8: the character-set token does not survive LOK's saveAs (measured: 60 and
 * 65535 both wrote UTF-8; LOK re-joins the options with ", ", engine.ts, and " 60" is no number to
 * Calc, which then writes the system encoding, UTF-8 in the engines: profile.ts). The kit
 * writes the file again in the source's dialect afterwards (csvInDialect).
 */
export function csvFilterOptions(dialect: CsvDialect | null): string {
  const sep = dialect && dialect.delimiter.length === 1 ? dialect.delimiter.charCodeAt(0) : 44;
  return `${sep},34,76,1`;
}

/** Per legacy encoding: each character it can write and its bytes (built on first use from TextDecoder). */
const ENCODERS = new Map<string, Map<string, number[]>>();

function encoderFor(encoding: string): Map<string, number[]> {
  let map = ENCODERS.get(encoding);
  if (map) return map;
  map = new Map();
  const dec = new TextDecoder(encoding);
  const add = (bytes: number[]) => {
    const ch = dec.decode(Uint8Array.from(bytes));
    if (ch && ch !== "\uFFFD" && [...ch].length === 1 && !map!.has(ch)) map!.set(ch, bytes);
  };
  for (let b = 0; b < 0x80; b++) add([b]);
  if (encoding === "shift_jis") {
    for (let b = 0xa1; b <= 0xdf; b++) add([b]); // half-width katakana
    for (let lead = 0x81; lead <= 0xfc; lead++) {
      if (lead > 0x9f && lead < 0xe0) continue;
      for (let trail = 0x40; trail <= 0xfc; trail++) if (trail !== 0x7f) add([lead, trail]);
    }
  } else {
    for (let b = 0x80; b < 0x100; b++) add([b]);
  }
  ENCODERS.set(encoding, map);
  return map;
}

/**
 * Text in one of the encodings decodeText recognises, with its byte order mark when `bom`. A
 * character the encoding cannot write becomes "?" (as LibreOffice's own export does).
 */
export function encodeText(text: string, encoding: string, bom: boolean): Uint8Array {
  if (encoding === "utf-8") return Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, "utf8")]);
  if (encoding === "utf-16le" || encoding === "utf-16be") {
    const le = Buffer.from((bom ? "\uFEFF" : "") + text, "utf16le");
    if (encoding === "utf-16be") le.swap16();
    return le;
  }
  const map = encoderFor(encoding);
  const out: number[] = [];
  for (const ch of text) {
    const bytes = map.get(ch);
    if (bytes) out.push(...bytes);
    else out.push(0x3f);
  }
  return Uint8Array.from(out);
}

/**
 * A CSV/TSV file written as a flat ODS at fodsPath (LibreOffice opens CSV only through its
 * text-import dialog, which never answers under LibreOfficeKit: see engine.ts); the sheet is
 * named after the file (fileName when given: the name the person knows). Answers the source's dialect.
 */
export function csvFileToFods(input: string, fodsPath: string, opts: { delimiter?: string; fileName?: string } = {}): CsvDialect & { rows: number; cols: number } {
  const dec = decodeText(readFileSync(input));
  const fods = csvToFods(dec.text, sheetNameFrom(opts.fileName || input), opts.delimiter);
  writeFileSync(fodsPath, fods.xml);
  const text = dec.text.replace(/^\uFEFF/, "");
  const parsed = Papa.parse<string[]>(text, { delimiter: fods.delimiter, quoteChar: '"' });
  const linebreak = parsed.meta.linebreak;
  const newline = linebreak === "\r\n" || linebreak === "\r" ? linebreak : "\n";
  const cellNewline = parsed.data.some((r) => r.some((c) => c.includes("\r\n"))) ? "\r\n" : "\n";
  return { delimiter: fods.delimiter, encoding: dec.encoding, bom: dec.bom, newline, cellNewline, finalNewline: /[\r\n]$/.test(text), rows: fods.rows, cols: fods.cols };
}

/**
 * The CSV the engine wrote (UTF-8, every text cell quoted, "\n" after each record and inside
 * cells) in the file's own dialect: its record separator and line breaks in cells, quotes only
 * where a field needs them (a delimiter, a quote or a line break in it), its encoding and byte
 * order mark.
 */
export function csvInDialect(engineCsv: string, dialect: CsvDialect): Uint8Array {
  const rows = Papa.parse<string[]>(engineCsv.replace(/^\uFEFF/, ""), { delimiter: dialect.delimiter, quoteChar: '"', skipEmptyLines: false }).data;
  if (rows.length && rows[rows.length - 1]!.length === 1 && rows[rows.length - 1]![0] === "") rows.pop();
  const field = (v: string): string => {
    const cell = v.replace(/\r\n|\r|\n/g, dialect.cellNewline);
    return cell.includes(dialect.delimiter) || /["\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
  };
  const text = rows.map((r) => r.map(field).join(dialect.delimiter)).join(dialect.newline) + (dialect.finalNewline && rows.length ? dialect.newline : "");
  return encodeText(text, dialect.encoding, dialect.bom);
}
