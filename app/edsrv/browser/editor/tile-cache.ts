// The tiles the page holds and the ones on their way, by "part:tx:ty" (the 256 px grid at the
// current zoom).

import { visible } from "./geometry";
import { currentPart, edState as S, TILE_PX } from "./state";

export type TilePixels = ImageBitmap | HTMLCanvasElement;

export interface CachedTile {
  bmp: TilePixels;
  /** Invalidated: asked for again. */
  stale: boolean;
  /** The pixel version it shows. */
  ver: number;
  /** The server's wire id of these pixels (a request says it holds them: `have=`). */
  wid: number;
  /** The version an invalidation asks for (-1: any; undefined: none). */
  need?: number;
}

const CACHE_MAX = 400;

export const cache: Record<string, CachedTile> = {};
/** A tile asked for (or announced by the server as painted ahead) and not yet answered. */
export interface PendingTile {
  /** When it was asked (performance.now()). */
  at: number;
  /** The pixel version an answer must have (-1: any): a tile of it pushed meanwhile answers. */
  need: number;
  /** The request's id, which the server's answer carries (`id=`). */
  id: string;
}

/**
 * "part:tx:ty" → the request awaiting its tile. Every request is counted once in
 * edState.tilesRequested and leaves the count once: answered (tilesDrawn) or given up (taken off
 * tilesRequested), so `tilesDrawn >= tilesRequested` says exactly that nothing asked is awaited.
 */
export const pending: Record<string, PendingTile> = {};
/**
 * Tiles invalidated while their request was in flight, with the pixel version they must have
 * reached (Infinity from a server that numbers nothing): the reply may have been painted before.
 */
export const dirty: Record<string, number> = {};
/** "part:tx:ty" → the application of the frames received for it so far. */
export const arriving: Record<string, Promise<void>> = {};
/** Insertion order, for eviction. */
let cacheKeys: string[] = [];

/** The cache key of the tile at twips x, y of a part, on a grid of tw twips. */
export function tileKeyAt(p: unknown, x: unknown, y: unknown, tw: number): string {
  return (Number(p) || 0) + ":" + Math.round(Number(x) / tw) + ":" + Math.round(Number(y) / tw);
}

export function closePixels(bmp: TilePixels): void {
  if ("close" in bmp) bmp.close();
}

/** A new tile in the cache (replacing the one held, if any). */
export function storeTile(key: string, tile: CachedTile): CachedTile {
  const old = cache[key];
  if (old) closePixels(old.bmp);
  else cacheKeys.push(key);
  return (cache[key] = tile);
}

/** A tile asked for: awaited until its answer or a tile of at least version `need` is applied, or given up. */
export function markAsked(key: string, at: number, need: number, id: string): void {
  if (pending[key]) return;
  pending[key] = { at, need, id };
  S.tilesRequested++;
}

/**
 * A tile of version `ver`, sent for request `id`, is in the cache: the request awaiting it is
 * answered (and returned) if this is its reply or of the version it needs. The server answers a
 * request whose version a push already carried with nothing (tile-push.ts covered()), so a pushed
 * tile must answer it here too: waiting for a reply of its own left the request pending for good,
 * and a pending tile is never asked for again, however often it is invalidated.
 */
export function answerAsked(key: string, ver: number, id: string): PendingTile | undefined {
  const p = pending[key];
  if (!p || !(p.id === id || ver >= p.need)) return undefined;
  delete pending[key];
  return p;
}

/** A request that will not be answered (the server said so, or its answer could not be used). */
export function giveUpAsked(key: string): void {
  if (!pending[key]) return;
  delete pending[key];
  S.tilesRequested--;
}

/**
 * Requests given up (another zoom, a new view) are no longer awaited: their tiles will never be
 * drawn, so they leave the count the page's "every tile asked for is drawn" compares against.
 */
function abandonPending(): void {
  S.tilesRequested -= Object.keys(pending).length;
  empty(pending);
}

/** The records are emptied in place: other modules hold them (a new object would leave them reading the old one). */
function empty(record: Record<string, unknown>): void {
  for (const k in record) delete record[k];
}

/** What the page holds was drawn by the old view: kept on screen, asked again once the view is back. */
export function forgetRequests(): void {
  for (const k in cache) { cache[k]!.stale = true; cache[k]!.need = -1; }
  abandonPending(); empty(dirty); empty(arriving);
}

/** Another zoom: nothing held fits the new grid. */
export function dropAll(): void {
  empty(cache); cacheKeys = []; abandonPending(); empty(dirty);
}

export function evict(): void {
  if (cacheKeys.length <= CACHE_MAX) return;
  const v = visible(), p = currentPart();
  const keep = (k: string) => {
    const s = k.split(":"), x = Number(s[1]) * TILE_PX, y = Number(s[2]) * TILE_PX;
    return Number(s[0]) === p && x + TILE_PX > v.x - 1024 && x < v.x + v.w + 1024 && y + TILE_PX > v.y - 2048 && y < v.y + v.h + 2048;
  };
  cacheKeys = cacheKeys.filter((k) => {
    if (cacheKeys.length <= CACHE_MAX / 2 || keep(k)) return true;
    const e = cache[k];
    if (e) closePixels(e.bmp);
    delete cache[k];
    return false;
  });
}

/** Marks a cached tile to be asked for again, for pixel version `ver` (Infinity: unnumbered). */
export function staleFor(e: CachedTile, ver: number): void {
  e.stale = true;
  e.need = isFinite(ver) && !(e.need === -1) ? Math.max(e.need === undefined ? -1 : e.need, ver) : -1;
}
