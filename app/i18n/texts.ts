// The shape every language's table has: the English table's, each text widened to `string` (a
// function keeps its parameters). Its own module so that a language's table and the table of
// tables (index.ts) both depend on it and not on each other.

import type { en } from "./en";
import type { EN_UI_FORMATS } from "./ui-formats";

type Widen<T> = {
  [K in keyof T]: T[K] extends string ? string : T[K] extends (...a: infer A) => string ? (...a: A) => string : Widen<T[K]>;
};
/** A language's table as en.ts and vi.ts write it: plain texts only. */
export type PlainTexts = Widen<typeof en>;
/** The whole table (index.ts): the interface's formats (ui-formats.ts) joined to its texts. */
export type Texts = Omit<PlainTexts, "ui"> & { ui: PlainTexts["ui"] & Widen<typeof EN_UI_FORMATS> };
