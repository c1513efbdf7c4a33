// Linked pictures that no LibreOffice setting holds (issue 44 item 4). Documents pull in nothing
// by the engine's settings where a setting exists: BlockUntrustedRefererLinks (workers/profile.ts)
// keeps LibreOffice 25.2 from reading the picture of an ODF linked draw:image, a docx picture
// linked by an external relationship (r:link) and an HTML img, since a loaded document's own URL
// is its referer and no location is trusted. Measured (app/documents-pull-nothing.test.ts, the
// canary inside the engine's readable set) two ways past every setting of the registry:
// - an SVG picture's <image href="file:…"> (svgio reads the file itself, with no referer and no
//   security option: any document that holds an SVG, docx, odt, pptx, xlsx…);
// - RTF's INCLUDEPICTURE field (the RTF import inserts the named file as a picture).
// So the engine is handed a private copy without those links, made here before every load (the
// DocBuilder worker's and the editing kit's): in SVG pictures (known by their content: a package's
// parts, pictures held inline as base64 in ODF's office:binary-data, SVGs held inline in SVGs as
// data: URLs) every href that names something other than the picture itself (#id) or inline data
// (data:) is emptied; in RTF every INCLUDEPICTURE target is emptied (the field's own result,
// what the author last saw, stays). A document
// without such a link is loaded untouched (read once, nothing written). The kernel confinement
// (workers/confine.ts) stays the wall behind: what is named and not rewritten here is still
// outside what an engine may read, unless it lies in the engine's own folders.
//
// A link emptied here is also gone from what the kit saves: a picture that named a file on the
// author's disk had nothing to show on the server anyway.

import { closeSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { inflateRawSync, constants as zlibConstants } from "node:zlib";
import { inflatePart } from "./zip-part";
import { gunzipSync, gzipSync, strFromU8, strToU8, unzipSync, zipSync, type Unzipped, type Zippable } from "fflate";

/** An href, with any prefix (xlink:href, href), and its quoted value. */
const HREF = /(\s(?:[A-Za-z_][\w.-]*:)?href\s*=\s*)("[^"]*"|'[^']*')/g;

/** How deep SVG pictures held inline in SVG pictures (data:image/svg+xml) are followed; deeper ones are emptied. */
const MAX_SVG_NESTING = 4;

/**
 * An SVG text with every href that reaches outside it emptied; null when it has none. An SVG held
 * inline as a data: URL is an SVG too, whose own hrefs are read: it is rewritten the same way.
 */
export function svgWithoutOutsideLinks(svg: string, depth = 0): string | null {
  let changed = false;
  const out = svg.replace(HREF, (whole, lead: string, quoted: string) => {
    const value = quoted.slice(1, -1).trim();
    if (value.startsWith("#")) return whole;
    const inner = /^data:image\/svg\+xml/i.test(value) ? decodeDataUrl(value) : null;
    if (inner !== null && depth < MAX_SVG_NESTING) {
      const rewritten = svgWithoutOutsideLinks(inner, depth + 1);
      if (rewritten === null) return whole;
      changed = true;
      return `${lead}"data:image/svg+xml;base64,${Buffer.from(rewritten).toString("base64")}"`;
    }
    if (/^data:/i.test(value) && !/^data:image\/svg\+xml/i.test(value)) return whole;
    changed = true;
    return `${lead}""`;
  });
  return changed ? out : null;
}

/** The text a data: URL holds (base64 or percent-encoded); null when it cannot be read. */
function decodeDataUrl(url: string): string | null {
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const meta = url.slice(0, comma);
  const body = url.slice(comma + 1).replace(/&#x?[0-9a-f]+;|&amp;/gi, (e) => (e.toLowerCase() === "&amp;" ? "&" : e));
  try {
    return /;base64$/i.test(meta) ? Buffer.from(body, "base64").toString("utf8") : decodeURIComponent(body);
  } catch {
    return null;
  }
}

/**
 * ODF holds a picture inline as base64 in <office:binary-data> (flat ODF files, and any
 * content.xml may): each such SVG picture rewritten; null when none changed.
 */
const BINARY_DATA = /(<(?:[\w.-]+:)?binary-data>)([^<]*)(<\/(?:[\w.-]+:)?binary-data>)/g;
export function xmlWithoutOutsideLinks(xml: string): string | null {
  if (!xml.includes("binary-data>")) return null;
  let changed = false;
  const out = xml.replace(BINARY_DATA, (whole, open: string, b64: string, close: string) => {
    const picture = pictureWithoutOutsideLinks(Buffer.from(b64.replace(/\s+/g, ""), "base64"));
    if (picture === null) return whole;
    changed = true;
    return `${open}${Buffer.from(picture).toString("base64")}${close}`;
  });
  return changed ? out : null;
}

/** INCLUDEPICTURE, its switches, and its target (quoted, or up to the next space or group). */
const INCLUDEPICTURE = /(INCLUDEPICTURE(?:\s+\\\\?[A-Za-z]\b)*\s+)("(?:[^"\\]|\\.)*"|[^\s{}"]+)/gi;

