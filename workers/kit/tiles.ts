// Tile painting: the tiles a view's page asks for, painted as few times as the engine allows
// (combined paints, tiles shared by views of one look, only the rows that changed) and sent as
// little as the page needs (nothing for a tile it holds, a band of rows for one that changed).

import { LOK_DOCTYPE, type LokDocument } from "../lok";
import type { KitRequestOf, KitResult, PaintedTile } from "../kit-protocol";
import { encodeTilePng } from "../png";
import { repaintStaleRows, type SharedTile } from "../shared-tiles";
import { Scratch } from "../scratch";
import { pump } from "./callbacks";
import { kit, knownView, lookKey, num, requireDoc, useView, views, type KitView } from "./state";

/**
 * The document, ready to paint tiles for `viewId` (a known view). A text document's tiles are the
 * same through any view of the same look (a page has no per-view part), so the current view paints them: a
 * view switch (LibreOffice re-activates the view's frame, its bindings and Basic's ThisComponent)
 * cost 0.5 ms of CPU, as much as painting a tile, and with five people in a document nearly every
 * tile request switched. Sheets and slides switch: each view shows its own part.
 */
function viewForTiles(viewId: number): LokDocument {
  const d = requireDoc();
  const current = d.getView();
  if (current === viewId) return d;
  if (kit.docType === LOK_DOCTYPE.TEXT && views.has(current) && lookKey(current) === lookKey(viewId)) return d;
  d.setView(viewId);
  return d;
}

/** The most tiles one request paints (a 1920×1200 screen is 40). */
const MAX_TILES_PER_PAINT = 64;

/**
 * What each view's client was last sent at each tile (KitView.sentTiles): its wire id and a digest of each pixel row.
 * A tile painted again for a client that says it holds that wire id is answered without a picture
 * when no row changed (typing invalidates from the caret to the end of the line, and most of those
 * tiles do not change, nor do most tiles of a sheet repainted after a cell change), or, for a
 * client that applies deltas, with only the band of rows that changed: a typed character changes
 * one line, 15-20 of a tile's 256 rows, and the whole tile was encoded, sent and decoded by the
 * page for it (8-12 ms of a keystroke's way to the screen on 2 cores, most of it in the page).
 */
let lastWid = 0;
/** Tiles remembered per view before forgetting (several screens; 2 KB each). */
const MAX_SENT_TILES = 2048;
/** A band of changed rows taller than this part of the tile is sent as the whole tile. */
const MAX_DELTA_PART = 0.75;

/** Where tiles are painted before SharedTiles keeps its own copy of each. */
const paintScratch = new Scratch();

/**
 * Paints tiles of one size and answers, in order, each one's wire id and PNG (see PaintedTile).
 * Tiles on one grid are painted as one rectangle and cut (Collabora's combined tiles): the
 * engine's set-up per paint cost more than the painting, measured at 0.5-0.9 ms for three tiles
 * apart against 0.2-0.3 ms as one. One pixel more each way is painted and cropped: the engine draws
 * a paint's last pixel column and row without the grid lines and borders that go on past it, a
 * white seam every tile in sheets. Tiles another view of the same look painted since the engine
 * last changed them are not painted again, and in a text document only the rows the engine changed
 * are painted again (shared-tiles.ts).
 */
