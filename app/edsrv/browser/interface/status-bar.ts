// The status bar: position (page, sheet, slide), word count or cell, language, save state, zoom;
// and the engine's state changes (`statechanged:`) shown by every control that watches them.

import type { DocStatus, SaveResult } from "../../protocol/frames";
import type { Rect } from "../../protocol/server-frames";
import { el } from "./controls";
import { api, S, setState, watch, officeText } from "./state";
import { T } from "./texts";
import { zoomLabel } from "./zoom";
import { byId, listen, perFrame } from "./dom";

const bar = {
  position: el("span", { id: "sb-position" }), count: el("span", { id: "sb-count" }),
  language: el("span", { id: "sb-language" }), save: el("span", { id: "sb-save", "aria-live": "polite" }),
};
export const statusbar = el("div", { id: "statusbar", role: "status" }, [bar.position, bar.count, bar.language, bar.save, zoomLabel]);

type SaveState = "" | "saving" | "saved" | "failed" | "unsaved";
let saveState: SaveState = "";
function showSave(s: SaveState): void {
  saveState = s;
  bar.save.textContent = s && { saving: T.saving, saved: T.saved, failed: T.notSaved, unsaved: T.unsaved }[s];
  bar.save.dataset.state = s;
}
function numbers(v: string): number[] {
  return (String(v).match(/\d[\d.,]*/g) || []).map((x) => Number(x.replace(/[.,]/g, "")));
}

/** The page whose area the viewport shows most of (0-based), or -1. */
function pageInView(pages: Rect[], v: Rect): number {
  let best = -1, most = 0;
  pages.forEach((p, i) => {
    const seen = Math.min(p.y + p.h, v.y + v.h) - Math.max(p.y, v.y);
    if (seen > most) { most = seen; best = i; }
  });
  return best;
}

/**
 * A text document's page number: LibreOffice's (`.uno:StatePageNumber`) is the caret's page, which
 * stayed "Page 1 of 22" with page 19 on screen. While the view scrolls, the page most in view is
 * shown (as Collabora does, from the page rectangles of the status); the caret's page again once
 * the caret moves or is in view. Nothing per keystroke but a flag's test.
 */
function installPageNumber(): void {
  let pages: Rect[] = [], caretPage = "", scrolled = false;
  const showCaretPage = () => { scrolled = false; bar.position.textContent = caretPage; };
  watch(".uno:StatePageNumber", (v) => { const n = numbers(v); if (n.length >= 2) { caretPage = T.page(n[0]!, n[n.length - 1]!); showCaretPage(); } });
  api.on("status", (f) => { pages = f.status.type === "text" ? api.frames.rects(f.status.pageRectangles) : []; });
  api.on("invalidatecursor", () => { if (scrolled) showCaretPage(); });
  const showPageInView = perFrame(() => {
    // The caret in view (the view followed it, or scrolled a little): its page is the one meant.
    const v = api.shown(), c = S.cursor;
    if (c && c.y + c.h > v.y && c.y < v.y + v.h) { if (scrolled) showCaretPage(); return; }
    const i = pageInView(pages, v);
    if (i < 0) return;
    scrolled = true;
    bar.position.textContent = T.page(i + 1, pages.length);
  });
  listen(byId("viewport")!, "scroll", () => { if (pages.length) showPageInView(); });
}

export function installStatusBar(): void {
  installPageNumber();
  watch(".uno:StateWordCount", (v) => { const n = numbers(v); if (n.length >= 2) bar.count.textContent = T.words(n[0]!, n[1]!); });
  // The selection's functions as the engine words them ("Average: 2; Sum: 4"); a text cell has
  // no average and a sum of nothing ("Average: ; Sum: 0"): then nothing is shown.
  watch(".uno:StateTableCell", (v) => { bar.count.textContent = /:\s*(;|$)/.test(v) ? "" : v; });
  watch(".uno:LanguageStatus", (v) => { bar.language.textContent = officeText(String(v).split(";")[0]!); });
  api.on("savesent", () => { showSave("saving"); });
  api.on("saveresult", (f) => {
    const r: SaveResult = f.result;
    if (r.success) showSave(S.modified ? "unsaved" : "saved");
    else if (r.result !== "readonly") showSave("failed");
  });
}

/** Engine state → controls (and the save state from `.uno:ModifiedStatus`). */
export function installStateChanges(): void {
  api.on("statechanged", (f) => {
    if (!f.command) return;
    const { command: cmd, value } = f;
    if (cmd === ".uno:ModifiedStatus") { if (value === "true" && saveState !== "saving") showSave("unsaved"); else if (value === "false" && saveState) showSave("saved"); }
    setState(cmd, value);
  });
}

export function partPosition(st: DocStatus): void {
  if (st.type === "spreadsheet") bar.position.textContent = T.sheet(st.selectedPart + 1, st.parts);
  else if (st.type === "presentation" || st.type === "drawing") bar.position.textContent = T.slideOf(st.selectedPart + 1, st.parts);
}