/** An RTF text with every INCLUDEPICTURE target emptied; null when it has none. */
export function rtfWithoutIncludedPictures(rtf: string): string | null {
  let changed = false;
  const out = rtf.replace(INCLUDEPICTURE, (whole, lead: string, target: string) => {
    if (target === '""') return whole;
    changed = true;
    return `${lead}""`;
  });
  return changed ? out : null;
}

/**
 * Whether a part is an SVG picture, by its content: LibreOffice knows a picture by its bytes, not
 * by its name, so an SVG named Pictures/x.png is an SVG too. The root element is looked for past
 * a byte-order mark, the XML declaration, comments and a DOCTYPE, however long they are
 * (LibreOffice read an SVG behind a 6 kB comment: a check of the first 4 kB alone let it through).
 * `complete`: the text is all of the part; when it is only the part's head and ends before the
 * root element does, the answer is null (all of the part must be read to know). Read in one pass:
 * a regular expression with lazy groups went back over the whole head of every XML part that is
 * no SVG, most of this check's cost on an ODF package (issue 47).
 */
function svgRootIn(text: string, complete: boolean): boolean | null {
  // A byte-order mark: U+FEFF, or UTF-8's three bytes read as Latin-1.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : text.startsWith("\u00ef\u00bb\u00bf") ? 3 : 0;
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    let next: number;
    if (text.startsWith("<?", i)) next = endOf(text, "?>", i + 2);
    else if (text.startsWith("<!--", i)) next = endOf(text, "-->", i + 4);
    else if (text.startsWith("<!DOCTYPE", i)) next = doctypeEnd(text, i + 9);
    else if (!complete && text.length - i < ROOT_NAME_BYTES) return null; // the root element may be cut
    else return SVG_ELEMENT.test(text.slice(i, i + ROOT_NAME_BYTES));
    if (next < 0) return complete ? false : null;
    i = next;
  }
}
const SVG_ELEMENT = /^<(?:[\w.-]+:)?svg[\s>\/]/;
/** Enough of a root element's start to read its (prefixed) name. */
const ROOT_NAME_BYTES = 256;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0x0b || c === 0xa0;
function endOf(text: string, close: string, from: number): number {
  const at = text.indexOf(close, from);
  return at < 0 ? -1 : at + close.length;
}
/** Past a DOCTYPE's ">", its internal subset ("[…]") included. */
function doctypeEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === ">") return i + 1;
    if (c === "[") {
      const close = text.indexOf("]", i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** Bytes as Latin-1 text (native: fflate's decoding was a loop of fromCharCode). */
const latin1 = (data: Uint8Array, n = data.byteLength) => Buffer.from(data.buffer, data.byteOffset, Math.min(n, data.byteLength)).toString("latin1");
const GZIP = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b;

/**
 * Whether bytes are an SVG picture (svgRootIn), their head read first; `whole`: the bytes are all
 * of the part, else null when their head does not tell.
 */
function isSvg(data: Uint8Array, whole: boolean): boolean | null {
  const byHead = svgRootIn(latin1(data, HEAD_BYTES), whole && data.byteLength <= HEAD_BYTES);
  return byHead !== null || !whole ? byHead : svgRootIn(latin1(data), true);
}

function svgText(data: Uint8Array): string | null {
  return isSvg(data, true) ? strFromU8(data) : null;
}

/** An SVG picture (plain or gzipped) rewritten; null when the bytes are no SVG or need nothing. */
function pictureWithoutOutsideLinks(data: Uint8Array): Uint8Array | null {
  try {
    const gz = GZIP(data);
    const text = svgText(gz ? gunzipSync(data) : data);
    const svg = text === null ? null : svgWithoutOutsideLinks(text);
    if (svg === null) return null;
    return gz ? gzipSync(strToU8(svg)) : strToU8(svg);
  } catch {
    return null; // not text, or a broken gzip: no SVG the engine could read either
  }
}

/** Whether bytes start like XML text (a byte-order mark, whitespace, then "<"). */
function looksXml(data: Uint8Array): boolean {
  let i = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
  while (i < data.length && (data[i] === 0x20 || data[i] === 0x09 || data[i] === 0x0a || data[i] === 0x0d)) i++;
  return data[i] === 0x3c;
}

/** Any part or file: an SVG picture, or XML holding pictures inline; null when nothing changed. */
function partWithoutOutsideLinks(data: Uint8Array): Uint8Array | null {
  const picture = pictureWithoutOutsideLinks(data);
  if (picture !== null) return picture;
  // Looked for in the bytes first (native search): most XML parts hold no inline picture.
  if (!looksXml(data) || Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf("binary-data>") < 0) return null;
  const xml = xmlWithoutOutsideLinks(strFromU8(data));
  return xml === null ? null : strToU8(xml);
}

/**
 * The package's parts with their SVG pictures rewritten; null when no part changed. Only the parts
 * that can hold such a link are inflated (partsThatCanLink: a conversion pays for reading the few
 * first bytes of each part, not for inflating a deck's pictures); the whole package is inflated
 * again only to write a rewritten copy. The XML guard (app/zip-guard.ts) bounds what a package may
 * inflate to before any engine sees it.
 */
function packageWithoutOutsideLinks(bytes: Uint8Array): Uint8Array | null {
  const entries = zipDirectory(bytes);
  let parts = entries && partsThatCanLink(bytes, entries);
  const some = parts !== null;
  if (!parts) {
    try {
      parts = unzipSync(bytes);
    } catch {
      return null; // not a package the engine can read either: nothing to rewrite
    }
  }
  const rewritten = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(parts)) {
    const r = partWithoutOutsideLinks(data);
    if (r !== null) rewritten.set(name, r);
  }
  if (!rewritten.size) return null;
  const out: Zippable = {};
  for (const [name, data] of Object.entries(some ? unzipSync(bytes) : parts)) {
    // Every part again, in its order; ODF's mimetype stays first and stored, as the format requires.
    const part = rewritten.get(name) ?? data;
    out[name] = name === "mimetype" ? [part, { level: 0 }] : part;
  }
  return zipSync(out);
}

/** How much of a part's start is read first to say whether it can hold a link (an SVG's prolog may need more: isSvg). */
const HEAD_BYTES = 4096;
/** An ODF part of at most this many compressed bytes is inflated whole at once rather than its head first. */
const WHOLE_PART_MAX_COMPRESSED = 64 * 1024;

/**
 * The parts that can hold a link no setting holds, known by their first bytes, inflated: an SVG
 * picture (plain or gzipped) and, in an ODF package, XML (its inline pictures: office:binary-data,
 * which OOXML's import does not read). Each part is inflated by native zlib to exactly the size the
 * directory declares for it. Null when the directory is one this reader does not take (zip64), or
 * a part cannot be read or inflates to another size: fflate then reads the whole package.
 */
function partsThatCanLink(b: Uint8Array, entries: DirectoryEntry[]): Unzipped | null {
  const odf = entries.some((e) => e.name === "mimetype");
  const parts: Unzipped = {};
  for (const e of entries) {
    const data = b.subarray(e.dataStart, e.dataStart + e.compressedSize) as Uint8Array<ArrayBuffer>;
    if (e.method !== 0 && e.method !== 8) return null;
    // An ODF package's parts are mostly XML, each read whole: inflated once, its head taken from it.
    // So is any small part (a deck's many layouts): one native inflate costs less than node's head,
    // which is read first only for a larger part.
    let whole: Uint8Array<ArrayBuffer> | null = null;
    if (e.method === 0) whole = data;
    else if ((odf || e.compressedSize <= HEAD_BYTES) && e.compressedSize <= WHOLE_PART_MAX_COMPRESSED) {
      whole = inflatedToDeclared(data, e.uncompressedSize);
      if (!whole) return null;
    }
    const head = whole ? whole.subarray(0, HEAD_BYTES) : partHead(b, e);
    if (!head) return null;
    let part = whole;
    // A head shorter than HEAD_BYTES is all the part inflates to (partHead read every byte of it).
    let read = GZIP(head) || (odf && looksXml(head)) || isSvg(part ?? head, part !== null || head.length < HEAD_BYTES);
    if (read === null) {
      // An SVG's prolog may run past the head: the whole part tells.
      part = inflatedToDeclared(data, e.uncompressedSize);
      if (!part) return null;
      read = isSvg(part, true);
    }
    if (!read) continue;
    part ??= inflatedToDeclared(data, e.uncompressedSize);
    if (!part) return null;
    parts[e.name] = part;
  }
  return parts;
}

/**
 * A deflated part inflated to exactly the size the directory declares (workers/zip-part.ts: native
 * when even its worst case stays near that size, node's bounded zlib otherwise); null when it
 * inflates to another size or cannot be read. (fflate's inflate is JavaScript: 0.8 s for the 59 MB of XML of a 2 MB
 * spreadsheet, most of what its conversion to csv cost above the engine's own, issue 47.)
 */
function inflatedToDeclared(data: Uint8Array, declared: number): Uint8Array<ArrayBuffer> | null {
  const out = inflatePart(data, declared);
  return typeof out !== "string" && out.length === declared ? out : null;
}

interface DirectoryEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  dataStart: number;
}

/** The zip's central directory, read from memory; null for zip64 or anything unexpected. */
function zipDirectory(b: Uint8Array): DirectoryEntry[] | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (v.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  if (count === 0xffff || at === 0xffffffff) return null;
  const entries: DirectoryEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > b.length || v.getUint32(at, true) !== 0x02014b50) return null;
    const method = v.getUint16(at + 10, true);
    const compressedSize = v.getUint32(at + 20, true);
    const uncompressedSize = v.getUint32(at + 24, true);
    const nameLength = v.getUint16(at + 28, true);
    const local = v.getUint32(at + 42, true);
    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || local === 0xffffffff || local + 30 > b.length || v.getUint32(local, true) !== 0x04034b50) return null;
    const name = strFromU8(b.subarray(at + 46, at + 46 + nameLength), true);
    const dataStart = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    if (dataStart + compressedSize > b.length) return null;
    entries.push({ name, method, compressedSize, uncompressedSize, dataStart });
    at += 46 + nameLength + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
  }
  return entries;
}

