// Tiles of one view sent to its page: asked for (`tile`, `tilecombine`: app/edsrv/door.ts) or
// pushed after an invalidation (document-views.ts, tile-push.ts).

import type { ClientSession } from "./session";
import type { Kit } from "./kits";
import type { SentTile, TileRequest } from "./tile-push";
import { tileHeader, tileStaleFrame } from "./protocol/frames";

/**
 * Paints tiles of the session's view (one part and size) and sends each: a binary frame, the header
 * line `tile: id= part= x= y= w= h= width= height= ver= wid=` and the PNG, or no PNG when the page
 * holds that wire id's pixels unchanged (`have=`), or, to a page that applies deltas, `delta=<the
 * wire id held> dy=<first row>` and a PNG of the rows that changed, `width` wide. Answers the pixel version and what each frame
 * carried, or null when the view no longer shows the tiles' part (a request then gets `tilestale:`
 * for each, a push nothing).
 */
export async function sendTiles(kit: Kit, s: ClientSession, tiles: TileRequest[], id: string): Promise<{ version: number; sent: SentTile[] } | null> {
  const { part, width, height, w, h } = tiles[0]!;
  const r = await kit.request("tiles", {
    viewId: s.viewId!,
    part,
    width,
    height,
    w,
    h,
    tiles: tiles.map((t) => [t.x, t.y, t.have]),
    deltas: s.tileDeltas === true,
  });
  if (r.stale || !r.tiles || r.tiles.length !== tiles.length) {
    // Asked for a part the view no longer shows: the client forgets the request.
    if (id !== "push") sendTilesStale(s, tiles, id);
    return null;
  }
  const version = r.version ?? 0;
  const sent = tiles.map((t, i) => {
    const { wid, png, delta, dy } = r.tiles![i]!;
    const head = Buffer.from(tileHeader(t, id, width, height, version, wid, delta !== undefined ? { delta, dy: dy ?? 0 } : undefined));
    s.send(new Uint8Array(png ? Buffer.concat([head, Buffer.from(png, "base64")]) : head));
    s.tiles?.noteSent(t, wid);
    return delta !== undefined ? { wid, picture: true, base: delta } : { wid, picture: png !== undefined };
  });
  return { version, sent };
}

/** Tells the page that tiles it asked for (or was told were coming) will not come: it asks again if it needs them. */
export function sendTilesStale(s: ClientSession, tiles: TileRequest[], id: string): void {
  for (const t of tiles) s.send(tileStaleFrame(t, id));
}
