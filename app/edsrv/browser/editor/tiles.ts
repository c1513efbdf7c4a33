// Tiles: asking for the visible ones that are missing or stale, receiving them (whole, "same", or
// the band of rows that changed), and the invalidations that make them stale.

import { tileCombineCommand } from "../../protocol/frames";
import { decodeTileFrame, type ServerFrameOf } from "../../protocol/server-frames";
import { drawnArea, drawTile } from "./canvas";
import { cursorWaiting, showCursor, tilesAwaited } from "./cursors";
import { handle, handleTiles } from "./frames-in";
import { eachTile, visible } from "./geometry";
import { loaded } from "./notices";
import { decodeNow } from "./png-decode";
import { lastInputAt, send } from "./outbox";
import { currentPart, edState as S, mark, TILE_PX } from "./state";
import { answerAsked, arriving, cache, closePixels, dirty, evict, giveUpAsked, markAsked, pending, staleFor, storeTile, tileKeyAt, type CachedTile, type TilePixels } from "./tile-cache";

let tileSeq = 0;
/** The tiles the first screen waits for, until each is drawn (then the indicator goes). */
let firstPaintKeys: string[] | null = null;

/** The screen is painted when every visible tile is: those just asked and those the server paints ahead (firstscreen). */
export function awaitFirstPaint(): void {
  firstPaintKeys = [];
  const fp = currentPart();
  eachTile(visible(), (tx, ty) => { const k = fp + ":" + tx + ":" + ty; if (pending[k]) firstPaintKeys!.push(k); });
  if (!firstPaintKeys.length) loaded();
}

/** Asks for every visible tile that is missing or stale, in one request. */
export function requestVisible(): void {
  if (!S.status) return;
  const p = currentPart(), tw = TILE_PX * S.twipsPerPx, now = performance.now();
  const keys: string[] = [], xs: number[] = [], ys: number[] = [], needs: number[] = [], haves: number[] = [];
  eachTile(visible(), (tx, ty) => {
    const key = p + ":" + tx + ":" + ty, e = cache[key];
    if (e && !e.stale) return;
    if (pending[key]) return;
    keys.push(key); xs.push(tx * tw); ys.push(ty * tw);
    // The version an invalidation asks for (-1: any): a tile the server pushed for it answers.
    needs.push(e && e.need !== undefined && e.need >= 0 ? e.need : -1);
    // The copy held: if its pixels did not change, the server says so instead of sending them.
    haves.push(e && e.wid ? e.wid : 0);
  });
  // The server paints the tiles of one request as one rectangle (Collabora's tilecombine).
  for (let i = 0; i < xs.length; i += 64) {
    const id = ++tileSeq;
    for (let k = i; k < Math.min(i + 64, xs.length); k++) markAsked(keys[k]!, now, needs[k]!, String(id));
    send(tileCombineCommand({
      part: p, size: TILE_PX, twips: tw,
      xs: xs.slice(i, i + 64), ys: ys.slice(i, i + 64), needs: needs.slice(i, i + 64), haves: haves.slice(i, i + 64),
      id,
    }));
  }
}

/** `firstscreen:` tiles the server paints ahead for the first screen (our server only): counted as asked. */
function onFirstScreen(f: ServerFrameOf<"firstscreen">): void {
  if (f.tileWidth !== TILE_PX * S.twipsPerPx || f.width !== TILE_PX) return;
  const at = performance.now();
  for (let fi = 0; fi < f.xs.length; fi++) {
    const fk = tileKeyAt(f.part, f.xs[fi], f.ys[fi], f.tileWidth);
    if (!cache[fk]) markAsked(fk, at, -1, FIRST_SCREEN_ID);
  }
}

/** The request id of the tiles the server paints ahead (document-views.ts). */
const FIRST_SCREEN_ID = "first";

/**
 * `tilestale:` a tile asked for will not come: of a part the view had left when the request
 * arrived (asked again if that part comes back), or one the server failed to paint (asked again
 * shortly, if it is still wanted).
 */
function onTileStale(t: ServerFrameOf<"tilestale">): void {
  giveUpAsked(tileKeyAt(t.part, t.x, t.y, t.tileWidth));
  if ((Number(t.part) || 0) === currentPart() && !retryTimer) retryTimer = setTimeout(() => { retryTimer = 0; requestVisible(); }, RETRY_MS);
}
let retryTimer: ReturnType<typeof setTimeout> | 0 = 0;
/** Not at once: a tile the server could not paint now is not asked for in a tight loop. */
const RETRY_MS = 1000;

