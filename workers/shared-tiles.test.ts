// The kit's shared tiles (issue 24 item 2): which rows an engine invalidation leaves to paint again.
// That the rows painted again are what a whole paint shows is kit-shared-tiles.test.ts's business.
import { expect, test } from "bun:test";
import { SharedTiles, staleRows, type SharedTile } from "./shared-tiles";

const at = (over: Partial<SharedTile> = {}) => ({ part: 0, x: 0, y: 3840, w: 3840, h: 3840, width: 256, height: 256, ...over });
const tile = (over: Partial<SharedTile> = {}): SharedTile => ({ ...at(over), pixels: new Uint8Array(0), rows: new BigUint64Array(0), encoded: new Map(), stale: null, ...over });

test("an invalidated line is a band of rows, widened by a row each way, at 15 twips a row", () => {
  // A line 300 twips (20 px) tall, 1500 twips (100 px) into the tile.
  expect(staleRows(tile(), { y: 3840 + 1500, h: 300 })).toEqual({ top: 99, bottom: 120 });
  // Past the tile's edges: clamped.
  expect(staleRows(tile(), { y: 3000, h: 1200 })).toEqual({ top: 0, bottom: 24 });
});

test("a band starts and ends on rows at whole twips: every second row at 7.5 twips a row (a screen of twice the density)", () => {
  const dense = tile({ width: 512, height: 512 });
  const r = staleRows(dense, { y: 3840 + 1501, h: 300 })!;
  expect(r.top % 2).toBe(0);
  expect((r.bottom + 1) % 2).toBe(0);
  expect(r.top).toBeLessThanOrEqual(Math.floor(1501 / 7.5) - 1);
  expect(r.bottom).toBeGreaterThanOrEqual(Math.ceil(1801 / 7.5));
});

test("rows already stale join the band; most of the tile stale is a whole paint (null)", () => {
  expect(staleRows(tile({ stale: { top: 10, bottom: 20 } }), { y: 3840 + 1500, h: 300 })).toEqual({ top: 10, bottom: 120 });
  expect(staleRows(tile(), { y: 3840, h: 3840 * 0.7 })).toBeNull();
});

test("an invalidation marks rows stale in a text document, drops the tiles of any other, and leaves other parts alone", () => {
  const cache = new SharedTiles();
  const pixels = new Uint8Array(256 * 256 * 4);
  cache.put("a", at(), pixels, 256);
  cache.put("b", at({ part: 1 }), pixels, 256);
  cache.invalidate({ part: 0, rect: { x: 0, y: 3840 + 1500, w: 12000, h: 300 } }, true);
  expect(cache.get("a")!.stale).toEqual({ top: 99, bottom: 120 });
  expect(cache.get("b")!.stale).toBeNull();
  cache.invalidate({ part: 0, rect: { x: 0, y: 3840 + 1500, w: 12000, h: 300 } }, false);
  expect(cache.get("a")).toBeUndefined();
  expect(cache.get("b")).toBeDefined();
  cache.invalidate({ part: null, rect: null }, true);
  expect(cache.size).toBe(0);
});
