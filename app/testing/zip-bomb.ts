// A real zip bomb for tests: a docx whose word/document.xml inflates to about 1 GiB of
// well-formed paragraphs from about 1.6 MB. Built in ~50 ms without ever holding the inflated
// bytes: one 1 MiB piece is deflated with a full flush (byte-aligned, history reset), so the same
// compressed piece repeated N times is a valid deflate stream of N MiB.

import zlib from "node:zlib";

const PARAGRAPH = "<w:p/>";
const PIECE = Buffer.alloc(PARAGRAPH.length * 174_763, PARAGRAPH); // ≈ 1 MiB of whole paragraphs
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const TAIL = "</w:body></w:document>";

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

interface Part {
  name: string;
  data: Buffer; // deflated
  size: number; // inflated
  crc: number;
}

function deflated(name: string, text: string): Part {
  const raw = Buffer.from(text);
  return { name, data: zlib.deflateRawSync(raw), size: raw.length, crc: zlib.crc32(raw) };
}

export interface BombOptions {
  /** Pieces of ≈1 MiB in word/document.xml; 1024 by default (≈ 1 GiB). */
  pieces?: number;
  /** What the directory declares as the inflated size of word/document.xml; the truth by default. */
  declaredSize?: number;
  /** Bytes put before the archive (a self-extracting stub): LibreOffice still reads such a zip. */
  prefix?: Uint8Array;
}

export function docxBomb(o: BombOptions = {}): Uint8Array {
  const pieces = o.pieces ?? 1024;
  const flushed = (b: Buffer) => zlib.deflateRawSync(b, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const head = flushed(Buffer.from(HEAD));
  const piece = flushed(PIECE);
  const tail = zlib.deflateRawSync(Buffer.from(TAIL));
  let crc = zlib.crc32(HEAD);
  for (let i = 0; i < pieces; i++) crc = zlib.crc32(PIECE, crc);
  crc = zlib.crc32(TAIL, crc);
  const bomb: Part = {
    name: "word/document.xml",
    data: Buffer.concat([head, ...Array<Buffer>(pieces).fill(piece), tail]),
    size: HEAD.length + pieces * PIECE.length + TAIL.length,
    crc,
  };
  return zipOf([deflated("[Content_Types].xml", CONTENT_TYPES), deflated("_rels/.rels", RELS), bomb], o.declaredSize, o.prefix);
}

/** A zip of deflated parts; sizes up to 4 GiB (no zip64). */
function zipOf(parts: Part[], declaredLast?: number, prefix: Uint8Array = new Uint8Array()): Uint8Array {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  parts.forEach((p, i) => {
    const size = i === parts.length - 1 && declaredLast !== undefined ? declaredLast : p.size;
    const name = Buffer.from(p.name);
    const loc = Buffer.alloc(30);
    loc.writeUInt32LE(0x04034b50, 0);
    loc.writeUInt16LE(20, 4);
    loc.writeUInt16LE(0, 6);
    loc.writeUInt16LE(8, 8);
    loc.writeUInt32LE(p.crc >>> 0, 14);
    loc.writeUInt32LE(p.data.length, 18);
    loc.writeUInt32LE(size, 22);
    loc.writeUInt16LE(name.length, 26);
    locals.push(loc, name, p.data);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(8, 10);
    cen.writeUInt32LE(p.crc >>> 0, 16);
    cen.writeUInt32LE(p.data.length, 20);
    cen.writeUInt32LE(size, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE(offset, 42);
    central.push(cen, name);
    offset += 30 + name.length + p.data.length;
  });
  const cenBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(cenBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([Buffer.from(prefix), ...locals, cenBytes, end]));
}
