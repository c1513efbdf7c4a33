// The interface's texts in the page's language (page.ts sets <html lang>: vi or en), from the one
// language table (app/i18n).

import { TEXTS, type Texts } from "../../../i18n";

export const T: Texts["ui"] = TEXTS[document.documentElement.lang === "vi" ? "vi" : "en"].ui;
