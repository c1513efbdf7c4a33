// The shape every language's table has: the English table's, each text widened to `string` (a
// function keeps its parameters). Its own module so that a language's table and the table of
// tables (index.ts) both depend on it and not on each other.

import type { en } from "./en";

type Widen<T> = {
  [K in keyof T]: T[K] extends string ? string : T[K] extends (...a: infer A) => string ? (...a: A) => string : Widen<T[K]>;
};
export type Texts = Widen<typeof en>;
