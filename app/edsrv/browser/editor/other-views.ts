// Other people's cursor (with their name), text selection and cell cursor, in their view's colour.

import type { ViewInfo } from "../../protocol/frames";
import { place, rect, type Area } from "./geometry";
import { post, viewJson } from "./host";
import { overlays } from "./page";
import { currentPart, edState as S, editor, type Rect } from "./state";

/** One colour per view, the same on every screen (the view id is shared by all of them). */
const VIEW_COLORS = ["#c01c28", "#1a5fb4", "#26a269", "#a347ba", "#e66100", "#008b8b", "#865e3c", "#d4418e"];
export function viewColor(id: unknown): string {
  return VIEW_COLORS[Math.abs(Number(id) || 0) % VIEW_COLORS.length]!;
}

interface OtherView {
  cursor: HTMLDivElement;
  tag: HTMLSpanElement;
  sel: HTMLDivElement;
  cell: HTMLDivElement;
  /** What the engine last said of this view on the shown part, in twips: drawn again after a zoom. */
  at: { cursor: Rect | null; selection: Rect[]; cell: Rect | null };
  nameTimer?: ReturnType<typeof setTimeout>;
}
const others: Record<string, OtherView> = {};

function other(id: string): OtherView {
  let o = others[id];
  if (o) return o;
  const color = viewColor(id);
  o = others[id] = { cursor: document.createElement("div"), tag: document.createElement("span"), sel: document.createElement("div"), cell: document.createElement("div"), at: { cursor: null, selection: [], cell: null } };
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
  const o = others[id];
  if (o) { o.tag.textContent = v ? v.username ?? "" : ""; o.cursor.title = v ? String(v.username) : ""; }
}

/** Another view's frame: `{"viewId": …, "part": …, "rectangle" | "selection": …}`. */
interface ViewFrame {
  viewId: unknown;
  part?: unknown;
  rectangle?: string;
  selection?: string;
}
function parseViewFrame(arg: string): ViewFrame | null {
  try {
    return JSON.parse(arg) as ViewFrame;
  } catch {
    return null;
  }
}
function onPart(j: ViewFrame): boolean {
  return j.part === undefined || Number(j.part) === currentPart();
}

/** How long another person's name stays over their caret after it moved. */
export const NAME_SHOWN_MS = 3000;

/** `invalidateviewcursor:` */
export function onViewCursor(arg: string): void {
  const j = parseViewFrame(arg);
  if (!j) return;
  const o = other(String(j.viewId)), r = rect(j.rectangle || "");
  o.at.cursor = r && onPart(j) ? r : null;
  drawCursor(o);
  // Shown for good, the name covered the text under it.
  o.cursor.classList.add("named");
  clearTimeout(o.nameTimer);
  o.nameTimer = setTimeout(() => o.cursor.classList.remove("named"), NAME_SHOWN_MS);
}
function drawCursor(o: OtherView): void {
  const r = o.at.cursor;
  o.cursor.hidden = !r;
  if (r) place(o.cursor, { x: r.x, y: r.y, w: editor.twipsPerPx * 2, h: r.h });
}
/** `textviewselection:` */
export function onViewSelection(arg: string): void {
  const j = parseViewFrame(arg);
  if (!j) return;
  const o = other(String(j.viewId));
  o.at.selection = onPart(j) ? String(j.selection || "").split(";").map(rect).filter((r): r is Rect => !!r) : [];
  drawSelection(o);
}
function drawSelection(o: OtherView): void {
  o.sel.innerHTML = "";
  o.at.selection.forEach((r: Area) => {
    const d = document.createElement("div"); place(d, r); o.sel.appendChild(d);
  });
}
/** `cellviewcursor:` */
export function onCellViewCursor(arg: string): void {
  const j = parseViewFrame(arg);
  if (!j) return;
  const o = other(String(j.viewId)), r = rect(j.rectangle || "");
  o.at.cell = r && onPart(j) ? r : null;
  drawCell(o);
}
function drawCell(o: OtherView): void {
  const r = o.at.cell;
  o.cell.hidden = !r;
  if (r) place(o.cell, r);
}

/** Other people's marks drawn again at the current zoom (see placeOwnMarksAgain). */
export function placeOtherViewsAgain(): void {
  for (const o of Object.values(others)) {
    drawCursor(o);
    drawSelection(o);
    drawCell(o);
  }
}

/** `viewinfo:` the views of the document: names kept current, the marks of views gone removed. */
export function onViews(list: ViewInfo[]): void {
  S.views = list;
  Object.keys(others).forEach((id) => {
    if (list.some((v) => String(v.viewid) === id)) { nameOther(id); return; }
    const o = others[id]!; o.cursor.remove(); o.sel.remove(); o.cell.remove(); delete others[id];
  });
  post("Views_List", list.map(viewJson));
}
