// Other people's cursor (with their name), text selection and cell cursor, in their view's colour:
// what the engine says of them is kept in the editor's state (others), and drawn from it.

import type { OtherViewMark, Rect } from "../../protocol/server-frames";
import { handle } from "./frames-in";
import { place } from "./geometry";
import { post, viewJson } from "./host";
import { overlays } from "./page";
import { currentPart, edState as S, update, watch, type OtherViewMarks } from "./state";

/** One colour per view, the same on every screen (the view id is shared by all of them). */
const VIEW_COLORS = ["#c01c28", "#1a5fb4", "#26a269", "#a347ba", "#e66100", "#008b8b", "#865e3c", "#d4418e"];
export function viewColor(id: unknown): string {
  return VIEW_COLORS[Math.abs(Number(id) || 0) % VIEW_COLORS.length]!;
}

/** The elements that show one other view. */
interface OtherViewElements {
  cursor: HTMLDivElement;
  tag: HTMLSpanElement;
  sel: HTMLDivElement;
  cell: HTMLDivElement;
  nameTimer?: ReturnType<typeof setTimeout>;
}
const shown: Record<string, OtherViewElements> = {};

function elementsOf(id: string): OtherViewElements {
  let o = shown[id];
  if (o) return o;
  const color = viewColor(id);
  o = shown[id] = { cursor: document.createElement("div"), tag: document.createElement("span"), sel: document.createElement("div"), cell: document.createElement("div") };
  o.cursor.className = "viewcursor"; o.cursor.dataset.view = id; o.cursor.style.background = color; o.cursor.hidden = true;
  o.tag.className = "viewname"; o.tag.style.background = color; o.cursor.appendChild(o.tag);
  o.sel.className = "viewselection"; o.sel.dataset.view = id; o.sel.style.setProperty("--view-color", color);
  o.cell.className = "viewcellcursor"; o.cell.dataset.view = id; o.cell.style.borderColor = color; o.cell.hidden = true;
  overlays.appendChild(o.sel); overlays.appendChild(o.cell); overlays.appendChild(o.cursor);
  nameOther(id);
  return o;
}
function nameOther(id: string): void {
  const v = S.views.filter((x) => String(x.viewid) === id)[0];
  const o = shown[id];
  if (o) { o.tag.textContent = v ? v.username ?? "" : ""; o.cursor.title = v ? String(v.username) : ""; }
}

const onShownPart = (m: OtherViewMark): boolean => m.part === undefined || m.part === currentPart();

/** One view's marks changed: a new record for it (the state's others is replaced, so watchers hear it). */
function setMarks(id: string, change: Partial<OtherViewMarks>): void {
  const was = S.others[id] ?? { cursor: null, selection: [], cell: null };
  update({ others: { ...S.others, [id]: { ...was, ...change } } });
}

/** How long another person's name stays over their caret after it moved. */
export const NAME_SHOWN_MS = 3000;

function draw(id: string, m: OtherViewMarks): void {
  const o = elementsOf(id), tpp = S.twipsPerPx;
  o.cursor.hidden = !m.cursor;
  if (m.cursor) place(o.cursor, { x: m.cursor.x, y: m.cursor.y, w: tpp * 2, h: m.cursor.h });
  o.sel.innerHTML = "";
  m.selection.forEach((r: Rect) => { const d = document.createElement("div"); place(d, r); o.sel.appendChild(d); });
  o.cell.hidden = !m.cell;
  if (m.cell) place(o.cell, m.cell);
}

let drawn: Record<string, OtherViewMarks> = {};
/** Draws the views whose marks changed (every one at a new zoom). */
function drawChanged(all: boolean): void {
  for (const [id, m] of Object.entries(S.others)) if (all || drawn[id] !== m) draw(id, m);
  drawn = S.others;
}

export function installOtherViews(): void {
  handle("invalidateviewcursor", (f) => {
    setMarks(f.viewId, { cursor: f.rect && onShownPart(f) ? f.rect : null });
    // Shown for good, the name covered the text under it.
    const o = elementsOf(f.viewId);
    o.cursor.classList.add("named");
    clearTimeout(o.nameTimer);
    o.nameTimer = setTimeout(() => o.cursor.classList.remove("named"), NAME_SHOWN_MS);
  });
  handle("textviewselection", (f) => { setMarks(f.viewId, { selection: onShownPart(f) ? f.rects : [] }); });
  handle("cellviewcursor", (f) => { setMarks(f.viewId, { cell: f.rect && onShownPart(f) ? f.rect : null }); });
  // The views of the document: names kept current, the marks of views gone removed.
  handle("viewinfo", (f) => {
    const list = f.views;
    const others = { ...S.others };
    for (const id of Object.keys(shown)) {
      if (list.some((v) => String(v.viewid) === id)) continue;
      const o = shown[id]!; o.cursor.remove(); o.sel.remove(); o.cell.remove(); delete shown[id]; delete others[id];
    }
    update({ views: list, others });
    post("Views_List", list.map(viewJson));
  });
  watch(["views"], () => { for (const id of Object.keys(shown)) nameOther(id); });
  watch(["others"], () => { drawChanged(false); });
  watch(["twipsPerPx"], () => { drawChanged(true); });
}
