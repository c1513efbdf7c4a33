// Where things are: the document's size in pixels, the part of it the viewport shows, the tile
// grid over it, and rectangles of the engine (twips) placed on the page.

import { sizer, viewport } from "./page";
import { edState as S, TILE_PX, type Rect } from "./state";

/** The document's size in CSS pixels at the current zoom (the sizer's size). */
let docPx = { w: 1, h: 1 };
export function setDocPx(w: number, h: number): void {
  docPx = { w, h };
}

/** Places an overlay element over a rectangle of the document (twips). */
export function place(el: HTMLElement, r: Rect): void {
  const tpp = S.twipsPerPx;
  el.style.left = r.x / tpp + "px"; el.style.top = r.y / tpp + "px";
  el.style.width = Math.max(r.w / tpp, 1) + "px"; el.style.height = Math.max(r.h / tpp, 1) + "px";
}

interface Geometry {
  /** The sizer's offset in the viewport. */
  ox: number;
  oy: number;
  /** The viewport's inner size. */
  cw: number;
  ch: number;
}
/**
 * The sizer's offset in the viewport and the viewport's inner size, read once and kept until
 * either is resized: read after a change to the page (a caret moved, a toolbar state), each read
 * made the browser lay the page out again at once, several times for every keystroke.
 */
let geom: Geometry | null = null;
export function geometry(): Geometry {
  if (!geom) geom = { ox: sizer.offsetLeft, oy: sizer.offsetTop, cw: viewport.clientWidth, ch: viewport.clientHeight };
  return geom;
}
/** Forgets the geometry read (the interface was built around the viewport, or the page resized); answers what it was. */
export function forgetGeometry(): Geometry | null {
  const before = geom;
  geom = null;
  return before;
}

/** A rectangle in CSS pixels, document coordinates. */
export type Area = Rect;

/** The visible document rectangle in px (document coordinates). */
export function visible(): Area {
  const g = geometry(), sl = viewport.scrollLeft, st = viewport.scrollTop;
  const x0 = Math.max(0, sl - g.ox), y0 = Math.max(0, st - g.oy);
  const x1 = Math.min(docPx.w, sl + g.cw - g.ox), y1 = Math.min(docPx.h, st + g.ch - g.oy);
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** An area of the document's pixels in twips, at the current zoom (what the engine is told of). */
export function inTwips(a: Area): Area {
  const k = S.twipsPerPx;
  return { x: a.x * k, y: a.y * k, w: a.w * k, h: a.h * k };
}

/** Calls `fn` with the grid position of every tile over an area (px). */
export function eachTile(v: Area, fn: (tx: number, ty: number) => void): void {
  const x0 = Math.floor(v.x / TILE_PX), y0 = Math.floor(v.y / TILE_PX);
  const x1 = Math.ceil((v.x + v.w) / TILE_PX), y1 = Math.ceil((v.y + v.h) / TILE_PX);
  for (let ty = y0; ty < y1; ty++) for (let tx = x0; tx < x1; tx++) fn(tx, ty);
}

/**
 * A rectangle the view could not reach: it lies past the end of the document as the page knows
 * it (the caret moved onto a new page before the `status` that grows the document arrived). The
 * view stopped short of the caret, and the page number took that for the user's own scrolling.
 */
let pendingReveal: Rect | null = null;

/** Scrolls the viewport so that a rectangle (twips) is visible. */
export function scrollIntoView(r: Rect): void {
  const tpp = S.twipsPerPx;
  const v = visible(), x = r.x / tpp, y = r.y / tpp, h = r.h / tpp;
  pendingReveal = null;
  if (y < v.y) viewport.scrollTop += y - v.y - 20;
  else if (y + h > v.y + v.h) {
    const want = viewport.scrollTop + y + h - (v.y + v.h) + 20;
    if (want > viewport.scrollHeight - viewport.clientHeight) pendingReveal = r;
    viewport.scrollTop = want;
  }
  if (x < v.x) viewport.scrollLeft += x - v.x - 20;
  else if (x > v.x + v.w) viewport.scrollLeft += x - (v.x + v.w) + 20;
}

/** The document grew (a `status`): a reveal that stopped at its former end goes on. */
export function revealPending(): void {
  if (pendingReveal) scrollIntoView(pendingReveal);
}
