// The interface's texts in the page's language (page.ts sets <html lang>: vi or en), from the one
// language table (app/i18n).

import type { Texts } from "../../../i18n";
import { enUi } from "../../../i18n/en";
import { viUi } from "../../../i18n/vi";

export const T: Texts["ui"] = document.documentElement.lang === "vi" ? viUi : enUi;
