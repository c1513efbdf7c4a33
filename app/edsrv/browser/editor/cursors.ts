// The view's own caret, text selection and cell cursor. The caret follows the pixels of the edit
// it belongs to.

import { drawnArea } from "./canvas";
import { selectionChanged } from "./clipboard";
import { eachTile, geometry, place, rect, scrollIntoView } from "./geometry";
import { mouseDown } from "./mouse";
import { cellCursorEl, cursorEl, ime, selectionEl } from "./page";
import { currentPart, edState as S, editor, type Rect } from "./state";
import { cache } from "./tile-cache";

/** The rectangle of a cursor frame: "x, y, w, h" or Collabora's JSON with `rectangle`. */
export function payloadRect(arg: string): Rect | null {
  if (arg.charAt(0) === "{") {
    try {
      const j = JSON.parse(arg) as { rectangle?: string };
      return rect(j.rectangle || "");
    } catch {
      return null;
    }
  }
  return rect(arg);
}

let cursorTimer: ReturnType<typeof setTimeout> | 0 = 0;
/** The caret waits for the tiles of an edit. */
export function cursorWaiting(): boolean {
  return cursorTimer !== 0;
}

/** Whether a visible tile waits for the new pixels of an edit (invalidated, not here yet). */
export function tilesAwaited(): boolean {
  const v = drawnArea(), p = currentPart();
  let waiting = false;
  if (v) eachTile(v, (tx, ty) => { const e = cache[p + ":" + tx + ":" + ty]; if (e && e.stale) waiting = true; });
  return waiting;
}

/** `invalidatecursor:` */
export function onCursor(arg: string): void {
  S.cursor = payloadRect(arg);
  // The caret moves with the text it follows: while the tiles an edit invalidated are on their
  // way, it waits for them (at most 50 ms). It ran ahead of the painted text when typing fast,
  // and moved in a frame of its own, a second frame of work for every keystroke.
  if (S.cursor && tilesAwaited()) { if (!cursorTimer) cursorTimer = setTimeout(showCursor, 50); return; }
  showCursor();
}

export function showCursor(): void {
  clearTimeout(cursorTimer); cursorTimer = 0;
  const r = S.cursor;
  if (!r) { cursorEl.hidden = true; return; }
  // Reads (scroll position) before writes: a read after a write lays the page out at once.
  if (!mouseDown) scrollIntoView(r);
  const g = geometry(), tpp = editor.twipsPerPx;
  cursorEl.hidden = false;
  place(cursorEl, { x: r.x, y: r.y, w: tpp * 2, h: r.h });
  ime.style.left = g.ox + r.x / tpp + "px"; ime.style.top = g.oy + r.y / tpp + "px";
}

/** `cursorvisible:` */
export function onCursorVisible(arg: string): void {
  cursorEl.hidden = arg.trim() !== "true" || !S.cursor;
}

/** `textselection:` "x, y, w, h; …" */
export function onSelection(arg: string): void {
  S.selection = arg.trim() ? arg.split(";").map(rect).filter((r): r is Rect => !!r) : [];
  selectionChanged();
  drawSelection();
}

function drawSelection(): void {
  selectionEl.innerHTML = "";
  S.selection.forEach((r) => { const d = document.createElement("div"); d.className = "sel"; place(d, r); selectionEl.appendChild(d); });
}

/** `cellcursor:` */
export function onCellCursor(arg: string): void {
  S.cellCursor = arg.trim() === "EMPTY" ? null : rect(arg);
  selectionChanged();
  drawCellCursor();
}

function drawCellCursor(): void {
  const r = S.cellCursor;
  cellCursorEl.hidden = !r;
  if (r) place(cellCursorEl, r);
}

/**
 * The view's own marks drawn again from what the engine last said, at the current zoom: the engine
 * sends nothing new when only the scale changes, and marks placed at the old scale stayed there.
 */
export function placeOwnMarksAgain(): void {
  drawSelection();
  // Marks hidden (another part shown since) stay hidden until the engine places them again.
  if (S.cellCursor && !cellCursorEl.hidden) place(cellCursorEl, S.cellCursor);
  if (S.cursor && !cursorEl.hidden) showCursor();
}

/** Another part is shown: what was drawn over the old one goes. */
export function clearOverlays(): void {
  S.selection = [];
  selectionEl.innerHTML = ""; cellCursorEl.hidden = true; cursorEl.hidden = true;
}