function paintTiles(d: LokDocument, view: KitView, part: number, size: { width: number; height: number; w: number; h: number }, at: [number, number, number][], deltas: boolean): { tiles: PaintedTile[]; painted: { tiles: number; rows: number } } {
  const { width, height, w, h } = size;
  const sent = view.sentTiles;
  if (sent.size > MAX_SENT_TILES) sent.clear();
  const mode = d.getTileMode();
  const look = lookKey(view.id);
  const sharedKey = (x: number, y: number) => `${look}|${part}:${x}:${y}:${w}:${h}:${width}:${height}`;

  const shared = new Map<string, SharedTile>();
  const missing: [number, number][] = [];
  const missingKeys = new Set<string>();
  const stale = new Set<SharedTile>();
  for (const [x, y] of at) {
    const key = sharedKey(x, y);
    const hit = kit.sharedTiles.get(key);
    if (hit) {
      shared.set(key, hit);
      if (hit.stale) stale.add(hit);
    } else if (!missingKeys.has(key)) {
      missingKeys.add(key);
      missing.push([x, y]);
    }
  }
  const keep = (x: number, y: number, pixels: Uint8Array, stride: number) => {
    const key = sharedKey(x, y);
    shared.set(key, kit.sharedTiles.put(key, { part, x, y, w, h, width, height }, pixels, stride));
  };
  if (missing.length) {
    const x0 = Math.min(...missing.map((t) => t[0])), y0 = Math.min(...missing.map((t) => t[1]));
    const cols = Math.round((Math.max(...missing.map((t) => t[0])) - x0) / w) + 1, rows = Math.round((Math.max(...missing.map((t) => t[1])) - y0) / h) + 1;
    const onGrid = missing.every(([x, y]) => (x - x0) % w === 0 && (y - y0) % h === 0);
    // As one rectangle when it is mostly tiles asked for and not huge; else tile by tile.
    if (onGrid && cols * rows <= 2 * missing.length && cols * width <= 4096 && rows * height <= 4096) {
      const bw = cols * width + 1, bh = rows * height + 1;
      const buf = paintScratch.zeroed(bw * bh * 4);
      d.paintTile(buf, bw, bh, x0, y0, Math.round((w * bw) / width), Math.round((h * bh) / height));
      for (const [x, y] of missing) keep(x, y, buf.subarray((((y - y0) / h) * height * bw + ((x - x0) / w) * width) * 4), bw);
    } else {
      const buf = paintScratch.zeroed((width + 1) * (height + 1) * 4);
      for (const [x, y] of missing) {
        d.paintTile(buf, width + 1, height + 1, x, y, Math.round((w * (width + 1)) / width), Math.round((h * (height + 1)) / height));
        keep(x, y, buf, width + 1);
      }
    }
  }
  const rowsPainted = repaintStaleRows((buf, bw, bh, x, y, tw, th) => d.paintTile(buf, bw, bh, x, y, tw, th), [...stale]);

  const tiles = at.map(([x, y, have]): PaintedTile => {
    const tile = shared.get(sharedKey(x, y))!;
    const key = `${part}:${x}:${y}:${w}:${width}`;
    const before = sent.get(key);
    // The rows top..bottom changed in the copy the client holds (the whole tile when it holds none).
    let top = 0, bottom = height - 1;
    const held = have !== 0 && before?.wid === have;
    if (held) {
      while (top < height && tile.rows[top] === before.rows[top]) top++;
      if (top === height) return { wid: have };
      while (tile.rows[bottom] === before.rows[bottom]) bottom--;
    }
    const wid = ++lastWid;
    sent.set(key, { wid, rows: tile.rows });
    const band = bottom - top + 1;
    const asDelta = held && deltas && band <= height * MAX_DELTA_PART;
    const bandKey = asDelta ? `${top}:${band}` : `0:${height}`;
    let png = tile.encoded.get(bandKey);
    if (png === undefined) {
      png = (asDelta ? encodeTilePng(tile.pixels.subarray(top * width * 4), width, band, mode, width) : encodeTilePng(tile.pixels, width, height, mode, width)).toString("base64");
      tile.encoded.set(bandKey, png);
    }
    return asDelta ? { wid, png, delta: have, dy: top } : { wid, png };
  });
  // What the engine painted for this request: whole tiles, and rows of tiles painted again in part.
  return { tiles, painted: { tiles: missing.length, rows: rowsPainted } };
}

/** `tiles`: tiles of the part the view shows, or `stale` when the view shows another part now. */
export function tiles(req: KitRequestOf<"tiles">): KitResult<"tiles"> {
  const view = knownView(req.viewId);
  const d = viewForTiles(view.id);
  const width = num(req.width, "width"), height = num(req.height, "height");
  if (width < 1 || height < 1 || width > 2048 || height > 2048) throw new Error("tile size out of range");
  const w = Math.max(1, num(req.w, "w")), h = Math.max(1, num(req.h, "h"));
  // [x, y, wid]: the position in twips and the wire id of the copy the client holds (0: none).
  const at = Array.isArray(req.tiles) ? (req.tiles as unknown[]).map((t: unknown) => (Array.isArray(t) ? [num(t[0], "x"), num(t[1], "y"), num(t[2] ?? 0, "wid")] : [NaN, NaN, 0])) : [];
  if (at.length < 1 || at.length > MAX_TILES_PER_PAINT) throw new Error(`tiles must list 1 to ${MAX_TILES_PER_PAINT} positions`);
  const part = req.part === undefined ? undefined : num(req.part, "part");
  // Tiles are painted for the part this view shows. A request for another part was sent
  // before the client's part switch reached the engine: switching the view back to paint it
  // would end what the user is doing there (a cell being typed into loses its text).
  if (part !== undefined && kit.docType !== LOK_DOCTYPE.TEXT && d.getPart() !== part) return { stale: true, shown: d.getPart() };
  // Every invalidation the engine made before this paint goes out first, numbered at most the
  // version the tiles carry: the client then knows the tiles hold those changes.
  pump();
  view.painted = true;
  return { ...paintTiles(d, view, part ?? 0, { width, height, w, h }, at as [number, number, number][], req.deltas === true), version: kit.pixelVersion };
}

/** `thumbnail`: a small picture of a whole slide or page for the part panel, painted without switching the view. */
export function thumbnail(req: KitRequestOf<"thumbnail">): KitResult<"thumbnail"> {
  const d = useView(req.viewId);
  const part = num(req.part, "part"), width = num(req.width, "width");
  if (part < 0 || part >= d.getParts() || width < 16 || width > 512) throw new Error("thumbnail out of range");
  if (kit.docType === LOK_DOCTYPE.TEXT) throw new Error("thumbnails are for slides and drawings");
  // The slides of a deck share one size: the shown slide's is every slide's.
  const size = d.getDocumentSize();
  const height = Math.max(1, Math.round((width * size.height) / Math.max(1, size.width)));
  const buf = new Uint8Array(width * height * 4);
  d.paintPartTile(buf, part, width, height, 0, 0, size.width, size.height);
  return { width, height, png: encodeTilePng(buf, width, height, d.getTileMode()).toString("base64") };
}
