// Find and replace, with every match highlighted on the current part.

import { arg, button, el, longArg, stringArg } from "./controls";
import { api, S, UI } from "./state";
import { T } from "./texts";
import type { Rect } from "../editor/state";
import { listen } from "./dom";

let findInput: HTMLInputElement, replaceInput: HTMLInputElement, findCount: HTMLSpanElement, findbar: HTMLDivElement;

export function buildFindBar(): HTMLDivElement {
  findInput = el("input", { type: "search", id: "find-text", "aria-label": T.find, placeholder: T.find, autocomplete: "off" });
  replaceInput = el("input", { type: "text", id: "replace-text", "class": "edit-only", "aria-label": T.replace, placeholder: T.replace, autocomplete: "off" });
  findCount = el("span", { id: "find-count", "aria-live": "polite" });
  findbar = el("div", { id: "findbar", role: "search", hidden: "" }, [
    findInput,
    button("findprev", T.findPrev, { view: true, icon: "upsearch", click: () => { search(0, true); } }),
    button("findnext", T.findNext, { view: true, icon: "downsearch", click: () => { search(0, false); } }),
    findCount,
    replaceInput,
    button("replace", T.replaceOne, { icon: "searchdialog", click: () => { search(2, false); } }),
    button("replaceall", T.replaceAll, { icon: "selectall", click: () => { search(3, false); } }),
    button("findclose", T.close, { view: true, icon: "exitsearch", click: closeFind }),
  ]);
  let t: ReturnType<typeof setTimeout> | undefined;
  listen(findInput, "input", () => { clearTimeout(t); t = setTimeout(() => { if (findInput.value) search(1, false); else findCount.textContent = ""; }, 250); });
  listen(findbar, "keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); closeFind(); }
    if (e.key === "Enter" && e.target === findInput) { e.preventDefault(); search(0, e.shiftKey); }
    if (e.key === "Enter" && e.target === replaceInput) { e.preventDefault(); search(2, false); }
  });
  api.on("searchresultselection", (f) => {
    const found = f.results;
    UI.matches = found.length;
    findCount.textContent = T.matches(UI.matches);
    // Every match highlighted on the current part (the engine selects only one of them).
    const here = S.status && S.status.type !== "text" ? String(S.status.selectedPart) : null;
    const rects: Rect[] = [];
    found.forEach((m) => {
      if (here !== null && m.part !== undefined && String(m.part) !== here) return;
      rects.push(...m.rects);
    });
    api.marks("find", rects);
    if (rects[0]) api.reveal(rects[0]);
  });
  api.on("searchnotfound", () => { UI.matches = 0; findCount.textContent = T.noMatch; api.marks("find", []); });
  return findbar;
}

/** SvxSearchCmd: 0 find, 1 find all (highlights every match), 2 replace, 3 replace all. */
function search(command: number, backward: boolean): void {
  if (!findInput.value) return;
  const args = {
    "SearchItem.SearchString": stringArg(findInput.value),
    "SearchItem.ReplaceString": stringArg(replaceInput.value),
    "SearchItem.Backward": arg("boolean", !!backward),
    "SearchItem.Command": longArg(command),
  };
  // Sent as is: finding is allowed in read-only views (the server lets find commands through).
  api.send(api.frames.uno(".uno:ExecuteSearch", args));
  // A replace all's own answer (the replaced places, or nothing, as LibreOffice has it) is no
  // count of what is left: a find all sent right behind it, worked after it, has the last word
  // ("No matches" once every one is replaced).
  if (command === 3) api.send(api.frames.uno(".uno:ExecuteSearch", { ...args, "SearchItem.Command": longArg(1) }));
}
export function openFind(withReplace: boolean): void {
  findbar.hidden = false;
  findbar.classList.toggle("with-replace", !!withReplace && !S.readOnly);
  (withReplace && !S.readOnly ? replaceInput : findInput).focus();
  findInput.select();
}
function closeFind(): void {
  findbar.hidden = true; findCount.textContent = ""; api.marks("find", []); api.focus();
}
