// Touch (phones and tablets): a tap places the caret and brings up the on-screen keyboard (the
// browser's mouse events after a tap do it, through the same input path as a keyboard), a long
// press selects the word under the finger (in text) and asks the engine for its context menu, two fingers pinch to zoom, a swipe across a slide
// that fits its view goes to the next or previous slide, and two handles at a text selection's
// ends drag to change it.

import { LONG_PRESS_MS } from "./gestures";
import { SHIFT } from "./keyboard";
import { pointerAt } from "./mouse";
import { focusDocument, sizer, viewport } from "./page";
import { switchPart } from "./parts";
import { edState as S, currentPart, watch } from "./state";
import { setZoom } from "./zoom";

/** A finger that moves further than this is scrolling or dragging, not pressing. */
const TAP_SLOP_PX = 10;
const SWIPE_MIN_PX = 60;
const SWIPE_MAX_MS = 700;
/** Zoom bounds, as the zoom control's: 25 % to 400 % (15 twips a pixel is 100 %). */
const MIN_TPP = 15 / 4, MAX_TPP = 15 / 0.25;

/** The last touch made the selection: its handles are shown (a mouse user has none). */
let touchSelecting = false;
let longPressedAt = -Infinity; // no long press yet: a right click in the page's first moments is one

export function installTouch(): void {
  installPressAndSwipe();
  installPinch();
  installSelectionHandles();
  // Chromium on a phone also fires `contextmenu` on a long press: the engine was asked already.
  window.addEventListener("contextmenu", (e) => {
    if (performance.now() - longPressedAt < 1500) { e.preventDefault(); e.stopPropagation(); }
  }, true);
}

function installPressAndSwipe(): void {
  let start: { x: number; y: number; t: number; atLeftEdge: boolean; atRightEdge: boolean } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pressed = false;
  const cancel = () => { if (timer) clearTimeout(timer); timer = null; };
  sizer.addEventListener("touchstart", (e) => {
    cancel();
    pressed = false;
    if (e.touches.length !== 1) { start = null; return; }
    const t = e.touches[0]!;
    start = {
      x: t.clientX, y: t.clientY, t: performance.now(),
      atLeftEdge: viewport.scrollLeft <= 0,
      atRightEdge: viewport.scrollLeft + viewport.clientWidth >= viewport.scrollWidth - 1,
    };
    touchSelecting = true;
    timer = setTimeout(() => {
      timer = null;
      if (!start || S.readOnly) return;
      // In text, as on any phone: the word under the finger is selected (a double click), with its
      // handles; then a right click there, which keeps the selection and answers with the menu.
      pressed = true;
      longPressedAt = performance.now();
      if (S.status?.type === "text") {
        pointerAt("buttondown", start.x, start.y, { count: 2 });
        pointerAt("buttonup", start.x, start.y, { count: 2 });
      }
      pointerAt("buttondown", start.x, start.y, { buttons: 4 });
      pointerAt("buttonup", start.x, start.y, { buttons: 4 });
      focusDocument();
    }, LONG_PRESS_MS);
  }, { passive: true });
  sizer.addEventListener("touchmove", (e) => {
    const t = e.touches[0];
    if (!start || !t || e.touches.length !== 1) return;
    const dx = t.clientX - start.x, dy = t.clientY - start.y;
    if (Math.hypot(dx, dy) > TAP_SLOP_PX) cancel();
    // A swipe to another slide is ours: not a scroll, and not the browser's history gesture.
    if (isSlideSwipe(dx, dy, start)) e.preventDefault();
  }, { passive: false });
  sizer.addEventListener("touchend", (e) => {
    cancel();
    // After a long press the finger's lifting is no click (it would close the menu the press opened).
    if (pressed) { e.preventDefault(); pressed = false; start = null; return; }
    const t = e.changedTouches[0];
    if (start && t && e.touches.length === 0) swipe(t.clientX - start.x, t.clientY - start.y, performance.now() - start.t, start);
    start = null;
  });
  sizer.addEventListener("touchcancel", () => { cancel(); start = null; pressed = false; });
}

/**
 * A quick horizontal swipe over a slide: the next or the previous slide, when the slide could not
 * scroll further that way (otherwise the finger was scrolling a slide wider than the screen).
 */
function swipe(dx: number, dy: number, ms: number, from: { atLeftEdge: boolean; atRightEdge: boolean }): void {
  const st = S.status;
  if (!st || ms > SWIPE_MAX_MS || Math.abs(dx) < SWIPE_MIN_PX || !isSlideSwipe(dx, dy, from)) return;
  const next = currentPart() + (dx < 0 ? 1 : -1);
  if (next >= 0 && next < (st.parts || 1)) switchPart(next);
}

/** A mostly horizontal move over a slide that cannot scroll further that way. */
function isSlideSwipe(dx: number, dy: number, from: { atLeftEdge: boolean; atRightEdge: boolean }): boolean {
  if (S.status?.type !== "presentation" || Math.abs(dx) < TAP_SLOP_PX || Math.abs(dx) < 2 * Math.abs(dy)) return false;
  return dx < 0 ? from.atRightEdge : from.atLeftEdge;
}

/**
 * Two fingers: the page follows them at once (a CSS scale about their middle), and the engine
 * paints the new zoom when they lift, the point between them kept where it was.
 */
