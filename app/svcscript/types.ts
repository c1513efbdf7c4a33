// TypeScript view of a svcscript that passed schemas/svcscript.schema.json. The schema is the one
// source of truth; these types mirror it for the writers and are checked against the fixtures.

export type Color = string; // "#RRGGBB" or "RRGGBB"
export type Align = "left" | "center" | "right" | "justify";

export interface DocumentProperties {
  title?: string;
  author?: string;
  subject?: string;
}

export interface FontDefaults {
  font?: string;
  size?: number;
  color?: Color;
}

// ---- text ---------------------------------------------------------------------------------------

export interface RunObject {
  text?: string;
  field?: "page" | "pages";
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  color?: Color;
  size?: number;
  font?: string;
  link?: string;
}
export type Run = string | RunObject;

export interface Heading {
  type: "heading";
  level?: number;
  text?: string;
  runs?: Run[];
  align?: Align;
  color?: Color;
  font?: string;
}

export interface Paragraph {
  type: "paragraph";
  text?: string;
  runs?: Run[];
  align?: Align;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  color?: Color;
  size?: number;
  font?: string;
}

export type ListItem = string | { text?: string; runs?: Run[]; items?: ListItem[] };

export interface List {
  type: "list";
  ordered?: boolean;
  items: ListItem[];
}

/** A table cell written as an object (text documents allow runs; slides plain text). */
export interface TableCellObject {
  text?: string;
  runs?: Run[];
  bold?: boolean;
  italic?: boolean;
  color?: Color;
  size?: number;
  align?: Align;
  fill?: Color;
  colspan?: number;
  rowspan?: number;
}

export type TableCell = string | number | TableCellObject;

export interface Table {
  type: "table";
  columns?: number[];
  header?: TableCell[];
  rows: TableCell[][];
  header_fill?: Color;
  borders?: boolean;
  size?: number;
}

export interface Image {
  type: "image";
  data: string;
  width?: number;
  height?: number;
  alt?: string;
  align?: Align;
}

export interface PageBreak {
  type: "page_break";
}

export type Element = Heading | Paragraph | List | Table | Image | PageBreak;
export type HeaderElement = Paragraph | Table | Image;

export interface PageSetup {
  size?: "A3" | "A4" | "A5" | "Letter" | "Legal";
  orientation?: "portrait" | "landscape";
  margins?: number | { top?: number; right?: number; bottom?: number; left?: number };
}

export interface TextScript {
  $schema?: string;
  type: "text";
  outputs: string[];
  properties?: DocumentProperties;
  defaults?: FontDefaults;
  page?: PageSetup;
  header?: HeaderElement[];
  footer?: HeaderElement[];
  body: Element[];
}

// ---- spreadsheet --------------------------------------------------------------------------------

export type Scalar = string | number | boolean | null;

export interface CellObject {
  value?: Scalar;
  date?: string;
  formula?: string;
  format?: string;
  bold?: boolean;
  italic?: boolean;
  color?: Color;
  fill?: Color;
  align?: Align;
  wrap?: boolean;
}
export type Cell = Scalar | CellObject;

export interface RowObject {
  cells: Cell[];
  height?: number;
  bold?: boolean;
  italic?: boolean;
  color?: Color;
  fill?: Color;
  format?: string;
  align?: Align;
}
export type Row = Cell[] | RowObject;

export type Column = number | null | { width?: number; format?: string; hidden?: boolean };

export interface Sheet {
  name?: string;
  columns?: Column[];
  rows: Row[];
  merges?: string[];
  freeze?: { rows?: number; columns?: number };
}

export interface SpreadsheetScript {
  $schema?: string;
  type: "spreadsheet";
  outputs: string[];
  properties?: DocumentProperties;
  defaults?: FontDefaults;
  sheets: Sheet[];
}

// ---- presentation -------------------------------------------------------------------------------

export type SlideRun = string | Omit<RunObject, "field">;

interface Placed {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

export interface SlideText extends Placed {
  type: "text";
  text?: string;
  runs?: SlideRun[];
  align?: Align;
  valign?: "top" | "middle" | "bottom";
  bold?: boolean;
  italic?: boolean;
  color?: Color;
  size?: number;
  font?: string;
  fill?: Color;
}

export type SlideListItem = string | { text?: string; runs?: SlideRun[]; items?: SlideListItem[] };

export interface SlideList extends Placed {
  type: "list";
  ordered?: boolean;
  items: SlideListItem[];
  color?: Color;
  size?: number;
  font?: string;
}

export type SlideTableCell = string | number | Omit<TableCellObject, "runs">;

export interface SlideTable {
  type: "table";
  columns?: number[];
  header?: SlideTableCell[];
  rows: SlideTableCell[][];
  header_fill?: Color;
  borders?: boolean;
  size?: number;
  x?: number;
  y?: number;
  width?: number;
}

export interface SlideImage extends Placed {
  type: "image";
  data: string;
  alt?: string;
}

export type SlideElement = SlideText | SlideList | SlideTable | SlideImage;

export interface Slide {
  layout?: "title" | "content";
  title?: string;
  subtitle?: string;
  background?: Color;
  elements?: SlideElement[];
  notes?: string;
}

export interface PresentationScript {
  $schema?: string;
  type: "presentation";
  outputs: string[];
  properties?: DocumentProperties;
  defaults?: FontDefaults;
  layout?: "16x9" | "16x10" | "4x3" | "wide";
  background?: Color;
  slides: Slide[];
}

export type Script = TextScript | SpreadsheetScript | PresentationScript;
export type ScriptFamily = Script["type"];

/** A run-time failure of a valid script: `path` is a JSON Pointer to the failing element. */
export class ScriptRunError extends Error {
  override readonly name = "ScriptRunError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}
