// Zip bombs: an OOXML or ODF document is a zip, and the engine inflates its parts while it loads.
// A 2.4 MB docx whose word/document.xml inflates to 1 GB held a worker for the whole 60 s sync
// limit and then cost a recycle. Every document taken in (DocBuilder uploads and URLs, embed
// sources, what the editing server is about to load) is therefore judged here before anything
// else reads it, in two steps:
//
// 1. The zip central directory alone (declared sizes, nothing inflated, a few milliseconds): an
//    absurd ratio or total of any part (ZIP_LIMITS), and the XML the engine would parse
//    (XML_LIMITS): its total, and its ratio part by part and all parts together. The XML is the
//    cost: a 50 KB docx with 15 MiB of paragraphs (336:1, under ZIP_LIMITS' 16 MiB floor) took
//    the engine over 2 minutes and 770 MB to convert, measured. Which parts are XML is read from
//    their first bytes, not their names: a package may name its main part anything.
// 2. The XML parts are inflated (a file of up to 32 MB in memory, a part of 4 MiB or more on the
//    guard's own thread, app/zip-part-check.ts; a larger file as a stream, native zlib, one chunk
//    of memory) and refused at the first byte past what they declare, so the declared sizes the
//    limits judged are the truth. The time is bounded by XML_LIMITS.maxXmlBytes: 59 MB of XML
//    (the corpus's largest) takes 0.1–0.2 s, none of it on the event loop.
//
// LibreOffice itself stops reading a part that inflates past its declared size (a bomb declaring
// 200 KB with 1 GiB inside was refused in ~120 ms, measured), so the other parts (pictures,
// embedded objects) are judged on their declared sizes only. The template filler is another
// matter: PizZip inflates every part whole, in this process (measured: 256 MiB inflated, 574 MB
// resident, then "size mismatch"); templates therefore pass checkInflatedSizes on every part.
//
// Why our own reader and not fflate's unzipSync with a filter (which also reads sizes without
// inflating): fflate needs the whole archive in memory, its directory offsets index into that one
// buffer, and inputs may be 300 MB (enterprise max_file_mb) in the gate's own process. The
// directory sits at the end of the file; this reads only that. The tests check this reader
// against fflate on every zip of the corpus.

import { createReadStream } from "node:fs";
import { open, readFile, stat, type FileHandle } from "node:fs/promises";
import zlib from "node:zlib";
import { ServiceError } from "./errors";
import { OFF_THREAD_BYTES, checkPart, checkPartOffThread, xmlReaders } from "./zip-part-check";

export { MAX_TABLE_NESTING } from "./xml-table-nesting";

/**
 * Limits no real document reaches. Measured on the corpus (../shared/corpus, 60 zips) and the
 * fixtures: the largest total is 59 MB (a 2.2 MB ods whose content.xml holds a large data set),
 * the highest ratio of one part is 46:1, of a whole package 27:1. Office XML rarely passes 30:1;
 * deflate itself cannot pass about 1032:1, which is what bombs use.
 */
export const ZIP_LIMITS = {
  /** Sum of the declared uncompressed sizes of all parts: 1 GiB, 18× the corpus's largest. */
  maxTotalBytes: 1024 * 1024 * 1024,
  /** Uncompressed:compressed ratio of one part: twice the corpus's highest. */
  maxRatio: 100,
  /** Parts smaller than this are not judged on their ratio: a small part inflates harmlessly. */
  ratioFloorBytes: 16 * 1024 * 1024,
} as const;

/**
 * What one document's XML may cost (issue 21 item 2). Measured on the corpus and the fixtures
 * (73 zips): the most XML in one file is 59 MB (ods/lo_large_data_formula_chart.ods, its
 * content.xml; then 21 MB, 7.4 MB, 5.5 MB), the highest ratio of an XML part 37:1 (a 117 KB
 * slide master), 27.5:1 among parts of 256 KiB or more, 27:1 for a package's XML taken together.
 * Real documents that compress best (an empty Word table with the same rsid on every row, ODF
 * rows a producer did not merge) reach 117:1 and 137:1 (made and measured); a bomb is 300:1 to
 * 1000:1.
 */
