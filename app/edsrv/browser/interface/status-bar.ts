// The status bar: position (page, sheet, slide), word count or cell, language, save state, zoom;
// and the engine's state changes (`statechanged:`) shown by every control that watches them.

import { officeText } from "./office-text";
import type { DocStatus, SaveResult } from "../../protocol/frames";
import { el } from "./controls";
import { api, S, setState, watch } from "./state";
import { T } from "./texts";
import { zoomLabel } from "./zoom";

const bar = {
  position: el("span", { id: "sb-position" }), count: el("span", { id: "sb-count" }),
  language: el("span", { id: "sb-language" }), save: el("span", { id: "sb-save", "aria-live": "polite" }),
};
export const statusbar = el("div", { id: "statusbar", role: "status" }, [bar.position, bar.count, bar.language, bar.save, zoomLabel]);

type SaveState = "" | "saving" | "saved" | "failed" | "unsaved";
let saveState: SaveState = "";
function showSave(s: SaveState): void {
  saveState = s;
  bar.save.textContent = s === "saving" ? T.saving : s === "saved" ? T.saved : s === "failed" ? T.notSaved : s === "unsaved" ? T.unsaved : "";
  bar.save.dataset.state = s;
}
function numbers(v: string): number[] {
  return (String(v).match(/\d[\d.,]*/g) || []).map((x) => Number(x.replace(/[.,]/g, "")));
}

export function installStatusBar(): void {
  watch(".uno:StatePageNumber", (v) => { const n = numbers(v); if (n.length >= 2) bar.position.textContent = T.page(n[0]!, n[n.length - 1]!); });
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
