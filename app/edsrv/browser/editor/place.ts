// Where the person was when the connection dropped. A view the server kept (a kit recovered from
// its journal) comes back with its caret; a new view (the socket dropped while the editing server
// stayed up, or it restarted and the view's wait had ended) starts at the top of the document,
// and what the person typed next went there. The page puts the caret back where it was: the same
// slide, then a click on the caret's place (or the cell).

import { on } from "./events";
import { pointerAt } from "./mouse";
import { sizer } from "./page";
import { switchPart } from "./parts";
import { edState as S, editor, currentPart, type Rect } from "./state";

/** How long the new view's caret may take to be reported (a loaded machine included). */
const CARET_REPORT_MAX_MS = 3000;

let kept: { part: number; cursor: Rect | null; cell: Rect | null } | null = null;

export function installPlace(): void {
  on("disconnected", rememberPlace);
  on("reconnected", restorePlace);
}

/** The connection dropped: what to put back. */
function rememberPlace(): void {
  if (!editor.docLoaded || editor.readOnly) return;
  kept = { part: currentPart(), cursor: S.cursor && { ...S.cursor }, cell: S.cellCursor && { ...S.cellCursor } };
}

/** The view is back: once its caret is reported, put it back where it was if the view is a new one. */
function restorePlace(): void {
  const was = kept;
  kept = null;
  if (!was || editor.readOnly) return;
  if (editor.status && editor.status.type !== "text" && currentPart() !== was.part) switchPart(was.part);
  // What the page holds is the old view's caret: the view's own report is waited for.
  S.cursor = null;
  S.cellCursor = null;
  const until = performance.now() + CARET_REPORT_MAX_MS;
  const check = () => {
    const reported = was.cell ? S.cellCursor : S.cursor;
    if (!reported && performance.now() < until) return void setTimeout(check, 50);
    const same = (a: Rect | null, b: Rect | null) => !!a && !!b && a.x === b.x && a.y === b.y;
    if (was.cell) {
      if (same(S.cellCursor, was.cell)) return; // the view kept its place (a recovered one)
      clickAt(was.cell.x + was.cell.w / 2, was.cell.y + was.cell.h / 2);
    } else if (was.cursor && editor.status?.type === "text") {
      if (same(S.cursor, was.cursor)) return;
      clickAt(was.cursor.x, was.cursor.y + was.cursor.h / 2);
    } else return;
    S.placesRestored = (S.placesRestored ?? 0) + 1;
  };
  check();
}

/** A click at a document point (twips). */
function clickAt(x: number, y: number): void {
  const r = sizer.getBoundingClientRect(), tpp = editor.twipsPerPx;
  const cx = r.left + x / tpp, cy = r.top + y / tpp;
  pointerAt("buttondown", cx, cy);
  pointerAt("buttonup", cx, cy);
}
