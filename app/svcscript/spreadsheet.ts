// Writes a spreadsheet svcscript as xlsx with exceljs. Run-time checks (script_error): sheet
// names unique, merged ranges inside the sheet and not overlapping, formulas well formed
// (balanced parentheses, brackets and quotes), cells inside Excel's grid and text length.

import ExcelJS from "exceljs";
import { parseScriptDate } from "./validate";
import { ScriptRunError, type Align, type Cell, type CellObject, type Column, type RowObject, type SpreadsheetScript } from "./types";

export const MAX_COLUMNS = 16_384; // XFD
export const MAX_ROWS = 1_048_576;
export const MAX_CELL_TEXT = 32_767;

const argb = (c: string) => `FF${c.replace(/^#/, "").toUpperCase()}`;

/** "A" → 1, "XFD" → 16384. */
export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

export function columnLetters(n: number): string {
  let s = "";
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

interface Range {
  top: number;
  left: number;
  bottom: number;
  right: number;
  text: string;
}

export function parseRange(range: string): Range | undefined {
  const m = /^([A-Za-z]{1,3})([0-9]+):([A-Za-z]{1,3})([0-9]+)$/.exec(range);
  if (!m) return undefined;
  const [c1, r1, c2, r2] = [columnNumber(m[1]!), Number(m[2]), columnNumber(m[3]!), Number(m[4])];
  const r: Range = { top: Math.min(r1, r2), bottom: Math.max(r1, r2), left: Math.min(c1, c2), right: Math.max(c1, c2), text: "" };
  r.text = `${columnLetters(r.left)}${r.top}:${columnLetters(r.right)}${r.bottom}`;
  return r;
}

/**
 * Why a formula is not well formed, or undefined. Checks what can be checked without an engine:
 * not empty, parentheses and braces balanced and properly nested, string literals ("...") and
 * quoted sheet names ('...') closed. Functions and references are left to the office engine.
 */
export function formulaProblem(formula: string): string | undefined {
  const f = formula.replace(/^\s*=/, "");
  if (!f.trim()) return "the formula is empty";
  const stack: string[] = [];
  for (let i = 0; i < f.length; i++) {
    const ch = f[i]!;
    if (ch === '"' || ch === "'") {
      // "" and '' inside a literal are an escaped quote.
      let j = i + 1;
      for (; j < f.length; j++) {
        if (f[j] === ch) {
          if (f[j + 1] === ch) j++;
          else break;
        }
      }
      if (j >= f.length) return ch === '"' ? "a text in double quotes is not closed" : "a sheet name in single quotes is not closed";
      i = j;
    } else if (ch === "(" || ch === "{" || ch === "[") stack.push(ch);
    else if (ch === ")" || ch === "}" || ch === "]") {
      const open = stack.pop();
      const want = ch === ")" ? "(" : ch === "}" ? "{" : "[";
      if (open !== want) return `unbalanced "${ch}": it closes nothing that is open`;
    }
  }
  if (stack.length) return `unbalanced "${stack.at(-1)}": it is never closed`;
  return undefined;
}

const HALIGN: Record<Align, "left" | "center" | "right" | "justify"> = { left: "left", center: "center", right: "right", justify: "justify" };

interface CellStyle {
  bold?: boolean;
  italic?: boolean;
  color?: string;
  fill?: string;
  format?: string;
  align?: Align;
  wrap?: boolean;
}

export async function writeSpreadsheet(script: SpreadsheetScript): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  const props = script.properties ?? {};
  wb.creator = props.author ?? "svc";
  wb.lastModifiedBy = props.author ?? "svc";
  if (props.title !== undefined) wb.title = props.title;
  if (props.subject !== undefined) wb.subject = props.subject;
  wb.created = new Date();
  wb.modified = wb.created;
  // Formulas carry no cached result: the application computes them when it opens the file.
  wb.calcProperties.fullCalcOnLoad = true;
  const d = script.defaults ?? {};

  const names = new Map<string, number>();
  script.sheets.forEach((sheet, s) => {
    const at = `/sheets/${s}`;
    const name = sheet.name ?? `Sheet${s + 1}`;
    const key = name.toLowerCase();
    if (names.has(key)) throw new ScriptRunError(`${at}/name`, `the sheet name "${name}" is already used by sheet ${names.get(key)} (names are compared without case)`);
    if (key === "history") throw new ScriptRunError(`${at}/name`, 'Excel reserves the sheet name "History"');
    names.set(key, s);

    const freeze = sheet.freeze ?? {};
    const ws = wb.addWorksheet(name, {
      views: freeze.rows || freeze.columns ? [{ state: "frozen", xSplit: freeze.columns ?? 0, ySplit: freeze.rows ?? 0 }] : [{}],
    });

    // Columns: width, hidden, default format.
    const colFormats: (string | undefined)[] = [];
    (sheet.columns ?? []).forEach((col: Column, i) => {
      if (col === null) return;
      const o = typeof col === "number" ? { width: col } : col;
      const c = ws.getColumn(i + 1);
      if (o.width !== undefined) c.width = o.width;
      if (o.hidden) c.hidden = true;
      colFormats[i] = o.format;
    });

    if (sheet.rows.length > MAX_ROWS) throw new ScriptRunError(`${at}/rows`, `a sheet holds at most ${MAX_ROWS} rows`);
    sheet.rows.forEach((row, r) => {
      const isObj = !Array.isArray(row);
      const cells = isObj ? (row as RowObject).cells : (row as Cell[]);
      const rowAt = isObj ? `${at}/rows/${r}/cells` : `${at}/rows/${r}`;
      const rs: CellStyle = isObj ? (row as RowObject) : {};
      const xrow = ws.getRow(r + 1);
      if (isObj && (row as RowObject).height !== undefined) xrow.height = (row as RowObject).height!;
      if (cells.length > MAX_COLUMNS) throw new ScriptRunError(`${rowAt}/${MAX_COLUMNS}`, `a row holds at most ${MAX_COLUMNS} cells (column XFD)`);
      cells.forEach((cell, c) => {
        if (cell === null) return;
        const cellAt = `${rowAt}/${c}`;
        const o: CellObject = typeof cell === "object" ? cell : { value: cell };
        const xc = xrow.getCell(c + 1);
        let defaultFormat: string | undefined;
        if (o.formula !== undefined) {
          const problem = formulaProblem(o.formula);
          if (problem) throw new ScriptRunError(cellAt, `the formula is not well formed: ${problem}`);
          xc.value = { formula: o.formula.replace(/^\s*=/, "") } as ExcelJS.CellFormulaValue;
        } else if (o.date !== undefined) {
          const date = parseScriptDate(o.date);
          if (!date) throw new ScriptRunError(cellAt, "the date is not a real calendar date or time");
          xc.value = date;
          defaultFormat = o.date.includes("T") ? (o.date.length > 16 ? "yyyy-mm-dd hh:mm:ss" : "yyyy-mm-dd hh:mm") : "yyyy-mm-dd";
        } else if (o.value !== undefined && o.value !== null) {
          if (typeof o.value === "string" && o.value.length > MAX_CELL_TEXT)
            throw new ScriptRunError(cellAt, `the text has ${o.value.length} characters, a cell holds at most ${MAX_CELL_TEXT}`);
          xc.value = o.value;
        }
        const style: CellStyle = {
          bold: o.bold ?? rs.bold,
          italic: o.italic ?? rs.italic,
          color: o.color ?? rs.color,
          fill: o.fill ?? rs.fill,
          format: o.format ?? rs.format ?? colFormats[c] ?? defaultFormat,
          align: o.align ?? rs.align,
          wrap: o.wrap,
        };
        if (style.bold || style.italic || style.color || d.font || d.size || d.color) {
          const color = style.color ?? d.color;
          xc.font = {
            name: d.font,
            size: d.size,
            bold: style.bold || undefined,
            italic: style.italic || undefined,
            color: color ? { argb: argb(color) } : undefined,
          };
        }
        if (style.fill) xc.fill = { type: "pattern", pattern: "solid", fgColor: { argb: argb(style.fill) } };
        if (style.format) xc.numFmt = style.format;
        if (style.align || style.wrap) xc.alignment = { horizontal: style.align ? HALIGN[style.align] : undefined, wrapText: style.wrap || undefined };
      });
    });

    // Merges: inside the grid, two cells at least, no overlap.
    const ranges: { r: Range; i: number }[] = [];
    (sheet.merges ?? []).forEach((text, i) => {
      const mAt = `${at}/merges/${i}`;
      const r = parseRange(text);
      if (!r) throw new ScriptRunError(mAt, 'the range must look like "A1:D1"');
      if (r.right > MAX_COLUMNS || r.bottom > MAX_ROWS) throw new ScriptRunError(mAt, `the range ${r.text} goes past Excel's last cell XFD${MAX_ROWS}`);
      if (r.top === r.bottom && r.left === r.right) throw new ScriptRunError(mAt, `the range ${r.text} is a single cell: a merge needs at least two`);
      for (const other of ranges) {
        const o = other.r;
        if (r.left <= o.right && o.left <= r.right && r.top <= o.bottom && o.top <= r.bottom)
          throw new ScriptRunError(mAt, `the merged range ${r.text} overlaps ${o.text} (${at}/merges/${other.i})`);
      }
      ranges.push({ r, i });
      ws.mergeCells(r.top, r.left, r.bottom, r.right);
    });
  });

  const buf = await wb.xlsx.writeBuffer();
  return new Uint8Array(buf as ArrayBuffer);
}
