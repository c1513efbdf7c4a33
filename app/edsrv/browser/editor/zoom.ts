// Zoom: the scale the document is drawn at, in twips per CSS pixel (15 = 100 %).

import { placeOwnMarksAgain } from "./cursors";
import { onStatus } from "./document-status";
import { placeMarksAgain } from "./marks";
import { placeOtherViewsAgain } from "./other-views";
import { editor, TILE_PX } from "./state";
import { emit } from "./events";
import { dropAll } from "./tile-cache";

/** Drops the cache and asks again at the new scale. */
export function setZoom(tpp: number): void {
  // A tile's side in twips must be whole: the server takes tile positions as integers.
  editor.twipsPerPx = Math.max(1, Math.round(TILE_PX * tpp)) / TILE_PX;
  dropAll();
  if (editor.status) onStatus(editor.status);
  placeOwnMarksAgain();
  placeOtherViewsAgain();
  placeMarksAgain();
  // The interface's zoom label and a sheet's headers follow whatever zoomed (a pinch included).
  emit("zoom", String(editor.twipsPerPx));
}