export const XML_LIMITS = {
  /**
   * Sum of the declared sizes of the XML parts: 256 MiB, 4.3× the corpus's largest. That one
   * (59 MB) took the engine 14 s and 350 MB to convert to csv, 240 s to pdf: four times more
   * would not finish within enterprise's 600 s job limit.
   */
  maxXmlBytes: 256 * 1024 * 1024,
  /** Ratio of one XML part, and of all XML parts together: 200:1, 5× the corpus's highest. */
  maxXmlRatio: 200,
  /**
   * XML parts (each, and all together) under this size are not judged on their ratio: 256 KiB
   * of empty paragraphs (44,000) still opens in seconds.
   */
  xmlRatioFloorBytes: 256 * 1024,
} as const;

export type ZipLimits = { maxTotalBytes: number; maxRatio: number; ratioFloorBytes: number };
export type XmlLimits = { maxXmlBytes: number; maxXmlRatio: number; xmlRatioFloorBytes: number };

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the local header, from the start of the archive (not of the file, when prefixed). */
  localOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CEN_SIG = 0x02014b50;
const LOC_SIG = 0x04034b50;
const EOCD_LEN = 22;
const MAX_COMMENT = 0xffff;
const U32_MAX = 0xffffffff;

class Unreadable extends Error {}

/** A zip's central directory: its entries, null when the file is not a zip, Unreadable when broken. */
async function readDirectory(file: string): Promise<ZipEntry[] | null> {
  const fh = await open(file, "r");
  try {
    const size = (await fh.stat()).size;
    return await directoryOf(size, async (pos, len) => {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      if (bytesRead !== len) throw new Unreadable("short read");
      return buf;
    });
  } finally {
    await fh.close();
  }
}

/** readDirectory, on a file in memory. */
function directoryIn(buf: Buffer): Promise<ZipEntry[] | null> {
  return directoryOf(buf.length, async (pos, len) => buf.subarray(pos, pos + len));
}

/** The central directory of `size` bytes that `readAt` reads: the few reads the directory needs. */
async function directoryOf(size: number, readAt: (pos: number, len: number) => Promise<Buffer>): Promise<ZipEntry[] | null> {
  const read = async (pos: number, len: number): Promise<Buffer> => {
    if (pos < 0 || len < 0 || pos + len > size) throw new Unreadable("outside the file");
    return readAt(pos, len);
  };
  const head = await read(0, Math.min(4, size));
  const looksZip = head.length === 4 && head.readUInt32LE(0) === LOC_SIG;
  if (size < EOCD_LEN) {
    if (looksZip) throw new Unreadable("too short");
    return null;
  }

  // The end record is searched from the end, as LibreOffice does: it may be followed by a comment
  // and the archive may be preceded by anything (LibreOffice accepts such files too).
  const tailLen = Math.min(size, EOCD_LEN + MAX_COMMENT);
  const tailPos = size - tailLen;
  const tail = await read(tailPos, tailLen);
  let e = -1;
  for (let i = tail.length - EOCD_LEN; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIG) {
      e = i;
      break;
    }
  }
  if (e < 0) {
    if (looksZip) throw new Unreadable("no end of central directory");
    return null;
  }
  const eocdPos = tailPos + e;
  let count = tail.readUInt16LE(e + 10);
  let cenSize = tail.readUInt32LE(e + 12);
  let cenOffset = tail.readUInt32LE(e + 16);
  let cenEnd = eocdPos;
  if (eocdPos >= 20) {
    const loc = await read(eocdPos - 20, 20);
    if (loc.readUInt32LE(0) === ZIP64_LOCATOR_SIG) {
      const z64Pos = Number(loc.readBigUInt64LE(8));
      const z = await read(z64Pos, 56).catch(() => null);
      if (z && z.readUInt32LE(0) === ZIP64_EOCD_SIG) {
        count = safeNumber(z.readBigUInt64LE(32));
        cenSize = safeNumber(z.readBigUInt64LE(40));
        cenOffset = safeNumber(z.readBigUInt64LE(48));
        cenEnd = z64Pos;
      }
    }
  }
  if (count === 0) return [];
  // Where the directory is: at its declared offset, or (an archive with something before it)
  // right before the end record, which is how LibreOffice finds it.
  let cenPos = -1;
  for (const pos of [cenOffset, cenEnd - cenSize]) {
    if (pos >= 0 && pos + 4 <= size && (await read(pos, 4)).readUInt32LE(0) === CEN_SIG) {
      cenPos = pos;
      break;
    }
  }
  if (cenPos < 0) {
    // Bytes that merely contain an end-record signature (a PDF, a legacy .doc) are not a zip.
    if (looksZip) throw new Unreadable("central directory not found");
    return null;
  }
  if (cenSize > size - cenPos) throw new Unreadable("central directory past the end");
  const cen = await read(cenPos, cenSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cen.length || cen.readUInt32LE(p) !== CEN_SIG) throw new Unreadable("broken central directory entry");
    const method = cen.readUInt16LE(p + 10);
    let compressedSize = cen.readUInt32LE(p + 20);
    let uncompressedSize = cen.readUInt32LE(p + 24);
    let localOffset = cen.readUInt32LE(p + 42);
    const nameLen = cen.readUInt16LE(p + 28);
    const extraLen = cen.readUInt16LE(p + 30);
    const commentLen = cen.readUInt16LE(p + 32);
    const end = p + 46 + nameLen + extraLen + commentLen;
    if (end > cen.length) throw new Unreadable("central directory entry past its end");
    const name = cen.toString("utf8", p + 46, p + 46 + nameLen);
    // Zip64: the sizes that read 0xFFFFFFFF are in the 0x0001 extra field, uncompressed first.
    // Without that field the 4 GiB placeholder stands, which the total limit refuses.
    if (uncompressedSize === U32_MAX || compressedSize === U32_MAX || localOffset === U32_MAX) {
      let x = p + 46 + nameLen;
      const xEnd = x + extraLen;
      while (x + 4 <= xEnd) {
        const id = cen.readUInt16LE(x);
        const len = cen.readUInt16LE(x + 2);
        if (id === 0x0001) {
          let f = x + 4;
          if (uncompressedSize === U32_MAX && f + 8 <= x + 4 + len) {
            uncompressedSize = safeNumber(cen.readBigUInt64LE(f));
            f += 8;
          }
          if (compressedSize === U32_MAX && f + 8 <= x + 4 + len) {
            compressedSize = safeNumber(cen.readBigUInt64LE(f));
            f += 8;
          }
          if (localOffset === U32_MAX && f + 8 <= x + 4 + len) localOffset = safeNumber(cen.readBigUInt64LE(f));
          break;
        }
        x += 4 + len;
      }
    }
    entries.push({ name, method, compressedSize, uncompressedSize, localOffset: localOffset + (cenPos - cenOffset) });
    p = end;
  }
  return entries;
}

