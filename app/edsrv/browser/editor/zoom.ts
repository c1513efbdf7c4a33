// Zoom: the scale the document is drawn at, in twips per CSS pixel (15 = 100 %).

import { onCursor } from "./cursors";
import { onStatus } from "./document-status";
import { placeMarksAgain } from "./marks";
import { edState as S, editor, TILE_PX } from "./state";
import { dropAll } from "./tile-cache";

/** Drops the cache and asks again at the new scale. */
export function setZoom(tpp: number): void {
  // A tile's side in twips must be whole: the server takes tile positions as integers.
  editor.twipsPerPx = Math.max(1, Math.round(TILE_PX * tpp)) / TILE_PX;
  dropAll();
  if (editor.status) onStatus(editor.status);
  if (S.cursor) onCursor(S.cursor.x + ", " + S.cursor.y + ", " + S.cursor.w + ", " + S.cursor.h);
  placeMarksAgain();
}
