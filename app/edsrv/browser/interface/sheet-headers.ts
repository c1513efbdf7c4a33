// A sheet's column letters and row numbers: the engine's own sizes and labels for what is visible.

import { div, el } from "./controls";
import { api, UI, type SheetHeaders } from "./state";
import { byId, listen } from "./dom";

interface Headers {
  cols: HTMLCanvasElement;
  rows: HTMLCanvasElement;
  viewport: HTMLElement;
  data: SheetHeaders | null;
  /** The zoom (twips a pixel) the engine measured `data` at, and the one the last request was made at. */
  dataTpp: number;
  askedTpp: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}
let headers: Headers | null = null;

export function buildHeaders(): void {
  const viewport = byId("viewport")!;
  const grid = el("div", { id: "sheetgrid" });
  viewport.parentNode!.insertBefore(grid, viewport);
  const corner = div("hdr-corner");
  const cols = el("canvas", { id: "colheaders", "aria-hidden": "true" }), rows = el("canvas", { id: "rowheaders", "aria-hidden": "true" });
  grid.append(corner, cols, rows, viewport);
  const h: Headers = (headers = { cols, rows, viewport, data: null, dataTpp: 15, askedTpp: 15, timer: undefined });
  listen(viewport, "scroll", () => { drawHeaders(); askHeaders(120); });
  listen(window, "resize", () => { askHeaders(50); });
  api.on("invalidatetiles", () => { askHeaders(300); });
  api.on("commandvalues", (f) => {
    if (f.command !== ".uno:ViewRowColumnHeaders") return;
    h.data = UI.headers = f.json as SheetHeaders;
    h.dataTpp = h.askedTpp;
    drawHeaders();
  });
}

/** Asks the engine for the headers of what is visible, `ms` from now (once for a burst of changes); nothing without a sheet. */
export function askHeaders(ms: number): void {
  if (!headers) return;
  const h = headers;
  clearTimeout(h.timer);
  h.timer = setTimeout(() => {
    const v = h.viewport, tpp = (h.askedTpp = api.zoom());
    const x = Math.floor(v.scrollLeft * tpp), y = Math.floor(v.scrollTop * tpp), w = Math.ceil(v.clientWidth * tpp), hh = Math.ceil(v.clientHeight * tpp);
    api.send(api.frames.commandValues(encodeURIComponent(".uno:ViewRowColumnHeaders?x=" + x + "&y=" + y + "&width=" + w + "&height=" + hh)));
  }, ms);
}

/**
 * The engine gives each row's and column's end in pixels at the zoom the page told it (clientzoom,
 * editor/zoom.ts: 100 % until told); headers asked before a zoom change are drawn scaled to it
 * until the new ones come.
 */
function drawHeaders(): void {
  if (!headers || !headers.data) return;
  const v = headers.viewport, k = headers.dataTpp / api.zoom(), dpr = window.devicePixelRatio || 1;
  const draw = (canvas: HTMLCanvasElement, list: SheetHeaders["rows"], across: boolean, scroll: number, length: number) => {
    const thick = across ? 20 : 40;
    // A point along the header and across it, as the canvas's x and y.
    const xy = (along: number, over: number): [number, number] => (across ? [along, over] : [over, along]);
    const [w, h] = xy(length, thick);
    canvas.width = w * dpr; canvas.height = h * dpr;
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    const c = canvas.getContext("2d")!;
    c.scale(dpr, dpr);
    c.fillStyle = "#f0f0f0"; c.fillRect(0, 0, w, h);
    c.strokeStyle = "#c0c0c0"; c.fillStyle = "#333"; c.font = "11px system-ui, sans-serif"; c.textAlign = "center"; c.textBaseline = "middle";
    let prev: number | null = null;
    (list || []).forEach((e) => {
      const end = Number(e.size) * k - scroll;
      if (prev !== null && e.text !== 0 && e.text !== "0") {
        c.beginPath();
        c.moveTo(...xy(end + 0.5, 0));
        c.lineTo(...xy(end + 0.5, thick));
        c.stroke();
        if (end - prev > 8) c.fillText(String(e.text), ...xy((prev + end) / 2, thick / 2));
      }
      prev = end;
    });
  };
  draw(headers.cols, headers.data.columns, true, v.scrollLeft, v.clientWidth);
  draw(headers.rows, headers.data.rows, false, v.scrollTop, v.clientHeight);
}
