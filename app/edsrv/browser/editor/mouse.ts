// The mouse: a click places the cursor, a drag selects, a double click selects a word, a right
// click asks the engine for its context menu.

import { mouseCommand, type MouseEventType } from "../../protocol/frames";
import { SHIFT, MOD1 } from "./keyboard";
import { focusDocument, overlays, sizer, viewport } from "./page";
import { send } from "./outbox";
import { edState as S } from "./state";

/** The left button is down over the document (a drag): the caret does not scroll the page meanwhile. */
let mouseDown = false;
export const isMouseDown = (): boolean => mouseDown;
let moveQueued: MouseEvent | null = null;

function mouse(type: MouseEventType, e: MouseEvent, buttons?: number): void {
  pointerAt(type, e.clientX, e.clientY, { count: type === "move" ? 1 : e.detail || 1, buttons: buttons || (type === "move" && !mouseDown ? 0 : 1), modifier: (e.shiftKey ? SHIFT : 0) + (e.ctrlKey ? MOD1 : 0) });
}

/** A mouse event at a point of the window (CSS pixels), sent in document twips; touch uses it too. */
export function pointerAt(type: MouseEventType, clientX: number, clientY: number, o: { count?: number; buttons?: number; modifier?: number } = {}): void {
  if (S.readOnly || S.modalWindows) return;
  const r = sizer.getBoundingClientRect(), tpp = S.twipsPerPx;
  const x = Math.round((clientX - r.left) * tpp), y = Math.round((clientY - r.top) * tpp);
  send(mouseCommand(type, x, y, o.count ?? 1, o.buttons ?? 1, o.modifier ?? 0));
}

export function installMouse(): void {
  const surface = overlays.parentNode as HTMLElement;
  // A right click goes to the engine as its right button: it answers with its context menu (`contextmenu:`).
  surface.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    if (S.readOnly) return;
    mouse("buttondown", e, 4); mouse("buttonup", e, 4);
    focusDocument();
  });
  surface.addEventListener("mousedown", (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    mouseDown = true;
    mouse("buttondown", e);
    focusDocument();
  });
  window.addEventListener("mousemove", (e) => {
    if (!mouseDown) return;
    if (!moveQueued) requestAnimationFrame(() => { const m = moveQueued; moveQueued = null; if (m && mouseDown) mouse("move", m); });
    moveQueued = e;
  });
  window.addEventListener("mouseup", (e) => {
    if (!mouseDown || e.button !== 0) return;
    mouseDown = false; moveQueued = null;
    mouse("buttonup", e);
    focusDocument();
  });
  viewport.addEventListener("focus", () => { focusDocument(); });
}
