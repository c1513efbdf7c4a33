// Lays out a table whose cells merge as in HTML (colspan, rowspan; a row leaves out the columns
// a cell from a row above covers) on a grid of a fixed number of columns, and reports the
// impossible cases with the pointer of the cell at fault.

import { ScriptRunError } from "./types";

/** Word's limit, also applied to slides. */
export const MAX_TABLE_COLUMNS = 63;

export interface Placed<C> {
  cell: C;
  /** JSON Pointer of the cell in the script. */
  path: string;
  row: number;
  col: number;
  colspan: number;
  rowspan: number;
}

export type Slot<C> = { kind: "cell"; at: Placed<C> } | { kind: "covered"; by: Placed<C> } | { kind: "empty" };

export interface Grid<C> {
  columns: number;
  /** slots[row][col]. */
  slots: Slot<C>[][];
}

export interface TableRowsIn<C> {
  /** Rows in order (the header first when there is one), each with the pointer of the row. */
  rows: { cells: C[]; path: string }[];
  /** Column count when the script gives the widths. */
  columns?: number;
  /** Pointer of the table, for errors about the whole table. */
  path: string;
}

const spanOf = (cell: unknown, key: "colspan" | "rowspan"): number => {
  if (typeof cell === "object" && cell !== null) {
    const v = (cell as Record<string, unknown>)[key];
    if (typeof v === "number" && v >= 1) return Math.floor(v);
  }
  return 1;
};

export function layoutTable<C>({ rows, columns, path }: TableRowsIn<C>): Grid<C> {
  if (!rows.length) throw new ScriptRunError(path, "the table has no rows: give \"header\" or at least one row in \"rows\"");
  const n = columns ?? rows[0]!.cells.reduce((w, c) => w + spanOf(c, "colspan"), 0);
  if (n < 1) throw new ScriptRunError(rows[0]!.path, "the first row of the table has no cells, so the table has no columns: give \"columns\" or cells");
  if (n > MAX_TABLE_COLUMNS) throw new ScriptRunError(rows[0]!.path, `the table has ${n} columns, at most ${MAX_TABLE_COLUMNS} are allowed`);

  const slots: Slot<C>[][] = rows.map(() => Array.from({ length: n }, () => ({ kind: "empty" }) as Slot<C>));
  rows.forEach((row, r) => {
    let c = 0;
    row.cells.forEach((cell, i) => {
      const cellPath = `${row.path}/${i}`;
      while (c < n && slots[r]![c]!.kind !== "empty") c++;
      const colspan = spanOf(cell, "colspan");
      const rowspan = spanOf(cell, "rowspan");
      if (c >= n) throw new ScriptRunError(cellPath, `the row has more cells than the table's ${n} column${n === 1 ? "" : "s"} (counting merged cells)`);
      if (c + colspan > n) throw new ScriptRunError(cellPath, `colspan ${colspan} runs past the table's last column (the cell starts at column ${c + 1} of ${n})`);
      if (r + rowspan > rows.length) throw new ScriptRunError(cellPath, `rowspan ${rowspan} runs past the table's last row`);
      for (let k = c; k < c + colspan; k++)
        if (slots[r]![k]!.kind !== "empty") throw new ScriptRunError(cellPath, `the cell's colspan overlaps a cell merged down from a row above (column ${k + 1})`);
      const placed: Placed<C> = { cell, path: cellPath, row: r, col: c, colspan, rowspan };
      for (let rr = r; rr < r + rowspan; rr++)
        for (let k = c; k < c + colspan; k++) slots[rr]![k] = rr === r && k === c ? { kind: "cell", at: placed } : { kind: "covered", by: placed };
      c += colspan;
    });
  });
  return { columns: n, slots };
}
