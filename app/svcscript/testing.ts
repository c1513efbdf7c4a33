// Test helpers: tiny real PNG and JPEG files made from scratch, and an OOXML reader.

import { strFromU8, unzipSync, zlibSync } from "fflate";
import { XMLParser } from "fast-xml-parser";

function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
};

/** A real RGB PNG of one colour; `claim` makes the header promise another size than the data has. */
export function makePng(width: number, height: number, rgb: [number, number, number] = [51, 102, 204], claim: { width?: number; height?: number } = {}): Uint8Array {
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, claim.width ?? width);
  dv.setUint32(4, claim.height ?? height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(rgb, y * (1 + width * 3) + 1 + x * 3);
  return concat([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", zlibSync(raw)), chunk("IEND", new Uint8Array())]);
}

/**
 * A real baseline greyscale JPEG of one grey level: every 8x8 block has only a DC coefficient.
 * DC Huffman table: the first block's category gets code "0", category 0 (no change, every
 * later block) gets "10" (or "0" when the first category is 0 too). AC table: end-of-block "0".
 */
export function makeJpeg(width: number, height: number, grey = 200): Uint8Array {
  const q = 8; // every quantiser step
  const coef = Math.round(((grey - 128) * 8) / q); // DC coefficient of a flat block is 8 x (mean - 128)
  const cat = coef === 0 ? 0 : Math.floor(Math.log2(Math.abs(coef))) + 1;
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits: number[] = [];
  for (let b = 0; b < blocks; b++) {
    if (b === 0) {
      bits.push(0);
      const v = coef > 0 ? coef : coef + (1 << cat) - 1;
      for (let i = cat - 1; i >= 0; i--) bits.push((v >> i) & 1);
    } else bits.push(...(cat === 0 ? [0] : [1, 0]));
    bits.push(0); // AC: end of block
  }
  while (bits.length % 8) bits.push(1);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = bits.slice(i, i + 8).reduce((a, bit) => (a << 1) | bit, 0);
    data.push(byte);
    if (byte === 0xff) data.push(0x00);
  }
  const seg = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
  const counts = (n1: number, n2: number) => [n1, n2, ...Array(14).fill(0)];
  const dcTable = cat === 0 ? [...counts(1, 0), 0] : [...counts(1, 1), cat, 0];
  return new Uint8Array([
    0xff, 0xd8,
    ...seg(0xdb, [0x00, ...Array(64).fill(q)]),
    ...seg(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    ...seg(0xc4, [0x00, ...dcTable]),
    ...seg(0xc4, [0x10, ...counts(1, 0), 0x00]),
    ...seg(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...data,
    0xff, 0xd9,
  ]);
}

export const b64 = (u: Uint8Array) => Buffer.from(u).toString("base64");

/** The parts of an OOXML package, and its XML parts parsed. */
export class Package {
  readonly files: Record<string, Uint8Array>;
  private readonly parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", preserveOrder: false, trimValues: false });
  constructor(bytes: Uint8Array) {
    this.files = unzipSync(bytes);
  }
  names(prefix = ""): string[] {
    return Object.keys(this.files).filter((n) => n.startsWith(prefix) && !n.endsWith("/")).sort();
  }
  text(name: string): string {
    const f = this.files[name];
    if (!f) throw new Error(`no part ${name} in the package; parts: ${this.names().join(", ")}`);
    return strFromU8(f);
  }
  xml(name: string): any {
    return this.parser.parse(this.text(name));
  }
}

/** Every string value under `node` whose key is `key` (e.g. "w:t"), in document order. */
export function collect(node: unknown, key: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const n of node) collect(n, key, out);
  else if (node && typeof node === "object")
    for (const [k, v] of Object.entries(node)) {
      if (k === key) (Array.isArray(v) ? out.push(...v) : out.push(v));
      collect(v, key, out);
    }
  return out;
}

/** The text of text nodes (w:t or a:t), whether parsed as strings or objects with #text. */
export function texts(node: unknown, key: string): string[] {
  return collect(node, key).map((t) => (typeof t === "object" && t !== null ? String((t as Record<string, unknown>)["#text"] ?? "") : String(t)));
}
