// Zoom: the scale the document is drawn at, in twips per CSS pixel (15 = 100 %). What is drawn at
// a scale follows the state's twipsPerPx (the document's size, the marks); the tiles held do not fit
// the new grid and go.

import { clientZoomCommand } from "../../protocol/frames";
import { emit, on } from "./events";
import { send } from "./outbox";
import { edState as S, TILE_PX, update } from "./state";
import { dropAll } from "./tile-cache";

/**
 * A sheet's view is told the scale: the engine places its cell cursor and selection on the grid of
 * its view's zoom, and each row painted is a whole number of pixels at the tiles' scale (at 75 %
 * a selection of two rows ran 2.5 px into the third, at 100 % scale).
 */
function tellZoom(): void {
  if (S.status?.type === "spreadsheet") send(clientZoomCommand(TILE_PX, TILE_PX * S.twipsPerPx));
}

/** Drops the cache and asks again at the new scale. */
export function setZoom(tpp: number): void {
  dropAll();
  // A tile's side in twips must be whole: the server takes tile positions as integers.
  update({ twipsPerPx: Math.max(1, Math.round(TILE_PX * tpp)) / TILE_PX });
  tellZoom();
  // The interface's zoom label and a sheet's headers follow whatever zoomed (a pinch included).
  emit("zoom", S.twipsPerPx);
}

/** A new view after a reconnection is at 100 % until told. */
export function installZoom(): void {
  on("reconnected", () => { if (S.twipsPerPx !== 15) tellZoom(); });
}
