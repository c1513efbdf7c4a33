// Zip bombs for tests, built in milliseconds without ever holding the inflated bytes: one ≈1 MiB
// piece of whole paragraphs is deflated with a full flush (byte-aligned, history reset), so the
// same compressed piece repeated N times is a valid deflate stream of N MiB.
//
//   docxBomb()            word/document.xml of about 1 GiB of empty paragraphs from about 1.6 MB
//   smallDocxHugeXml()    the case: a 50 KB docx with 15 MiB of XML (paragraphs with text)
//   nestedTablesDocx()    one table nested N deep, for the table nesting limit
//   plausibleHeavyDocx()  many paragraphs of random text, compressing like a real document (about
//                         6:1): nothing in its directory tells it from a long real text, only the
//                         engine's memory and time do

import zlib from "node:zlib";
import { zipSync } from "fflate";

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const TAIL = "</w:body></w:document>";
const MIB = 1024 * 1024;

/** Just over 1 MiB of whole copies of a paragraph. */
function pieceOf(paragraph: string): Buffer {
  const one = Buffer.byteLength(paragraph);
  return Buffer.alloc(one * Math.ceil(MIB / one), paragraph);
}

const contentTypes = (part: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="jpeg" ContentType="image/jpeg"/><Override PartName="/${part}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const rels = (part: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${part}"/></Relationships>`;

interface Part {
  name: string;
  data: Buffer; // deflated (or stored, method 0)
  size: number; // inflated
  crc: number;
  method?: 0 | 8;
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
  /** The paragraph repeated; `<w:p/>` by default. */
  paragraph?: string;
  /** The bomb part's name (the package's relationships point at it); word/document.xml by default. */
  partName?: string;
  /** A stored part of random bytes of this size (docProps/thumbnail.jpeg), to give the file a size. */
  paddingBytes?: number;
}

export function docxBomb(o: BombOptions = {}): Uint8Array {
  const pieces = o.pieces ?? 1024;
  const partName = o.partName ?? "word/document.xml";
  const flushed = (b: Buffer) => zlib.deflateRawSync(b, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const PIECE = pieceOf(o.paragraph ?? "<w:p/>");
  const head = flushed(Buffer.from(HEAD));
  const piece = flushed(PIECE);
  const tail = zlib.deflateRawSync(Buffer.from(TAIL));
  let crc = zlib.crc32(HEAD);
  for (let i = 0; i < pieces; i++) crc = zlib.crc32(PIECE, crc);
  crc = zlib.crc32(TAIL, crc);
  const bomb: Part = {
    name: partName,
    data: Buffer.concat([head, ...Array<Buffer>(pieces).fill(piece), tail]),
    size: HEAD.length + pieces * PIECE.length + TAIL.length,
    crc,
  };
  const parts = [deflated("[Content_Types].xml", contentTypes(partName)), deflated("_rels/.rels", rels(partName))];
  if (o.paddingBytes) parts.push(stored("docProps/thumbnail.jpeg", crypto.getRandomValues(new Uint8Array(o.paddingBytes))));
  return zipOf([...parts, bomb], o.declaredSize, o.prefix);
}

/**
 * The case (issue 21 item 2): a docx of about 50 KB whose word/document.xml holds 15 MiB
 * of paragraphs with text, well-formed; it cost 20 s and about 1 GB of engine memory to open.
 */
export function smallDocxHugeXml(o: { xmlMiB?: number; fileBytes?: number } = {}): Uint8Array {
  const probe = docxBomb({ pieces: o.xmlMiB ?? 15, paragraph: "<w:p><w:r><w:t>Văn bản</w:t></w:r></w:p>" });
  const padding = Math.max(0, (o.fileBytes ?? 50 * 1024) - probe.length - 120);
  return padding ? docxBomb({ pieces: o.xmlMiB ?? 15, paragraph: "<w:p><w:r><w:t>Văn bản</w:t></w:r></w:p>", paddingBytes: padding }) : probe;
}

/**
 * A docx of `paragraphs` short paragraphs of random text (ratio about 6:1, like a real text):
 * what a directory check cannot refuse, for the engine's own bounds (memory, time).
 */
export function plausibleHeavyDocx(paragraphs: number): Uint8Array {
  const hex = () => Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, "0").toUpperCase();
  const body: string[] = [];
  for (let i = 0; i < paragraphs; i++) body.push(`<w:p w:rsidR="00${hex()}"><w:r><w:t>${hex()}</w:t></w:r></w:p>`);
  const xml = HEAD + body.join("") + TAIL;
  return zipOf([deflated("[Content_Types].xml", contentTypes("word/document.xml")), deflated("_rels/.rels", rels("word/document.xml")), deflated("word/document.xml", xml)]);
}

function stored(name: string, data: Uint8Array): Part {
  const b = Buffer.from(data);
  return { name, data: b, size: b.length, crc: zlib.crc32(b), method: 0 };
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
    loc.writeUInt16LE(p.method ?? 8, 8);
    loc.writeUInt32LE(p.crc >>> 0, 14);
    loc.writeUInt32LE(p.data.length, 18);
    loc.writeUInt32LE(size, 22);
    loc.writeUInt16LE(name.length, 26);
    locals.push(loc, name, p.data);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(p.method ?? 8, 10);
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

/**
 * A docx of one table nested `depth` deep (each cell holding the next table), `padding` bytes of
 * text in every cell (so the tags of a large part fall across the reader's chunks), and
 * optionally a stored picture of `mediaBytes` random bytes (a file past the in-memory size is
 * judged by the streaming reader).
 */
export function nestedTablesDocx(depth: number, o: { padding?: number; mediaBytes?: number; randomText?: boolean } = {}): Uint8Array {
  // Random text compresses like a real one (about 2:1): a large part the XML ratio does not refuse first.
  const pad = (n: number) => (o.randomText ? Buffer.from(randomBytes(Math.ceil(n / 2))).toString("hex").slice(0, n) : "x".repeat(n));
  const text = o.padding ? `<w:p><w:r><w:t>${pad(o.padding)}</w:t></w:r></w:p>` : "";
  const open = `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/></w:tblGrid><w:tr><w:tc>${text}`;
  const close = `<w:p/></w:tc></w:tr></w:tbl>`;
  const xml = `${HEAD}<w:p><w:r><w:t>top</w:t></w:r></w:p>${open.repeat(depth)}<w:p><w:r><w:t>deepest</w:t></w:r></w:p>${close.repeat(depth)}<w:p/>${TAIL}`;
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {
    "[Content_Types].xml": Buffer.from(contentTypes("word/document.xml")),
    "_rels/.rels": Buffer.from(rels("word/document.xml")),
    "word/document.xml": Buffer.from(xml),
  };
  if (o.mediaBytes) files["word/media/image1.jpeg"] = [randomBytes(o.mediaBytes), { level: 0 }];
  return zipSync(files);
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}
