import { expect, test } from "bun:test";
import { parseTileInvalidation } from "./tile-invalidation";

test("a tile invalidation is read in both of LibreOfficeKit's forms, with and without its part", () => {
  expect(parseTileInvalidation("0, 1440, 12240, 300, 2")).toEqual({ part: 2, rect: { x: 0, y: 1440, w: 12240, h: 300 } });
  expect(parseTileInvalidation("0, 1440, 12240, 300")).toEqual({ part: null, rect: { x: 0, y: 1440, w: 12240, h: 300 } });
  expect(parseTileInvalidation("EMPTY, 3")).toEqual({ part: 3, rect: null });
  expect(parseTileInvalidation("EMPTY")).toEqual({ part: null, rect: null });
  expect(parseTileInvalidation("0, 1440, wide")).toBeNull();
  expect(parseTileInvalidation("")).toBeNull();
});
