// The one language table (issue 23): every string of the editor page, its interface, api.js's own
// messages and the demo, per language. A language's table has exactly the English table's keys
// (texts.ts), so a missing or extra key fails `tsc`; i18n.test.ts checks the same at run time.

import { en } from "./en";
import type { Language } from "./language";
import type { Texts } from "./texts";
import { vi } from "./vi";
import { EN_UI_FORMATS, VI_UI_FORMATS } from "./ui-formats";

export type { Texts } from "./texts";
export { languageOf, type Language } from "./language";

export const TEXTS: Record<Language, Texts> = {
  en: { ...en, ui: { ...en.ui, ...EN_UI_FORMATS } },
  vi: { ...vi, ui: { ...vi.ui, ...VI_UI_FORMATS } },
};
