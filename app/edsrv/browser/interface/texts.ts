// The interface's texts in the page's language: the plain ones as page.ts writes them into the page
// (a JSON block, `#ui-texts`, from the one language table in app/i18n), so that only the page's
// language travels and ui.js carries no language table (10 KB of it); the formats (a number put
// into words) are code, in ui.js (app/i18n/ui-formats.ts).

import type { Texts } from "../../../i18n";
import { EN_UI_FORMATS, VI_UI_FORMATS } from "../../../i18n/ui-formats";
import { byId } from "./dom";

export const T: Texts["ui"] = {
  ...JSON.parse(byId("ui-texts")?.textContent || "{}"),
  ...(document.documentElement.lang === "vi" ? VI_UI_FORMATS : EN_UI_FORMATS),
};
