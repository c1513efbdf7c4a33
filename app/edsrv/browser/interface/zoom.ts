// Zoom: ed.js draws at `twips per CSS pixel` (15 = 100 %); steps, fit width, fit page, Ctrl+wheel.

import { el } from "./controls";
import { askHeaders } from "./sheet-headers";
import { api, S } from "./state";
import { byId, listen, perFrame } from "./dom";

const ZOOMS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 3, 4];

/** The zoom in the status bar. */
export const zoomLabel = el("span", { id: "zoomlevel", "aria-live": "polite" });
export function showZoom(): void {
  zoomLabel.textContent = zoomPercent() + " %";
}
function zoomPercent(): number {
  return Math.round((15 / api.zoom()) * 100);
}

/** The view is fitted to the page (fitPage): it stays fitted when the view's size changes, until the person zooms. */
let fitted = false;

export function setZoomFactor(z: number): void {
  fitted = false;
  api.setZoom(15 / Math.min(4, Math.max(0.25, z)));
}
export function zoomStep(d: number): void {
  const z = 15 / api.zoom(), next = d > 0 ? ZOOMS.filter((x) => x > z + 0.001)[0] : ZOOMS.filter((x) => x < z - 0.001).pop();
  if (next) setZoomFactor(next);
}
/**
 * The page's width is the view's; on a phone, never below a reading size (`least`): text fitted
 * to 390 px was 43 %, too small to read; the page then scrolls sideways.
 */
export function fitWidth(least = 0): void {
  const st = S.status;
  if (!st) return;
  const px = api.viewportPx().w - 24;
  setZoomFactor(Math.max(least, (px * 15) / st.width));
}
/** The least zoom a phone opens a text document at: its text readable, scrolled sideways. */
export const PHONE_READING_ZOOM = 0.7;
export function fitPage(): void {
  const st = S.status;
  if (!st) return;
  const box = api.viewportPx();
  // A text document's status is the whole document: a page is as tall as its width × √2 (A4)
  // unless the document is shorter.
  const h = st.type === "text" ? Math.min(st.height, st.width * 1.42) : st.height;
  setZoomFactor(Math.min(((box.w - 24) * 15) / st.width, ((box.h - 24) * 15) / h));
  fitted = true;
}

/**
 * A deck opens fitted (ui.ts) and stays fitted while the view's size settles: the toolbar, the slide
 * panel and the status bar are laid out after that first fit, and a view that became smaller showed
 * the slide wider than itself (its right edge cut).
 */
export function keepFitted(): void {
  const viewport = byId("viewport")!;
  let size = "";
  const fitAgain = perFrame(() => { if (fitted) fitPage(); });
  new ResizeObserver(() => {
    const now = viewport.clientWidth + "x" + viewport.clientHeight;
    if (now === size) return;
    size = now;
    if (fitted) fitAgain();
  }).observe(viewport);
}

/** The label and a sheet's headers follow every zoom, whatever made it (buttons, wheel, a pinch, the slideshow's end). */
export function installZoomFollowers(): void {
  api.on("zoom", () => {
    showZoom();
    askHeaders(0);
  });
}

export function installWheelZoom(): void {
  listen(byId("viewport")!, "wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoomStep(e.deltaY < 0 ? 1 : -1);
  }, { passive: false });
}
