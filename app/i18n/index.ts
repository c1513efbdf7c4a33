// The one language table (issue 23): every string of the editor page, its interface, api.js's own
// messages and the demo, per language. A language's table has exactly the English table's keys
// (the type below), so a missing or extra key fails `tsc`; i18n.test.ts checks the same at run time.

import { en } from "./en";
import type { Language } from "./language";
import { vi } from "./vi";

/** The English table's shape, each text widened to `string` (a function keeps its parameters). */
type Widen<T> = {
  [K in keyof T]: T[K] extends string ? string : T[K] extends (...a: infer A) => string ? (...a: A) => string : Widen<T[K]>;
};
export type Texts = Widen<typeof en>;
export { languageOf, type Language } from "./language";

export const TEXTS: Record<Language, Texts> = { en, vi };