function safeNumber(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/** The central directory of a zip file without inflating anything; null when the file is not a zip. */
export const zipEntries = readDirectory;

const mb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n >= 100 * 1024 * 1024 ? 0 : 1)} MB` : `${Math.ceil(n / 1024)} KB`);
const RESAVE = "hãy mở tài liệu bằng ứng dụng văn phòng, lưu lại rồi gửi tệp mới";

/**
 * Refuses (422 corrupt_source) a zip-based document whose directory declares an absurd size or
 * ratio, whose XML is more or more compressed than a real document's, or whose XML parts inflate
 * past what they declare; also a file that starts like a zip but whose directory cannot be read.
 * Anything that is not a zip passes untouched: legacy binary formats, text, PDF.
 */
export async function checkZipContainer(file: string, limits: ZipLimits = ZIP_LIMITS, xmlLimits: XmlLimits = XML_LIMITS, known?: Buffer): Promise<PackageSize> {
  // A document of ordinary size is judged in memory, read once: a read and a zlib stream per part
  // cost more than the checks (38 ms for a 44 kB deck of 65 parts, against 2 ms in memory), and
  // so do the directory's own reads (1–2 ms of a small document's conversion, bench:corpus).
  // `known`: the file's bytes, when the caller holds them already (an upload read whole).
  const bytes = known ? known.length : (await stat(file)).size;
  const inMemory = known ?? (bytes <= IN_MEMORY_BYTES ? await readFile(file) : null);
  let entries: ZipEntry[] | null;
  try {
    entries = await (inMemory ? directoryIn(inMemory) : readDirectory(file));
  } catch (e) {
    if (!(e instanceof Unreadable)) throw e;
    throw new ServiceError("corrupt_source", `Tệp nguồn có dạng gói zip (OOXML/ODF) nhưng không đọc được danh mục của gói: tệp bị hỏng hoặc bị cắt cụt; ${RESAVE}.`, {
      reason: "zip_unreadable",
    });
  }
  if (!entries) return { bytes, unpacked: bytes };
  let total = 0;
  for (const en of entries) {
    const ratio = en.uncompressedSize / Math.max(en.compressedSize, 1);
    if (en.uncompressedSize >= limits.ratioFloorBytes && ratio > limits.maxRatio) {
      throw new ServiceError(
        "corrupt_source",
        `Tệp nguồn không phải tài liệu thật (zip bomb): phần ${en.name} khai báo giải nén ${mb(en.compressedSize)} thành ${mb(en.uncompressedSize)} (tỉ lệ ${Math.round(ratio)}:1, tối đa ${limits.maxRatio}:1); ${RESAVE}.`,
        { reason: "zip_ratio", part: en.name, compressed: en.compressedSize, uncompressed: en.uncompressedSize, limit_ratio: limits.maxRatio },
      );
    }
    total += en.uncompressedSize;
  }
  if (total > limits.maxTotalBytes) {
    throw new ServiceError(
      "corrupt_source",
      `Tệp nguồn không phải tài liệu thật (zip bomb): các phần của gói khai báo tổng cộng ${mb(total)} khi giải nén, vượt giới hạn ${mb(limits.maxTotalBytes)}; ${RESAVE}.`,
      { reason: "zip_total", uncompressed: total, limit_bytes: limits.maxTotalBytes },
    );
  }
  if (inMemory) {
    const xml = xmlPartsIn(inMemory, entries);
    checkXml(xml, xmlLimits);
    await checkInflatedIn(inMemory, xml, true);
    return { bytes, unpacked: total };
  }
  const fh = await open(file, "r");
  let xml: ZipEntry[];
  try {
    xml = await xmlParts(fh, entries);
  } finally {
    await fh.close();
  }
  // Declared sizes first (milliseconds), then the truth of those sizes (inflating the XML).
  checkXml(xml, xmlLimits);
  await checkInflated(file, xml, true);
  return { bytes, unpacked: total };
}

/** A checked file's size, and what a zip package's parts declare unpacked (its own size when it is no zip): what a document's engine budget is reckoned on (app/docbuilder/document-budget.ts). */
export interface PackageSize {
  bytes: number;
  unpacked: number;
}

/** A part that inflates past what the package's directory declares for it. */
function sizeMismatch(en: ZipEntry): ServiceError {
  return new ServiceError(
    "corrupt_source",
    `Tệp nguồn không phải tài liệu thật (zip bomb): phần ${en.name} giải nén ra nhiều hơn ${mb(en.uncompressedSize)} mà danh mục của gói khai báo; ${RESAVE}.`,
    { reason: "zip_size_mismatch", part: en.name, declared: en.uncompressedSize },
  );
}

/** Files up to this size are checked in memory. */
const IN_MEMORY_BYTES = 32 * 1024 * 1024;

function dataStartIn(buf: Buffer, en: ZipEntry): number | null {
  const at = en.localOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOC_SIG) return null;
  return at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
}

/** xmlParts, on a file in memory. */
function xmlPartsIn(buf: Buffer, entries: ZipEntry[]): ZipEntry[] {
  const out: ZipEntry[] = [];
  for (const en of entries) {
    if (en.uncompressedSize === 0 || (en.method !== 0 && en.method !== 8)) continue;
    if (XML_NAMED.test(en.name)) {
      out.push(en);
      continue;
    }
    const start = dataStartIn(buf, en);
    if (start === null) continue;
    const raw = buf.subarray(start, Math.min(buf.length, start + Math.min(en.compressedSize, en.method === 0 ? 64 : 4096)));
    let head: Buffer;
    if (en.method === 0) head = raw;
    else {
      try {
        head = zlib.inflateRawSync(raw, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 8 << 20 });
      } catch {
        continue; // a broken stream is for the engine to refuse, not a bomb
      }
    }
    if (looksXml(head)) out.push(en);
  }
  return out;
}

/**
 * checkInflated, on a file in memory: each deflated part inflated at most one byte past what it
 * declares; with `depth`, the tables nested in each part counted too (TableNesting).
 */
async function checkInflatedIn(buf: Buffer, entries: ZipEntry[], depth = false): Promise<void> {
  for (const en of entries) {
    if ((en.method !== 8 && en.method !== 0) || en.compressedSize === 0) continue;
    const start = dataStartIn(buf, en);
    if (start === null) continue;
    const raw = buf.subarray(start, Math.min(buf.length, start + en.compressedSize));
    if (en.method === 0) {
      if (depth) for (const reader of xmlReaders(en.name)) reader.feed(raw);
      continue;
    }
    // A large part on the guard's thread (zip-part-check.ts); "broken" is for the engine to refuse.
    const judged = en.uncompressedSize >= OFF_THREAD_BYTES ? await checkPartOffThread(raw, en.uncompressedSize, en.name, depth) : checkPart(raw, en.uncompressedSize, en.name, depth);
    if (judged === "over") throw sizeMismatch(en);
  }
}

/** The parts of a zip that hold XML (by their first bytes); null when the file is not a zip. */
export async function zipXmlParts(file: string): Promise<ZipEntry[] | null> {
  const entries = await readDirectory(file);
  if (!entries) return null;
  const fh = await open(file, "r");
  try {
    return await xmlParts(fh, entries);
  } finally {
    await fh.close();
  }
}

/** The XML budget of a package, on the declared sizes of its XML parts. */
function checkXml(xml: ZipEntry[], limits: XmlLimits): void {
  let inflated = 0;
  let compressed = 0;
  for (const en of xml) {
    const ratio = en.uncompressedSize / Math.max(en.compressedSize, 1);
    if (en.uncompressedSize >= limits.xmlRatioFloorBytes && ratio > limits.maxXmlRatio) {
      throw new ServiceError(
        "corrupt_source",
        `Tệp nguồn chứa phần XML ${en.name} nén ${mb(en.uncompressedSize)} vào ${mb(en.compressedSize)} (tỉ lệ ${Math.round(ratio)}:1, tối đa ${limits.maxXmlRatio}:1): tài liệu thật không nén được như vậy, tệp này sẽ làm bộ xử lý tài liệu tốn hàng phút và hàng GB bộ nhớ; ${RESAVE}.`,
        { reason: "xml_ratio", part: en.name, compressed: en.compressedSize, uncompressed: en.uncompressedSize, limit_ratio: limits.maxXmlRatio },
      );
    }
    inflated += en.uncompressedSize;
    compressed += en.compressedSize;
  }
  // The same XML spread over many parts, each under the floor, is judged as a whole.
  const ratio = inflated / Math.max(compressed, 1);
  if (inflated >= limits.xmlRatioFloorBytes && ratio > limits.maxXmlRatio) {
    throw new ServiceError(
      "corrupt_source",
      `Tệp nguồn chứa ${xml.length} phần XML nén tổng cộng ${mb(inflated)} vào ${mb(compressed)} (tỉ lệ ${Math.round(ratio)}:1, tối đa ${limits.maxXmlRatio}:1): tài liệu thật không nén được như vậy; ${RESAVE}.`,
      { reason: "xml_package_ratio", parts: xml.length, compressed, uncompressed: inflated, limit_ratio: limits.maxXmlRatio },
    );
  }
  if (inflated > limits.maxXmlBytes) {
    throw new ServiceError(
      "corrupt_source",
      `Các phần XML của tệp nguồn khai báo tổng cộng ${mb(inflated)} khi giải nén, vượt giới hạn ${mb(limits.maxXmlBytes)} cho một tài liệu: hãy chia tài liệu thành nhiều tệp nhỏ hơn rồi gửi từng tệp.`,
      { reason: "xml_total", uncompressed: inflated, limit_bytes: limits.maxXmlBytes },
    );
  }
}

/**
 * The parts that hold XML, by their first bytes (a byte-order mark, then optional whitespace and
 * "<"), whatever their names: only the first compressed kilobytes of each part are inflated.
 */
async function xmlParts(fh: FileHandle, entries: ZipEntry[]): Promise<ZipEntry[]> {
  const out: ZipEntry[] = [];
  for (const en of entries) {
    if (en.uncompressedSize === 0 || (en.method !== 0 && en.method !== 8)) continue;
    if (XML_NAMED.test(en.name)) {
      out.push(en);
      continue;
    }
    const start = await dataStart(fh, en);
    if (start === null) continue;
    const len = Math.min(en.compressedSize, en.method === 0 ? 64 : 4096);
    const raw = Buffer.alloc(len);
    const { bytesRead } = await fh.read(raw, 0, len, start);
    let head: Buffer;
    if (en.method === 0) head = raw.subarray(0, bytesRead);
    else {
      try {
        head = zlib.inflateRawSync(raw.subarray(0, bytesRead), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 8 << 20 });
      } catch {
        continue; // a broken stream is for the engine to refuse, not a bomb
      }
    }
    if (looksXml(head)) out.push(en);
  }
  return out;
}

/**
 * A part whose name says XML is taken as XML without a look at its bytes (each look inflates a
 * head: ~27 µs a part, most of a small deck's check); every other part is looked at, so XML under
 * another name (a disguised part a relationship points to) is still found. Taking a non-XML part
 * named .xml as XML only costs its full inflation check.
 */
const XML_NAMED = /\.(xml|rels|vml)$/i;

function looksXml(head: Buffer): boolean {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3; // UTF-8
  else if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true; // UTF-16 text
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  return head[i] === 0x3c; // "<"
}

/** Where a part's data begins (after its local header), or null when the local header is not there. */
async function dataStart(fh: FileHandle, en: ZipEntry): Promise<number | null> {
  const loc = Buffer.alloc(30);
  if ((await fh.read(loc, 0, 30, en.localOffset)).bytesRead !== 30 || loc.readUInt32LE(0) !== LOC_SIG) return null;
  return en.localOffset + 30 + loc.readUInt16LE(26) + loc.readUInt16LE(28);
}

/**
 * For a zip inflated in this process (templates): every deflated part is inflated as a stream
 * and the file refused (422 corrupt_source, zip_size_mismatch) at the first byte past what the
 * part declares. Memory stays at one chunk; time is bounded by the declared sizes, which
 * checkZipContainer has already bounded.
 */
export async function checkInflatedSizes(file: string): Promise<void> {
  const entries = await readDirectory(file).catch(() => null);
  if (entries) await checkInflated(file, entries);
}

async function checkInflated(file: string, entries: ZipEntry[], depth = false): Promise<void> {
  const fh = await open(file, "r");
  const deflated: { en: ZipEntry; start: number }[] = [];
  try {
    for (const en of entries) {
      if ((en.method !== 8 && !(depth && en.method === 0)) || en.compressedSize === 0) continue;
      const start = await dataStart(fh, en);
      if (start === null) continue;
      if (en.method === 8) deflated.push({ en, start });
      else {
        // A stored XML part (an SVG picture may be stored) is read as it is: the XML budget bounds it.
        const raw = Buffer.alloc(en.compressedSize);
        const { bytesRead } = await fh.read(raw, 0, raw.length, start);
        for (const reader of xmlReaders(en.name)) reader.feed(raw.subarray(0, bytesRead));
      }
    }
  } finally {
    await fh.close();
  }
  for (const { en, start } of deflated) {
    const readers = depth ? xmlReaders(en.name) : [];
    if ((await inflatedPast(file, start, en.compressedSize, en.uncompressedSize, readers)) === "over") {
      throw sizeMismatch(en);
    }
  }
}

/**
 * Inflates compressed bytes [start, start+length) with native zlib, stopping past `declared`;
 * what it inflates goes through `readers` too (which reject with their refusal).
 */
function inflatedPast(file: string, start: number, length: number, declared: number, readers: { feed(chunk: Buffer): void }[] = []): Promise<"over" | "within"> {
  return new Promise((resolve, reject) => {
    let produced = 0;
    const source = createReadStream(file, { start, end: start + length - 1, highWaterMark: 64 * 1024 });
    const inflate = zlib.createInflateRaw({ chunkSize: 64 * 1024 });
    const done = (outcome: "over" | "within") => {
      source.destroy();
      inflate.destroy();
      resolve(outcome);
    };
    inflate.on("data", (chunk: Buffer) => {
      produced += chunk.length;
      if (produced > declared) return done("over");
      try {
        for (const reader of readers) reader.feed(chunk);
      } catch (e) {
        source.destroy();
        inflate.destroy();
        reject(e);
      }
    });
    inflate.on("end", () => done("within"));
    // A broken stream is for the reader (the engine, PizZip) to refuse, not a bomb.
    inflate.on("error", () => done("within"));
    source.on("error", () => done("within"));
    source.pipe(inflate);
  });
}