/** The first HEAD_BYTES of a part, inflated as far as needed (native zlib); null when it cannot be read. */
function partHead(b: Uint8Array, e: DirectoryEntry): Uint8Array | null {
  const data = b.subarray(e.dataStart, e.dataStart + e.compressedSize);
  if (e.method === 0) return data.subarray(0, HEAD_BYTES);
  if (e.method !== 8) return null;
  // A start of the compressed bytes, flushed rather than finished: what it inflates to so far.
  // Text compresses several times over, so a quarter of the head's size is usually enough.
  for (let take = HEAD_BYTES / 4; ; take *= 4) {
    try {
      const head = inflateRawSync(data.subarray(0, take), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
      if (head.length >= HEAD_BYTES || take >= data.length) return head.subarray(0, HEAD_BYTES);
    } catch {
      return null;
    }
  }
}

/**
 * Writes to `copy` the document at `file` without the picture links no setting holds, and
 * returns `copy`; returns null (and writes nothing) when the document has none.
 */
export function withoutLinkedPictures(file: string, copy: string): string | null {
  // Only packages and RTF can hold such links: anything else is not read whole.
  const head = Buffer.alloc(5);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, 5, 0);
  } finally {
    closeSync(fd);
  }
  const zip = head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
  const rtf = head.toString("latin1") === "{\\rtf";
  // Flat ODF (fodt, fods, fodp) and any other XML file hold pictures inline.
  const xml = looksXml(head);
  if (!zip && !rtf && !xml) return null;
  const bytes = readFileSync(file);
  let out: Uint8Array | null = null;
  if (zip) out = packageWithoutOutsideLinks(bytes);
  else if (xml) out = partWithoutOutsideLinks(bytes);
  else {
    const rtf = rtfWithoutIncludedPictures(bytes.toString("latin1"));
    if (rtf !== null) out = Buffer.from(rtf, "latin1");
  }
  if (out === null) return null;
  writeFileSync(copy, out);
  return copy;
}
