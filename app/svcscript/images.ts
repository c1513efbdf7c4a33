// Decodes and checks an image of a script ourselves, before any library sees it: base64, the
// PNG or JPEG signature, the dimensions, and for PNG the chunk CRCs and that the pixel data
// inflates to exactly the size the header promises. A bad image is a ScriptRunError at the
// element, never a broken document or a library's stack trace.

import { Unzlib } from "fflate";
import { ScriptRunError } from "./types";

export interface DecodedImage {
  bytes: Uint8Array;
  type: "png" | "jpg";
  /** Pixels. */
  width: number;
  height: number;
}

/** Larger images are refused: their pixel data alone would take hundreds of megabytes. */
export const MAX_IMAGE_PIXELS = 40_000_000;

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeImage(data: string, path: string): DecodedImage {
  let b64 = data;
  const m = DATA_URL.exec(data);
  if (m) {
    if (!/;base64$/i.test(m[2] ?? "")) throw new ScriptRunError(path, "image data URL must be base64-encoded (data:image/png;base64,...)");
    b64 = data.slice(m[0].length);
  }
  b64 = b64.replace(/\s+/g, "");
  if (!BASE64.test(b64) || b64.length % 4 === 1) throw new ScriptRunError(path, "image data is not valid base64");
  const bytes = new Uint8Array(Buffer.from(b64, "base64"));
  const img = isPng(bytes) ? checkPng(bytes, path) : isJpeg(bytes) ? checkJpeg(bytes, path) : undefined;
  if (!img) throw new ScriptRunError(path, "image data is neither a PNG nor a JPEG file");
  if (img.width * img.height > MAX_IMAGE_PIXELS)
    throw new ScriptRunError(path, `image is too large: ${img.width} x ${img.height} pixels (at most ${MAX_IMAGE_PIXELS / 1e6} megapixels)`);
  return img;
}

const isPng = (b: Uint8Array) => b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v);
const isJpeg = (b: Uint8Array) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

const u32 = (b: Uint8Array, o: number) => ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
const u16 = (b: Uint8Array, o: number) => (b[o]! << 8) | b[o + 1]!;

let crcTable: Uint32Array | undefined;
function crc32(b: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = crcTable[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const CHANNELS: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** Bytes the filtered scanlines of a PNG take (one filter byte per row, per Adam7 pass when interlaced). */
function pngDataSize(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rowBytes = (w: number) => (w === 0 ? 0 : 1 + Math.ceil((w * bitsPerPixel) / 8));
  if (!interlaced) return height * rowBytes(width);
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ];
  let total = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const w = Math.ceil((width - x0!) / dx!);
    const h = Math.ceil((height - y0!) / dy!);
    if (w > 0 && h > 0) total += h * rowBytes(w);
  }
  return total;
}

function checkPng(b: Uint8Array, path: string): DecodedImage {
  const bad = (why: string) => new ScriptRunError(path, `PNG image does not decode: ${why}`);
  let off = 8;
  let width = 0, height = 0, bpp = 0, interlaced = false, colorType = -1;
  let sawPalette = false, sawEnd = false, first = true;
  const idat: Uint8Array[] = [];
  while (off < b.length) {
    if (off + 12 > b.length) throw bad("truncated chunk");
    const len = u32(b, off);
    const type = String.fromCharCode(b[off + 4]!, b[off + 5]!, b[off + 6]!, b[off + 7]!);
    const end = off + 8 + len;
    if (end + 4 > b.length) throw bad(`chunk ${JSON.stringify(type)} runs past the end of the file`);
    if (crc32(b, off + 4, end) !== u32(b, end)) throw bad(`chunk ${JSON.stringify(type)} has a wrong CRC`);
    if (first && type !== "IHDR") throw bad("the first chunk is not IHDR");
    first = false;
    if (type === "IHDR") {
      if (len !== 13) throw bad("IHDR has a wrong length");
      width = u32(b, off + 8);
      height = u32(b, off + 12);
      const depth = b[off + 16]!;
      colorType = b[off + 17]!;
      const spec = CHANNELS[colorType];
      if (!spec || !spec.depths.includes(depth)) throw bad("unknown colour type or bit depth");
      if (b[off + 18] !== 0 || b[off + 19] !== 0 || b[off + 20]! > 1) throw bad("unknown compression, filter or interlace method");
      bpp = spec.channels * depth;
      interlaced = b[off + 20] === 1;
    } else if (type === "PLTE") sawPalette = true;
    else if (type === "IDAT") idat.push(b.subarray(off + 8, end));
    else if (type === "IEND") {
      sawEnd = true;
      break;
    }
    off = end + 4;
  }
  if (width === 0 || height === 0) throw bad("width or height is zero");
  if (!sawEnd) throw bad("no IEND chunk (the file is truncated)");
  if (!idat.length) throw bad("no image data (IDAT)");
  if (colorType === 3 && !sawPalette) throw bad("palette image without a palette");
  if (width * height > MAX_IMAGE_PIXELS) return { bytes: b, type: "png", width, height }; // refused by the caller

  // Inflate the pixel data without keeping it: only its size matters.
  const expected = pngDataSize(width, height, bpp, interlaced);
  let got = 0;
  let ended = false;
  const inflater = new Unzlib((chunk, final) => {
    got += chunk.length;
    if (final) ended = true;
  });
  try {
    idat.forEach((part, i) => inflater.push(part, i === idat.length - 1));
  } catch {
    throw bad("the compressed pixel data is corrupt");
  }
  if (!ended || got !== expected) throw bad(`the pixel data has ${got} bytes, the header promises ${expected}`);
  return { bytes: b, type: "png", width, height };
}

function checkJpeg(b: Uint8Array, path: string): DecodedImage {
  const bad = (why: string) => new ScriptRunError(path, `JPEG image does not decode: ${why}`);
  let off = 2;
  let width = 0, height = 0;
  for (;;) {
    if (off >= b.length) throw bad("the file ends before the image data");
    if (b[off] !== 0xff) throw bad("a marker is missing");
    while (b[off] === 0xff) off++;
    const marker = b[off++]!;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd9) throw bad("the image ends before its data");
    if (off + 2 > b.length) throw bad("truncated segment");
    const len = u16(b, off);
    if (len < 2 || off + len > b.length) throw bad("a segment runs past the end of the file");
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (len < 8) throw bad("the frame header is too short");
      height = u16(b, off + 3);
      width = u16(b, off + 5);
    }
    if (marker === 0xda) {
      if (!width || !height) throw bad("no frame header with a width and a height before the image data");
      // Entropy-coded data follows; the file must end with the end-of-image marker (FFD9),
      // possibly followed by padding that some cameras add.
      let eoi = -1;
      for (let i = b.length - 2; i > off + len - 1; i--)
        if (b[i] === 0xff && b[i + 1] === 0xd9) {
          eoi = i;
          break;
        }
      if (eoi < 0) throw bad("no end-of-image marker (the file is truncated)");
      return { bytes: b, type: "jpg", width, height };
    }
    off += len;
  }
}
