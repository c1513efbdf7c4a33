// Zoom: the scale the document is drawn at, in twips per CSS pixel (15 = 100 %). What is drawn at
// a scale follows the state's twipsPerPx (the document's size, the marks); the tiles held do not fit
// the new grid and go.

import { emit } from "./events";
import { edState as S, TILE_PX, update } from "./state";
import { dropAll } from "./tile-cache";

/** Drops the cache and asks again at the new scale. */
export function setZoom(tpp: number): void {
  dropAll();
  // A tile's side in twips must be whole: the server takes tile positions as integers.
  update({ twipsPerPx: Math.max(1, Math.round(TILE_PX * tpp)) / TILE_PX });
  // The interface's zoom label and a sheet's headers follow whatever zoomed (a pinch included).
  emit("zoom", S.twipsPerPx);
}