/** A binary `tile:` frame: its header line, then the PNG (none: the pixels held are still current). */
function onTile(bytes: Uint8Array<ArrayBuffer>): void {
  mark("tile");
  const { id, part: p, x, y, tileWidth: tw, ver, wid, delta: base, dy, png } = decodeTileFrame(bytes);
  const key = tileKeyAt(p, x, y, tw);
  // Asked (or painted ahead) before a zoom change, which forgot every request: a request at this
  // zoom for the same place may be pending, and stays.
  if (tw !== TILE_PX * S.twipsPerPx) return;
  // Decoded in parallel, applied in the order the frames came: a newer tile decoded sooner than
  // an older one of the same place must not be covered by it afterwards.
  const now = png && png.length && (base || performance.now() - lastInputAt() < 1000) ? decodeNow(png) : null;
  const decoded: Promise<TilePixels> | null = now ? Promise.resolve(now) : png && png.length ? createImageBitmap(new Blob([png], { type: "image/png" })) : null;
  // The request is answered once the tile is in the cache (tileReady): answered while it decoded,
  // the tile was neither pending nor held, and a screen update meanwhile asked for it again.
  const apply = (): void | Promise<void> => {
    let held = cache[key];
    if (!decoded) {
      // "Same": the pixels of the copy held, at a newer version. Without that copy (dropped from
      // the cache meanwhile) the tile is asked for again, whole.
      if (!held || held.wid !== wid) return unusable(key, held, true);
      held.stale = false; held.ver = ver; held.need = undefined;
      tileReady(key, p, held, id, false);
      return;
    }
    return decoded.then((bmp) => {
      // The zoom changed meanwhile, or a newer copy is already here.
      if (tw !== TILE_PX * S.twipsPerPx || (cache[key] && cache[key]!.ver > ver)) return closePixels(bmp);
      if (base) {
        // The rows from `dy` that changed in the copy `base`: without that copy (dropped, or
        // replaced meanwhile) the tile is asked for again, whole.
        held = cache[key];
        if (!held || held.wid !== base) { closePixels(bmp); return unusable(key, held, true); }
        let c = held.bmp;
        if (!(c instanceof HTMLCanvasElement)) {
          const copy = document.createElement("canvas"); copy.width = TILE_PX; copy.height = TILE_PX;
          copy.getContext("2d")!.drawImage(c, 0, 0);
          c.close();
          c = copy;
        }
        c.getContext("2d")!.drawImage(bmp, 0, dy);
        closePixels(bmp);
        S.tileDeltas++;
        held.bmp = c; held.stale = false; held.ver = ver; held.wid = wid; held.need = undefined;
        tileReady(key, p, held, id, true);
        return;
      }
      tileReady(key, p, storeTile(key, { bmp, stale: false, ver, wid }), id, true);
      evict();
    }, () => unusable(key, cache[key], false)); // not decoded: asked again at the next invalidation or scroll
  };
  // A frame that fails to apply must not hold up the frames after it at this place (they wait on
  // this promise), nor leave its request awaited.
  const done: Promise<void> = (arriving[key] || Promise.resolve()).then(apply).catch((err: unknown) => {
    S.errors.push("tile " + key + ": " + String(err));
    unusable(key, cache[key], false);
  });
  arriving[key] = done;
  done.then(() => { if (arriving[key] === done) delete arriving[key]; });
}

/**
 * A tile frame the page cannot use: the request it may answer is given up (the server counts the
 * frame as its answer) and the copy held is stale; asked for again, whole, at once or at the next
 * invalidation or scroll.
 */
function unusable(key: string, held: CachedTile | undefined, askAgain: boolean): void {
  giveUpAsked(key);
  if (held) staleFor(held, Infinity);
  if (askAgain) requestVisible();
}

/** A tile is current in the cache (new pixels, or the same ones confirmed): draw it and account for it. */
function tileReady(key: string, p: number, e: CachedTile, id: string, draw: boolean): void {
  const asked = answerAsked(key, e.ver, id);
  // Invalidated while it was on its way: painted before that change, it is asked for again, once
  // no request for it is awaited (the one awaited may be painted after the change).
  const invalidatedAt = dirty[key];
  if (invalidatedAt !== undefined) {
    if (invalidatedAt > e.ver) staleFor(e, invalidatedAt);
    if (invalidatedAt <= e.ver || !pending[key]) delete dirty[key];
  }
  if (p === currentPart()) {
    if (drawnArea() && draw) drawTile(key, e.bmp);
    if (asked) S.tilesDrawn++;
    else S.tilesPushed++; // sent by the server before the page asked
    // Input → the first new pixels after it: a tile pushed or asked for since.
    if (S.inputAt && draw && (!asked || asked.at >= S.inputAt)) {
      S.inputLatencies.push(performance.now() - S.inputAt);
      S.inputAt = 0;
    }
    if (firstPaintKeys) {
      const i = firstPaintKeys.indexOf(key);
      if (i >= 0) firstPaintKeys.splice(i, 1);
      if (!firstPaintKeys.length) {
        firstPaintKeys = null;
        loaded();
        S.firstPaintAt = performance.timeOrigin + performance.now();
        if (performance.mark) performance.mark("ed-first-paint");
      }
    }
  } else if (asked) S.tilesRequested--; // of a part no longer shown: no longer awaited
  if (e.stale) requestVisible();
  else if (cursorWaiting() && !tilesAwaited()) showCursor();
}

/** `invalidatetiles:` a rectangle of a part, or all of it: a tile painted at version `ver` or later already shows this change. */
function onInvalidate(f: ServerFrameOf<"invalidatetiles">): void {
  S.invalidations++;
  const p = f.part ?? currentPart(), r = f.rect, ver = f.ver;
  const tw = TILE_PX * S.twipsPerPx;
  Object.keys(cache).concat(Object.keys(pending)).forEach((key) => {
    const s = key.split(":");
    if (Number(s[0]) !== p) return;
    const tx = Number(s[1]) * tw, ty = Number(s[2]) * tw;
    if (r && (tx + tw <= r.x || tx > r.x + r.w || ty + tw <= r.y || ty > r.y + r.h)) return;
    if (cache[key] && !(cache[key]!.ver >= ver)) staleFor(cache[key]!, ver);
    if (pending[key]) dirty[key] = Math.max(dirty[key] === undefined ? -1 : dirty[key]!, ver);
  });
  requestVisible();
}

export function installTiles(): void {
  handleTiles(onTile);
  handle("invalidatetiles", onInvalidate);
  handle("firstscreen", onFirstScreen);
  handle("tilestale", onTileStale);
}
