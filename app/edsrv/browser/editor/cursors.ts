// The view's own caret, text selection and cell cursor: the engine's frames change the editor's
// state, and the marks are drawn from it (again at each zoom). The caret follows the pixels of the
// edit it belongs to.

import { drawnArea } from "./canvas";
import { handle } from "./frames-in";
import { eachTile, geometry, place, scrollIntoView } from "./geometry";
import { isMouseDown } from "./mouse";
import { cellCursorEl, cursorEl, ime, selectionEl } from "./page";
import { currentPart, edState as S, update, watch } from "./state";
import { cache } from "./tile-cache";

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

/** The caret moved. */
function caretMoved(): void {
  // The caret moves with the text it follows: while the tiles an edit invalidated are on their
  // way, it waits for them (at most 50 ms). It ran ahead of the painted text when typing fast,
  // and moved in a frame of its own, a second frame of work for every keystroke.
  if (S.cursor && tilesAwaited()) { if (!cursorTimer) cursorTimer = setTimeout(showCursor, 50); return; }
  showCursor();
}

export function showCursor(): void {
  clearTimeout(cursorTimer); cursorTimer = 0;
  const r = S.cursor;
  if (!r || !S.cursorVisible || S.marksPart !== currentPart()) { cursorEl.hidden = true; return; }
  // Reads (scroll position) before writes: a read after a write lays the page out at once.
  if (!isMouseDown()) scrollIntoView(r);
  const g = geometry(), tpp = S.twipsPerPx;
  cursorEl.hidden = false;
  place(cursorEl, { x: r.x, y: r.y, w: tpp * 2, h: r.h });
  ime.style.left = g.ox + r.x / tpp + "px"; ime.style.top = g.oy + r.y / tpp + "px";
}

function drawSelection(): void {
  selectionEl.innerHTML = "";
  S.selection.forEach((r) => { const d = document.createElement("div"); d.className = "sel"; place(d, r); selectionEl.appendChild(d); });
}

function drawCellCursor(): void {
  const r = S.marksPart === currentPart() ? S.cellCursor : null;
  cellCursorEl.hidden = !r;
  if (r) place(cellCursorEl, r);
}

/**
 * Another part is shown: the selection goes, and the caret and the cell cursor, which belong to
 * the part they were reported on, are hidden until the engine places them on this one.
 */
export function clearOverlays(): void {
  // Only a selection there was is a change (the clipboard fetches the content of a new one).
  if (S.selection.length) update({ selection: [] });
  drawCellCursor();
  cursorEl.hidden = true;
}

export function installCursors(): void {
  // A moved caret is shown again, whatever `cursorvisible:` said last.
  handle("invalidatecursor", (f) => { update({ cursor: f.rect, cursorVisible: true, marksPart: currentPart() }); });
  handle("cursorvisible", (f) => { update({ cursorVisible: f.visible }); });
  handle("textselection", (f) => { update({ selection: f.rects }); });
  handle("cellcursor", (f) => { update({ cellCursor: f.rect, marksPart: currentPart() }); });
  watch(["cursor"], caretMoved);
  watch(["cursorVisible"], () => { cursorEl.hidden = !S.cursorVisible || !S.cursor; });
  watch(["selection"], drawSelection);
  watch(["cellCursor", "marksPart"], drawCellCursor);
  // At a new zoom the engine says nothing again: the marks are drawn at the new scale from what it said.
  watch(["twipsPerPx"], () => {
    drawSelection();
    drawCellCursor();
    if (S.cursor && !cursorEl.hidden) showCursor();
  });
}
