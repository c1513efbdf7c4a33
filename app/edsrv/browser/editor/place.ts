// Where the person was when the connection dropped. A view the server kept (a kit recovered from
// its journal) comes back with its caret; a new view (the socket dropped while the editing server
// stayed up, or it restarted and the view's wait had ended) starts at the top of the document,
// and what the person typed next went there. The page puts the caret back where it was: the same
// slide, then a click on the caret's place (or the cell) — decided on the view's first caret
// report, and never once the person has typed or clicked again.

import { on } from "./events";
import { pointerAt } from "./mouse";
import { sizer } from "./page";
import { switchPart } from "./parts";
import { lastInputAt } from "./outbox";
import { edState as S, currentPart, type Rect } from "./state";

let kept: { part: number; cursor: Rect | null; cell: Rect | null } | null = null;
/** Waiting for the new view's first caret report (set on reconnection). */
let awaiting: { since: number; switched: boolean } | null = null;

export function installPlace(): void {
  on("disconnected", rememberPlace);
  on("reconnected", () => {
    if (!kept || S.readOnly) { kept = null; return; }
    awaiting = { since: performance.now(), switched: false };
    if (S.status && S.status.type !== "text" && currentPart() !== kept.part) {
      awaiting.switched = true;
      switchPart(kept.part);
    }
  });
  // Back on the person's sheet or slide: the new view's place there is not reported again (the
  // engine reported it for the first part), so the kept cell is clicked (harmless if already there).
  on("status", () => {
    if (kept?.cell && awaiting?.switched && currentPart() === kept.part) decide(null);
  });
  // The view's own report.
  on("invalidatecursor", (f) => { if (kept && !kept.cell) decide(f.rect); });
  on("cellcursor", (f) => { if (kept?.cell) decide(f.rect); });
}

/** The connection dropped: what to put back. */
function rememberPlace(): void {
  if (!S.loaded || S.readOnly) return;
  kept = { part: currentPart(), cursor: S.cursor && { ...S.cursor }, cell: S.cellCursor && { ...S.cellCursor } };
}

function decide(reported: Rect | null): void {
  const was = kept, wait = awaiting;
  if (!was || !wait) return;
  // A report from before the switch back to the person's sheet or slide: the click would land on
  // the wrong one. The status of that part decides instead (installPlace).
  if (S.status && S.status.type !== "text" && currentPart() !== was.part) return;
  kept = null;
  awaiting = null;
  if (lastInputAt() > wait.since) return; // the person already went on from where the view is
  const same = (a: Rect | null, b: Rect | null) => !!a && !!b && a.x === b.x && a.y === b.y;
  if (was.cell) {
    if (same(reported, was.cell)) return; // the view kept its place (a recovered one)
    clickAt(was.cell.x + was.cell.w / 2, was.cell.y + was.cell.h / 2);
  } else if (was.cursor && S.status?.type === "text") {
    if (same(reported, was.cursor)) return;
    clickAt(was.cursor.x, was.cursor.y + was.cursor.h / 2);
  } else return;
  S.placesRestored = (S.placesRestored ?? 0) + 1;
}

/** A click at a document point (twips). */
function clickAt(x: number, y: number): void {
  const r = sizer.getBoundingClientRect(), tpp = S.twipsPerPx;
  const cx = r.left + x / tpp, cy = r.top + y / tpp;
  pointerAt("buttondown", cx, cy);
  pointerAt("buttonup", cx, cy);
}
