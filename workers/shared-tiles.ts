// Tiles painted for one view, kept for the other views of the same look until the engine changes
// them (see kit/tiles.ts paintTiles). With several people in a document every keystroke invalidated
// the same tiles in every view, and each view painted, hashed and encoded them again (at 40 people
// in ten documents, 4 a document, that was most of the kits' time).
//
// A paint that ran before an edit whose invalidation the engine has not yet reported is served
// from here until that invalidation comes, as the view's own paint at that moment could have been;
// the invalidation then makes every view paint it again: the whole tile, or in a text document
// only the rows the invalidation touches. A typed character invalidates its line from the caret
// on, 20-30 of a tile's 256 rows, and painting, copying and hashing whole tiles for it was most of
// a kit's work at 50 people in ten documents.
import type { TileInvalidation } from "./tile-invalidation";
import { Scratch } from "./scratch";

export interface SharedTile {
  part: number;
  /** Twips. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Pixels. */
  width: number;
  height: number;
  /** RGBA or BGRA as the engine paints, `width` pixels a row. */
  pixels: Uint8Array;
  /** A digest of each pixel row; replaced, never changed, when rows are painted again. */
  rows: BigUint64Array;
  /** PNG (base64) by band: `${top}:${rows}`. */
  encoded: Map<string, string>;
  /** Pixel rows an invalidation touched since they were painted (inclusive), to paint again before use. */
  stale: { top: number; bottom: number } | null;
}

/** LibreOfficeKit's paintTile: a `bw`×`bh` pixel buffer of the twip rectangle x, y, tw, th. */
export type Paint = (buf: Uint8Array, bw: number, bh: number, x: number, y: number, tw: number, th: number) => void;

/** Rows painted again rather than the whole tile, up to this part of it. */
const MAX_STALE_PART = 0.6;

export class SharedTiles {
  private readonly tiles = new Map<string, SharedTile>();

  /** 48 tiles of 256 px: 12 MB, more than a screen (40 tiles at 1920×1200). */
  constructor(private readonly max = 48) {}

  get size(): number {
    return this.tiles.size;
  }

  /** The tile, kept as the most recently used. */
  get(key: string): SharedTile | undefined {
    const hit = this.tiles.get(key);
    if (hit) {
      this.tiles.delete(key);
      this.tiles.set(key, hit);
    }
    return hit;
  }

  /** Keeps a tile painted from `pixels` (`stride` pixels a row), the least recently used going past the bound. */
  put(key: string, at: Omit<SharedTile, "pixels" | "rows" | "encoded" | "stale">, pixels: Uint8Array, stride: number): SharedTile {
    const { width, height } = at;
    const own = new Uint8Array(width * height * 4);
    for (let row = 0; row < height; row++) own.set(pixels.subarray(row * stride * 4, (row * stride + width) * 4), row * width * 4);
    const rows = new BigUint64Array(height);
    for (let row = 0; row < height; row++) rows[row] = rowDigest(own, width, row);
    const tile: SharedTile = { ...at, pixels: own, rows, encoded: new Map(), stale: null };
    this.tiles.delete(key);
    this.tiles.set(key, tile);
    while (this.tiles.size > this.max) this.tiles.delete(this.tiles.keys().next().value!);
    return tile;
  }

  clear(): void {
    this.tiles.clear();
  }

  /**
   * The engine changed what an invalidation covers (null: it could not be read, everything). Tiles
   * it touches are dropped, or with `byRows` marked stale in the rows it touches when that is a
   * small part of the tile.
   */
  invalidate(inv: TileInvalidation | null, byRows: boolean): void {
    if (!this.tiles.size) return;
    if (!inv) return this.clear();
    const r = inv.rect;
    for (const [key, t] of this.tiles) {
      if (inv.part !== null && t.part !== inv.part) continue;
      if (r && !(t.x < r.x + r.w && r.x < t.x + t.w && t.y < r.y + r.h && r.y < t.y + t.h)) continue;
      const rows = r && byRows ? staleRows(t, r) : null;
      if (rows) t.stale = rows;
      else this.tiles.delete(key);
    }
  }
}

/**
 * The tile's rows that `r` (twips) touches, with the rows already stale, widened by a row each way
 * (anti-aliasing past the rectangle's edge) and to rows whose twips position is whole (the band is
 * then painted at the same pixel grid as the tile); null when that is most of the tile.
 */
export function staleRows(t: SharedTile, r: { y: number; h: number }): { top: number; bottom: number } | null {
  const pxPerTwip = t.height / t.h;
  let top = Math.max(0, Math.floor((r.y - t.y) * pxPerTwip) - 1);
  let bottom = Math.min(t.height - 1, Math.ceil((r.y + r.h - t.y) * pxPerTwip));
  if (t.stale) [top, bottom] = [Math.min(top, t.stale.top), Math.max(bottom, t.stale.bottom)];
  // Rows at multiples of `step` start at whole twips (15 twips a row at 100 %: every row).
  const step = t.height / gcd(t.h, t.height);
  top = Math.floor(top / step) * step;
  bottom = Math.min(t.height - 1, Math.ceil((bottom + 1) / step) * step - 1);
  return bottom - top + 1 > t.height * MAX_STALE_PART ? null : { top, bottom };
}

/**
 * Paints the stale rows of `tiles` (all of one size) again: tiles side by side in one row of the
 * grid with the same stale rows as one band, a pixel wider and taller and cropped as a whole paint
 * is (see kit/tiles.ts paintTiles). Answers how many tile rows were painted.
 */
export function repaintStaleRows(paint: Paint, tiles: SharedTile[]): number {
  const bands = new Map<string, SharedTile[]>();
  let painted = 0;
  for (const t of tiles) {
    if (!t.stale) continue;
    painted += t.stale.bottom - t.stale.top + 1;
    const key = `${t.y}:${t.stale.top}:${t.stale.bottom}`;
    const band = bands.get(key);
    if (band) band.push(t);
    else bands.set(key, [t]);
  }
  for (const band of bands.values()) {
    band.sort((a, b) => a.x - b.x);
    for (let i = 0; i < band.length; ) {
      let j = i + 1;
      while (j < band.length && band[j]!.x === band[j - 1]!.x + band[j - 1]!.w) j++;
      repaintRun(paint, band.slice(i, j));
      i = j;
    }
  }
  return painted;
}

/** The band being painted again, copied into its tiles at once. */
const bandScratch = new Scratch();

function repaintRun(paint: Paint, run: SharedTile[]): void {
  const { width, height, w, h, x, y } = run[0]!;
  const { top, bottom } = run[0]!.stale!;
  const rows = bottom - top + 1;
  const bw = run.length * width + 1, bh = rows + 1;
  const buf = bandScratch.zeroed(bw * bh * 4);
  paint(buf, bw, bh, x, y + (top * h) / height, Math.round((w * bw) / width), Math.round((h * bh) / height));
  run.forEach((t, i) => {
    const digests = t.rows.slice();
    for (let row = 0; row < rows; row++) {
      const from = (row * bw + i * width) * 4;
      t.pixels.set(buf.subarray(from, from + width * 4), (top + row) * width * 4);
      digests[top + row] = rowDigest(t.pixels, width, top + row);
    }
    t.rows = digests;
    t.encoded = new Map();
    t.stale = null;
  });
}

function rowDigest(pixels: Uint8Array, width: number, row: number): bigint {
  return BigInt(Bun.hash.wyhash(pixels.subarray(row * width * 4, (row + 1) * width * 4)));
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