function installPinch(): void {
  let pinch: { d0: number; tpp0: number; mx: number; my: number; ratio: number } | null = null;
  const spread = (e: TouchEvent) => Math.hypot(e.touches[0]!.clientX - e.touches[1]!.clientX, e.touches[0]!.clientY - e.touches[1]!.clientY);
  sizer.addEventListener("touchstart", (e) => {
    if (e.touches.length !== 2) return;
    const r = sizer.getBoundingClientRect();
    const mx = (e.touches[0]!.clientX + e.touches[1]!.clientX) / 2 - r.left, my = (e.touches[0]!.clientY + e.touches[1]!.clientY) / 2 - r.top;
    pinch = { d0: Math.max(1, spread(e)), tpp0: S.twipsPerPx, mx, my, ratio: 1 };
    sizer.style.transformOrigin = `${mx}px ${my}px`;
  }, { passive: true });
  sizer.addEventListener("touchmove", (e) => {
    if (!pinch || e.touches.length !== 2) return;
    e.preventDefault(); // not the browser's own page zoom
    const tpp = clampTpp(pinch.tpp0 / (spread(e) / pinch.d0));
    pinch.ratio = pinch.tpp0 / tpp;
    sizer.style.transform = `scale(${pinch.ratio})`;
  }, { passive: false });
  const end = (e: TouchEvent) => {
    if (!pinch || e.touches.length >= 2) return;
    const p = pinch;
    pinch = null;
    sizer.style.transform = "";
    if (Math.abs(p.ratio - 1) < 0.02) return;
    // The document point under the fingers' middle, in twips, stays under it at the new zoom.
    const atX = p.mx * p.tpp0, atY = p.my * p.tpp0;
    const onScreenX = p.mx - viewport.scrollLeft, onScreenY = p.my - viewport.scrollTop;
    setZoom(clampTpp(p.tpp0 / p.ratio));
    viewport.scrollLeft = atX / S.twipsPerPx - onScreenX;
    viewport.scrollTop = atY / S.twipsPerPx - onScreenY;
    S.pinches = (S.pinches ?? 0) + 1;
  };
  sizer.addEventListener("touchend", end);
  sizer.addEventListener("touchcancel", end);
}

const clampTpp = (tpp: number) => Math.min(MAX_TPP, Math.max(MIN_TPP, tpp));

/**
 * Handles at the start and the end of a text selection made by touch. Dragging the end handle
 * extends the selection from its start (a shift click where the finger is); dragging the start
 * handle first puts the anchor at the end, then extends from there.
 */
function installSelectionHandles(): void {
  const handles = (["start", "end"] as const).map((which) => {
    const h = document.createElement("div");
    h.className = `selhandle selhandle-${which}`;
    h.setAttribute("aria-hidden", "true");
    h.hidden = true;
    sizer.appendChild(h);
    let queued: Touch | null = null;
    h.addEventListener("touchstart", (e) => {
      e.preventDefault();
      e.stopPropagation();
      if (which === "start") {
        // The anchor goes to the selection's other end: the finger then moves the start.
        const end = handleAt("end");
        if (end) { pointerAt("buttondown", end.x, end.y); pointerAt("buttonup", end.x, end.y); }
      }
    }, { passive: false });
    h.addEventListener("touchmove", (e) => {
      e.preventDefault();
      e.stopPropagation();
      if (!queued) requestAnimationFrame(() => {
        const t = queued; queued = null;
        if (!t) return;
        // Just above the finger's point: the finger itself covers the handle.
        pointerAt("buttondown", t.clientX, t.clientY - 12, { modifier: SHIFT });
        pointerAt("buttonup", t.clientX, t.clientY - 12, { modifier: SHIFT });
      });
      queued = e.touches[0] ?? null;
    }, { passive: false });
    return h;
  });
  /**
   * The rectangles the handles mark: the selection's; in a sheet with one cell chosen, the cell
   * cursor's (its end handle drags out a range of cells, as on any phone's spreadsheet).
   */
  const marked = () => (S.selection.length ? S.selection : S.status?.type === "spreadsheet" && S.cellCursor ? [S.cellCursor] : []);
  /** Where a handle points, in window coordinates (the first rectangle's start, the last one's end). */
  const handleAt = (which: "start" | "end") => {
    const rects = marked();
    if (!rects.length) return null;
    const r = sizer.getBoundingClientRect(), tpp = S.twipsPerPx;
    const first = rects[0]!, last = rects[rects.length - 1]!;
    return which === "start"
      ? { x: r.left + first.x / tpp + 1, y: r.top + (first.y + first.h / 2) / tpp }
      : { x: r.left + (last.x + last.w) / tpp - 1, y: r.top + (last.y + last.h / 2) / tpp };
  };
  // The selection or the cell cursor moved, or the zoom changed: the handles follow.
  const update = () => {
    const rects = marked(), tpp = S.twipsPerPx;
    const show = touchSelecting && rects.length > 0 && !S.readOnly;
    // One cell: only its end handle (its start is the cell itself).
    const single = !S.selection.length;
    handles.forEach((h, i) => {
      h.hidden = !show || (single && i === 0);
      if (h.hidden) return;
      const r = i === 0 ? rects[0]! : rects[rects.length - 1]!;
      h.style.left = `${(i === 0 ? r.x : r.x + r.w) / tpp}px`;
      h.style.top = `${(r.y + r.h) / tpp}px`;
    });
  };
  watch(["selection", "cellCursor", "twipsPerPx", "readOnly"], update);
  // A tap on the cell already chosen moves nothing: the handle shows for the touch itself.
  sizer.addEventListener("touchend", () => { requestAnimationFrame(update); });
  sizer.addEventListener("mousedown", (e) => {
    // A mouse (not a tap's compatibility event) selects without handles.
    if (!(e as MouseEvent & { sourceCapabilities?: { firesTouchEvents?: boolean } }).sourceCapabilities?.firesTouchEvents) touchSelecting = false;
  });
}
