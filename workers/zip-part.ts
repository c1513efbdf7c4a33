// One deflated zip part inflated, bounded by the size the package's directory declares for it:
// what the service's zip guard (app/zip-guard.ts) and a worker's check for outside picture links
// (workers/linked-pictures.ts) both do to a part before anything reads it.

import { inflateRawSync } from "node:zlib";

/**
 * Deflate gives at most 1032 bytes per compressed byte, so a part of at most this many compressed
 * bytes cannot inflate past 64 MiB: Bun's native inflate, which takes no output bound, is safe on
 * it, and its length is then compared with what the directory declares. A larger part goes through
 * node:zlib with the declared size as its bound. (node:zlib builds a stream object per call: most
 * of the zip guard's cost on a small document's dozen parts, issue 47.)
 */
export const NATIVE_INFLATE_MAX_COMPRESSED = 64 * 1024;

/**
 * A raw-deflated part inflated: its bytes (at most `declared` of them; fewer when the part is
 * shorter than declared), "over" when it inflates past `declared`, "broken" when it cannot be read.
 */
export function inflatePart(raw: Uint8Array, declared: number): Uint8Array<ArrayBuffer> | "over" | "broken" {
  let out: Uint8Array<ArrayBuffer>;
  try {
    out = raw.length <= NATIVE_INFLATE_MAX_COMPRESSED
      ? (Bun.inflateSync(raw as Uint8Array<ArrayBuffer>) as Uint8Array<ArrayBuffer>)
      : (inflateRawSync(raw, { maxOutputLength: declared + 1 }) as Uint8Array<ArrayBuffer>);
  } catch (e) {
    return e instanceof RangeError || (e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "over" : "broken";
  }
  return out.length > declared ? "over" : out;
}
