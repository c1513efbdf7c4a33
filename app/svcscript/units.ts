// Script units: the size of a script, counted before any work and compared with the edition's
// max_script_units (422 script_too_large with detail.units and detail.limit).
//
// The rule (docs/svcscript.md, "Script units"): one unit for each
//   - element: of a text document's body, header and footer (heading, paragraph, list, table,
//     image, page_break), and of a slide (text, list, table, image);
//   - run given in a `runs` array (a `text` shorthand is part of its element and costs nothing);
//   - list item, at any nesting depth;
//   - table cell, header cells included;
//   - sheet, and spreadsheet cell that is not null (a row object itself costs nothing);
//   - slide (its title, subtitle and notes are part of it).
// Nothing else counts: outputs, properties, page setup, columns, merges, freeze, styles.
//
// The counter never throws: it walks whatever it is given and counts what has the shape of the
// language, so it can run on an unvalidated body to refuse an oversized script cheaply.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function runs(holder: unknown): number {
  return isObj(holder) ? arr(holder.runs).length : 0;
}

function listItems(items: unknown): number {
  // Iterative: a hostile script may nest items deeper than the call stack.
  let n = 0;
  const stack: unknown[][] = [arr(items)];
  while (stack.length) {
    for (const item of stack.pop()!) {
      n += 1 + runs(item);
      if (isObj(item) && Array.isArray(item.items)) stack.push(item.items);
    }
  }
  return n;
}

function tableCells(table: Obj): number {
  let n = 0;
  for (const cell of arr(table.header)) n += 1 + runs(cell);
  for (const row of arr(table.rows)) for (const cell of arr(row)) n += 1 + runs(cell);
  return n;
}

/** An element of a text body, header, footer or slide: 1 plus what it holds. */
function element(el: unknown): number {
  if (!isObj(el)) return 1;
  let n = 1 + runs(el);
  if (el.type === "list") n += listItems(el.items);
  if (el.type === "table") n += tableCells(el);
  return n;
}

function sheetCells(sheet: Obj): number {
  let n = 0;
  for (const row of arr(sheet.rows)) {
    const cells = Array.isArray(row) ? row : isObj(row) ? arr(row.cells) : [];
    for (const cell of cells) if (cell !== null && cell !== undefined) n += 1;
  }
  return n;
}

/** The number of units of a script (see the rule above). */
export function countUnits(script: unknown): number {
  if (!isObj(script)) return 0;
  let n = 0;
  for (const key of ["body", "header", "footer"]) for (const el of arr(script[key])) n += element(el);
  for (const sheet of arr(script.sheets)) n += 1 + (isObj(sheet) ? sheetCells(sheet) : 0);
  for (const slide of arr(script.slides)) {
    n += 1;
    if (isObj(slide)) for (const el of arr(slide.elements)) n += element(el);
  }
  return n;
}
