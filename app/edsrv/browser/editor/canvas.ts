// The canvas: the size of the viewport, moved over the visible part of the document and painted
// from the tile cache; the server is told that area (it pushes the tiles an edit invalidates there).

import { clientVisibleAreaCommand } from "../../protocol/frames";
import { eachTile, inTwips, visible, type Area } from "./geometry";
import { canvas, canvasContext as ctx } from "./page";
import { send } from "./outbox";
import { currentPart, TILE_PX } from "./state";
import { cache, type TilePixels } from "./tile-cache";

let sentArea = "";

/** The area the canvas shows, as last laid out (document px). */
export function drawnArea(): Area | undefined {
  return canvas._v;
}

/** A new view (a reconnection) has not been told its area yet. */
export function forgetSentArea(): void {
  sentArea = "";
}

/** Moves the canvas over the visible rectangle and paints it from the cache. */
export function layout(): void {
  const v = visible();
  canvas.style.left = v.x + "px"; canvas.style.top = v.y + "px";
  if (canvas.width !== v.w || canvas.height !== v.h) { canvas.width = Math.max(v.w, 1); canvas.height = Math.max(v.h, 1); }
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  const p = currentPart();
  eachTile(v, (tx, ty) => {
    const e = cache[p + ":" + tx + ":" + ty];
    if (e) ctx.drawImage(e.bmp, tx * TILE_PX - v.x, ty * TILE_PX - v.y);
  });
  canvas._v = v;
  // The server pushes the tiles of this area that an edit invalidates (twips, Collabora's frame).
  const t = inTwips(v);
  const area = clientVisibleAreaCommand(Math.round(t.x), Math.round(t.y), Math.round(t.w), Math.round(t.h));
  if (area !== sentArea && v.w > 0 && v.h > 0) { sentArea = area; send(area); }
}

/** Draws one tile (grid position from its key) where it belongs on the canvas as last laid out. */
export function drawTile(key: string, bmp: TilePixels): void {
  const v = canvas._v, parts = key.split(":");
  if (v) ctx.drawImage(bmp, Number(parts[1]) * TILE_PX - v.x, Number(parts[2]) * TILE_PX - v.y);
}
