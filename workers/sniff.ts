// What a file is from its first bytes, and text decoded whatever its encoding (BOMs, UTF-16
// without a BOM, legacy single-byte code pages).

export type Sniff = "empty" | "zip" | "zip-empty" | "ole" | "rtf" | "pdf" | "xml" | "html" | "text" | "binary";

export function sniff(head: Uint8Array): Sniff {
  if (head.length === 0) return "empty";
  const b = head;
  if (b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04) return "zip";
  if (b[0] === 0x50 && b[1] === 0x4b && (b[2] === 0x05 || b[2] === 0x07)) return "zip-empty";
  if (b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0) return "ole";
  if (b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46) return "pdf";
  const utf16 = (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff) || looksUtf16(b) !== null;
  const text = utf16 ? decodeText(b).text : new TextDecoder("latin1").decode(b.subarray(0, 4096));
  const start = text.replace(/^\uFEFF/, "").trimStart().slice(0, 512).toLowerCase();
  if (start.startsWith("{\\rtf")) return "rtf";
  if (start.startsWith("<!doctype html") || start.startsWith("<html") || /^<(head|body|table|meta)\b/.test(start)) return "html";
  if (start.startsWith("<?xml") || start.startsWith("<office:") || start.startsWith("<")) return "xml";
  if (!utf16) {
    let ctrl = 0;
    const n = Math.min(b.length, 8192);
    for (let i = 0; i < n; i++) {
      const c = b[i]!;
      if (c === 0) return "binary";
      if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x1a) ctrl++;
    }
    if (ctrl > n * 0.01) return "binary";
  }
  return "text";
}

function looksUtf16(b: Uint8Array): "utf-16le" | "utf-16be" | null {
  const n = Math.min(b.length, 4096) & ~1;
  if (n < 4) return null;
  let zeroEven = 0, zeroOdd = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) zeroEven++;
    if (b[i + 1] === 0) zeroOdd++;
  }
  const half = n / 2;
  if (zeroOdd > half * 0.3 && zeroEven < half * 0.02) return "utf-16le";
  if (zeroEven > half * 0.3 && zeroOdd < half * 0.02) return "utf-16be";
  return null;
}

const LEGACY_SINGLE_BYTE = ["windows-1252", "windows-1251", "koi8-r", "ibm866", "windows-1250"] as const;

/**
 * Decodes text of unknown encoding: BOM (UTF-8/UTF-16), BOM-less UTF-16, strict UTF-8, then
 * Shift_JIS when it decodes cleanly into kana/kanji, then the single-byte code page whose
 * decoding looks most like natural text (letters, mostly lower case, no stray symbols).
 */
export function decodeText(buf: Uint8Array): { text: string; encoding: string; bom: boolean } {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf)
    return { text: new TextDecoder("utf-8").decode(buf.subarray(3)), encoding: "utf-8", bom: true };
  if (buf[0] === 0xff && buf[1] === 0xfe)
    return { text: new TextDecoder("utf-16le").decode(buf.subarray(2)), encoding: "utf-16le", bom: true };
  if (buf[0] === 0xfe && buf[1] === 0xff)
    return { text: new TextDecoder("utf-16be").decode(buf.subarray(2)), encoding: "utf-16be", bom: true };
  const u16 = looksUtf16(buf);
  if (u16) return { text: new TextDecoder(u16).decode(buf), encoding: u16, bom: false };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(buf), encoding: "utf-8", bom: false };
  } catch {
    // not UTF-8
  }
  try {
    const sj = new TextDecoder("shift_jis", { fatal: true }).decode(buf);
    let nonAscii = 0, cjk = 0;
    for (const ch of sj) {
      const c = ch.codePointAt(0)!;
      if (c < 0x80) continue;
      nonAscii++;
      if ((c >= 0x3000 && c <= 0x30ff) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xff01 && c <= 0xff5e)) cjk++;
    }
    if (nonAscii > 0 && cjk / nonAscii >= 0.8) return { text: sj, encoding: "shift_jis", bom: false };
  } catch {
    // not Shift_JIS
  }
  let best = { text: "", encoding: "windows-1252", score: -Infinity };
  for (const enc of LEGACY_SINGLE_BYTE) {
    const t = new TextDecoder(enc).decode(buf);
    let high = 0, letters = 0, lower = 0;
    for (const ch of t) {
      if (ch.charCodeAt(0) < 0x80) continue;
      high++;
      if (/\p{L}/u.test(ch)) {
        letters++;
        if (/\p{Ll}/u.test(ch)) lower++;
      }
    }
    let mixed = 0, words = 0;
    for (const w of t.match(/\p{L}{2,}/gu) ?? []) {
      if (!/[^\x00-\x7f]/.test(w)) continue;
      words++;
      const latin = /[A-Za-z\u00c0-\u024f]/.test(w), cyr = /[\u0400-\u04ff]/.test(w);
      const casing = w === w.toLowerCase() || w === w.toUpperCase() || w.slice(1) === w.slice(1).toLowerCase();
      if ((latin && cyr) || !casing) mixed++;
    }
    const score = high === 0 ? 0 : (2 * letters) / high + lower / high - (words ? (2 * mixed) / words : 0);
    if (score > best.score + 1e-9) best = { text: t, encoding: enc, score };
  }
  return { text: best.text, encoding: best.encoding, bom: false };
}
