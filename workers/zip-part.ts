// One deflated zip part inflated, bounded by the size the package's directory declares for it:
// what the service's zip guard (app/zip-guard.ts) and a worker's check for outside picture links
// (workers/linked-pictures.ts) both do to a part before anything reads it.

import { inflateRawSync } from "node:zlib";

/**
 * Deflate gives at most 1032 bytes per compressed byte. Bun's native inflate takes no output bound
 * and node:zlib's builds a stream object per call (most of the zip guard's cost on a small
 * document's dozen parts, issue 47), so a part is inflated natively only when even its worst case
 * stays within what it declares plus this much; any other part goes through node:zlib with the
 * declared size as its bound. Before, every part of up to 64 kB compressed was inflated natively:
 * one part declaring a kilobyte and inflating to 64 MiB held the event loop 0.6 s on this project's
 * 2-core machine, and took 64 MiB, for one upload of 64 kB.
 */
export const NATIVE_INFLATE_OVERSHOOT_BYTES = 1024 * 1024;
const DEFLATE_MAX_RATIO = 1032;

/** Whether a part of `compressed` bytes declaring `declared` is inflated by Bun's unbounded native inflate. */
export function inflatesNatively(compressed: number, declared: number): boolean {
  return compressed * DEFLATE_MAX_RATIO <= declared + NATIVE_INFLATE_OVERSHOOT_BYTES;
}

/**
 * A raw-deflated part inflated: its bytes (at most `declared` of them; fewer when the part is
 * shorter than declared), "over" when it inflates past `declared`, "broken" when it cannot be read.
 */
export function inflatePart(raw: Uint8Array, declared: number): Uint8Array<ArrayBuffer> | "over" | "broken" {
  let out: Uint8Array<ArrayBuffer>;
  try {
    out = inflatesNatively(raw.length, declared)
      ? (Bun.inflateSync(raw as Uint8Array<ArrayBuffer>) as Uint8Array<ArrayBuffer>)
      : (inflateRawSync(raw, { maxOutputLength: declared + 1 }) as Uint8Array<ArrayBuffer>);
  } catch (e) {
    return e instanceof RangeError || (e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "over" : "broken";
  }
  return out.length > declared ? "over" : out;
}
