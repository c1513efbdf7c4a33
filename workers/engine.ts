// The office engine: one LibreOfficeKit instance per process (see lok.ts), driven synchronously.
//
// Every operation loads a private copy of the source (the parent already put it in a per-job
// directory), works on it and destroys it. Temporary files go next to the input, in that same
// job directory, and are removed before the operation returns.
//
// Traps handled here (each measured on LibreOffice 7.4.7, Debian 12):
// - saveAs() takes an extension from LOK's own map (pdf, docx, xlsx, txt…), not a filter name:
//   "MS Word 2007 XML" as format fails. formats.ts stays the authority on which pairs are
//   possible (exportFilterFor); the extension is what LOK gets.
// - LOK's saveAs re-joins the filter options with ", " (comma + space): keyword tokens after the
//   first one break ("UTF8,LF" exports CR line ends). Text export therefore uses just "UTF8".
// - CSV (and tab text in a .xls) goes to Calc's text-import dialog, which under LOK waits forever
//   whenever an office callback is registered, whatever the filter options (Batch=true makes it
//   fail fast only while no callback is registered). CSV/TSV sources are therefore parsed here
//   (papaparse, encoding sniffed) and handed to LibreOffice as a flat ODS (.fods) it loads
//   without any dialog.
// - Loads happen in two phases: first with NO office callback and Batch=true (any dialog is
//   cancelled instead of waited for); only when that fails on an OLE2/ZIP container (the only
//   kinds that can be encrypted) is the file loaded again with the password callback registered.
//   The password callback is answered re-entrantly from a non-threadsafe JSCallback (lok.ts).
// - LOK resets the macro security level to 1 on every load unless the load options say
//   otherwise: every load passes MacroSecurityLevel=3; MacroExecutionMode is NEVER_EXECUTE by
//   LOK default (no EnableMacrosExecution option). The profile config pins the rest.

import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import Papa from "papaparse";
import { unzipSync, strFromU8 } from "fflate";
import { XMLParser } from "fast-xml-parser";
import {
  LokOffice,
  LokDocument,
  fileUrl,
  LO_PROGRAM_DIR,
  LOK_DOCTYPE,
  LOK_FEATURE_DOCUMENT_PASSWORD,
  LOK_FEATURE_DOCUMENT_PASSWORD_TO_MODIFY,
  LOK_CALLBACK_DOCUMENT_PASSWORD,
  LOK_CALLBACK_DOCUMENT_PASSWORD_TO_MODIFY,
  LOK_CALLBACK_ERROR,
} from "./lok";
import { exportFilterFor, formatOf, type Family } from "./formats";
import { encodeTilePng } from "./png";
import type {
  ConvertResult,
  CoreInfo,
  MetaResult,
  TextResult,
  ThumbnailResult,
  WorkerErrorCode,
  WorkerRequest,
} from "./protocol";

export class EngineError extends Error {
  constructor(
    readonly code: WorkerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type LogFn = (level: "debug" | "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) => void;

/** Options given to every documentLoadWithOptions. Batch=true: dialogs are cancelled, not awaited. */
export const LOAD_OPTIONS = "Batch=true,MacroSecurityLevel=3";

// ---------------------------------------------------------------------------------------------
// Profile configuration

/** [path, property, type, value] written into the profile's registrymodifications.xcu before start. */
export const PROFILE_SETTINGS: ReadonlyArray<readonly [string, string, "boolean" | "int", string]> = [
  // Macros: highest security level, execution disabled altogether.
  ["/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"],
  ["/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "boolean", "true"],
  // Do not fetch links referred to by untrusted documents (remote images etc.).
  ["/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "boolean", "true"],
  // Link updates on load: never. Writer: 0 never, 1 on request (default), 2 always.
  // Calc (ScLkUpdMode): 0 always, 1 never, 2 on request (default).
  ["/org.openoffice.Office.Writer/Content/Update", "Link", "int", "0"],
  ["/org.openoffice.Office.Calc/Content/Update", "Link", "int", "1"],
  // Formulas are not recalculated on load (1 = never; 2 would prompt).
  ["/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "int", "1"],
  ["/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "int", "1"],
  // No lock files (.~lock.*#) at all, no first-start wizard, tips, crash reporter, update checks,
  // autosave or recovery data.
  ["/org.openoffice.Office.Common/Misc", "UseLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentOOoLockFile", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentSystemFileLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "FirstRun", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "CrashReport", "boolean", "false"],
  ["/org.openoffice.Setup/Office", "ooSetupInstCompleted", "boolean", "true"],
  ["/org.openoffice.Office.Update/Update", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/AutoSave", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "AutoSave", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "CreateBackup", "boolean", "false"],
];

/**
 * The environment LibreOffice starts with: everything it writes stays inside this engine's profile.
 *
 * Why UNO_SHARED_PACKAGES_CACHE: LibreOffice keeps "shared" extensions (installed for every user
 * of the machine) in <install>/share/uno_packages/cache, on Debian /var/spool/libreoffice/…, and
 * every start checks it. Run as root (a fresh machine's `npm run start`) that directory is
 * writable, so the first engine ever started on the machine creates uno_packages/ in it, by a
 * check-then-create that throws (WrappedTargetRuntimeException, the process exits 1) when another
 * engine created the folder in between. Engines start together (the pool's workers, the editing
 * server's kits), so on a new machine one of them died before ready (`worker_exited …
 * ever_ready:false`) and only its restart worked, the folder existing by then. Reproduced with an
 * empty shared cache in a private mount namespace and mkdir delayed by strace: 2 of 3 engines
 * exited. Each engine now has its own (empty) shared repository inside its profile: nothing is
 * shared between engines, and the machine's LibreOffice installation is never written.
 */
export function engineEnvironment(profileDir: string, tempDir: string): Record<string, string> {
  return { TMPDIR: tempDir, UNO_SHARED_PACKAGES_CACHE: fileUrl(join(profileDir, "shared-extensions")) };
}

function xcuItem(path: string, name: string, value: string): string {
  return `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`;
}

/**
 * Writes (or merges into) <profileDir>/user/registrymodifications.xcu. Existing entries written by
 * LibreOffice itself are kept (so a restart on an existing profile stays fast); ours replace any
 * entry for the same path and property.
 */
export function writeProfileConfig(profileDir: string): string {
  const userDir = join(profileDir, "user");
  mkdirSync(userDir, { recursive: true });
  const file = join(userDir, "registrymodifications.xcu");
  const ours = new Set(PROFILE_SETTINGS.map(([p, n]) => `${p}\u0000${n}`));
  let kept: string[] = [];
  if (existsSync(file)) {
    const old = readFileSync(file, "utf8");
    kept = old
      .split("\n")
      .filter((l) => l.startsWith("<item "))
      .filter((l) => {
        const m = /^<item oor:path="([^"]*)"><prop oor:name="([^"]*)"/.exec(l);
        return !(m && ours.has(`${m[1]}\u0000${m[2]}`));
      });
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n` +
    [...kept, ...PROFILE_SETTINGS.map(([p, n, , v]) => xcuItem(p, n, v))].join("\n") +
    `\n</oor:items>\n`;
  writeFileSync(file, xml);
  return file;
}

// ---------------------------------------------------------------------------------------------
// Content sniffing and text decoding

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

// ---------------------------------------------------------------------------------------------
// CSV → flat ODS

const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function xmlEscape(s: string): string {
  return s.replace(XML_INVALID, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** One ODF paragraph's inline content: tabs and runs of spaces made explicit (ODF collapses white space). */
function odfInline(line: string): string {
  let out = "";
  const parts = line.split(/( +|\t)/);
  parts.forEach((p, i) => {
    if (p === "") return;
    if (p === "\t") out += "<text:tab/>";
    else if (/^ +$/.test(p)) {
      const atEdge = i === 0 || i === parts.length - 1 || (i === 1 && parts[0] === "");
      if (p.length === 1 && !atEdge) out += " ";
      else out += `<text:s text:c="${p.length}"/>`;
    } else out += xmlEscape(p);
  });
  return out;
}

const PLAIN_NUMBER = /^[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$|^[+-]?\.\d+$/;

function cellXml(v: string): string {
  if (v === "") return "<table:table-cell/>";
  const t = v.trim();
  if (PLAIN_NUMBER.test(t) && t.replace(/[^0-9]/g, "").length <= 15 && Number.isFinite(Number(t))) {
    return `<table:table-cell office:value-type="float" office:value="${Number(t)}"><text:p>${xmlEscape(t)}</text:p></table:table-cell>`;
  }
  const paras = v.split(/\r\n|\r|\n/).map((l) => `<text:p>${odfInline(l)}</text:p>`).join("");
  return `<table:table-cell office:value-type="string">${paras}</table:table-cell>`;
}

export function sheetNameFrom(file: string): string {
  const n = basename(file, extname(file)).replace(/[\[\]*?:/\\']/g, "_").trim().slice(0, 31);
  return n || "Sheet1";
}

/**
 * Parses CSV/TSV text (delimiter sniffed unless given) into a flat ODS document. Values are
 * typed conservatively: plain decimal numbers become numbers, everything else (dates, "007",
 * "=SUM(…)") stays text; formulas are never evaluated.
 */
export function csvToFods(text: string, sheetName: string, delimiter?: string): { xml: string; rows: number; cols: number; delimiter: string } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), {
    delimiter: delimiter ?? "",
    delimitersToGuess: [",", ";", "\t", "|"],
    quoteChar: '"',
    header: false,
    skipEmptyLines: false,
  });
  const rows = parsed.data;
  while (rows.length && rows[rows.length - 1]!.every((c) => c === "")) rows.pop();
  let cols = 0;
  const body: string[] = [];
  for (const r of rows) {
    let last = r.length;
    while (last > 0 && r[last - 1] === "") last--;
    cols = Math.max(cols, last);
    body.push(`<table:table-row>${r.slice(0, Math.max(last, 1)).map(cellXml).join("")}</table:table-row>`);
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
    `xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
    `xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
    `office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">` +
    `<office:body><office:spreadsheet><table:table table:name="${xmlEscape(sheetName)}">` +
    `<table:table-column table:number-columns-repeated="${Math.max(cols, 1)}"/>` +
    (body.length ? body.join("\n") : "<table:table-row><table:table-cell/></table:table-row>") +
    `</table:table></office:spreadsheet></office:body></office:document>\n`;
  return { xml, rows: rows.length, cols, delimiter: parsed.meta.delimiter };
}

// ---------------------------------------------------------------------------------------------
// Metadata and ODF text helpers

const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, attributeNamePrefix: "@_", parseTagValue: false, trimValues: true });

function textOf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return textOf(v[0]);
  if (typeof v === "object") return textOf((v as Record<string, unknown>)["#text"]);
  const s = String(v).trim();
  return s === "" ? null : s;
}

function allTexts(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.flatMap(allTexts);
  const t = textOf(v);
  return t ? [t] : [];
}

function isoDate(v: unknown): string | null {
  let s = textOf(v);
  if (!s) return null;
  s = s.replace(/(\.\d{3})\d+/, "$1");
  if (!/(Z|[+-]\d\d:?\d\d)$/.test(s) && /T\d\d:\d\d/.test(s)) s += "Z";
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1602) return null;
  return d.toISOString();
}

function intOrNull(v: unknown): number | null {
  const s = textOf(v);
  if (s === null || !/^\d+$/.test(s)) return null;
  return Number(s);
}

function splitKeywords(list: string[]): string[] {
  return [...new Set(list.flatMap((k) => k.split(/[,;]/)).map((k) => k.trim()).filter(Boolean))];
}

/** Metadata read from a package's own XML: MetaResult's fields, where the page count may be unknown. */
type CoreProps = Omit<MetaResult, "family" | "pages"> & { pages: number | null };

/** ODF meta.xml (a package's or the engine's export) → properties and statistics. */
export function parseOdfMeta(metaXml: string): CoreProps | null {
  const doc = xml.parse(metaXml);
  const m = doc?.["document-meta"]?.meta ?? doc?.document?.meta;
  if (!m) return null;
  const st = m["document-statistic"] ?? {};
  return {
    title: textOf(m.title),
    subject: textOf(m.subject),
    author: textOf(m["initial-creator"]) ?? textOf(m.creator),
    keywords: splitKeywords(allTexts(m.keyword)),
    description: textOf(m.description),
    created: isoDate(m["creation-date"]),
    modified: isoDate(m.date),
    pages: intOrNull(st["@_page-count"]),
    words: intOrNull(st["@_word-count"]),
    characters: intOrNull(st["@_character-count"]),
  };
}

/** Reads metadata straight from an OOXML (docProps/core.xml, app.xml) or ODF (meta.xml) package. */
export function readPackageMeta(path: string): CoreProps | null {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(readFileSync(path), {
      filter: (f) => f.name === "meta.xml" || f.name === "docProps/core.xml" || f.name === "docProps/app.xml",
    });
  } catch {
    return null;
  }
  const asXml = (u?: Uint8Array) => {
    if (!u) return null;
    const s = strFromU8(u);
    return s.trimStart().startsWith("<") ? s : null; // encrypted parts are binary
  };
  const meta = asXml(files["meta.xml"]);
  if (meta) return parseOdfMeta(meta);
  const core = asXml(files["docProps/core.xml"]);
  if (!core) return null;
  const c = xml.parse(core)?.coreProperties;
  if (!c) return null;
  const app = asXml(files["docProps/app.xml"]);
  const a = app ? xml.parse(app)?.Properties ?? {} : {};
  return {
    title: textOf(c.title),
    subject: textOf(c.subject),
    author: textOf(c.creator),
    keywords: splitKeywords(allTexts(c.keywords)),
    description: textOf(c.description),
    created: isoDate(c.created),
    modified: isoDate(c.modified),
    pages: intOrNull(a.Pages) ?? intOrNull(a.Slides),
    words: intOrNull(a.Words),
    characters: intOrNull(a.Characters),
  };
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, e: string) => {
    if (e === "lt") return "<";
    if (e === "gt") return ">";
    if (e === "amp") return "&";
    if (e === "quot") return '"';
    if (e === "apos") return "'";
    const cp = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return String.fromCodePoint(cp);
  });
}

/** Text of each draw:page of an ODF content.xml (presentation or drawing), speaker notes excluded. */
export function odfPagesText(contentXml: string): string[] {
  const pages: string[] = [];
  let cur: string[] | null = null;
  let line = "";
  let skip = 0;
  const re = /<(\/?)([A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+)([^>]*?)(\/?)>|([^<]+)/g;
  const SKIP = new Set(["presentation:notes", "office:annotation", "svg:title", "svg:desc", "text:tracked-changes"]);
  for (let m: RegExpExecArray | null; (m = re.exec(contentXml)); ) {
    const [, close, name, attrs, selfClose, txt] = m;
    if (txt !== undefined) {
      if (cur && !skip) line += decodeEntities(txt);
      continue;
    }
    if (SKIP.has(name!)) {
      if (selfClose) continue;
      skip += close ? -1 : 1;
      if (skip < 0) skip = 0;
      continue;
    }
    if (name === "draw:page") {
      if (!close) cur = [];
      if (close || selfClose) {
        if (cur) pages.push(cur.join("\n").trim());
        cur = null;
      }
      continue;
    }
    if (!cur || skip) continue;
    if (name === "text:s" && !close) {
      const c = /text:c="(\d+)"/.exec(attrs ?? "");
      line += " ".repeat(c ? Number(c[1]) : 1);
    } else if (name === "text:tab" && !close) line += "\t";
    else if (name === "text:line-break" && !close) line += "\n";
    else if ((name === "text:p" || name === "text:h") && (close || selfClose)) {
      cur.push(line.replace(/\s+$/, ""));
      line = "";
    }
  }
  return pages;
}

// ---------------------------------------------------------------------------------------------
// The engine

const FAMILY_OF_DOCTYPE: Record<number, Family | undefined> = {
  [LOK_DOCTYPE.TEXT]: "text",
  [LOK_DOCTYPE.SPREADSHEET]: "spreadsheet",
  [LOK_DOCTYPE.PRESENTATION]: "presentation",
};

/** Extensions whose files must be ZIP packages (OOXML may also be an OLE2 container when encrypted). */
const ZIP_EXTS = new Set(["docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "pptx", "pptm", "potx", "ppsx", "odt", "ott", "ods", "ots", "odp", "otp", "odg"]);
const OOXML_EXTS = new Set(["docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "pptx", "pptm", "potx", "ppsx"]);

/** LOK saveAs options per target where formats.ts' options do not survive LOK's option re-joining. */
const LOK_SAVE_OPTIONS: Record<string, string> = { txt: "UTF8" };

interface Loaded {
  doc: LokDocument;
  doctype: number;
  family: Family;
  /** The document is a drawing (PDF import, odg…): only PDF and thumbnails make sense. */
  drawing: boolean;
  input: string;
  ext: string;
  kind: Sniff;
  temps: string[];
}

interface PasswordState {
  url: string;
  password: string | null;
  asked: number;
  refused: boolean;
}

let tmpCounter = 0;

export class Engine {
  office: LokOffice | null = null;
  core: CoreInfo = { name: "LibreOffice", version: "", source: LO_PROGRAM_DIR };
  startMs = 0;
  profileDir = "";
  private pw: PasswordState | null = null;
  /** The office callback (needed to answer password requests) could be set up. */
  passwordCallback = false;
  private lastLokError: string | null = null;

  constructor(private readonly log: LogFn = () => {}) {}

  /** Starts LibreOffice with its own profile directory (created if missing). Once per process. */
  start(profileDir: string): void {
    if (this.office) throw new Error("engine already started");
    profileDir = resolve(profileDir);
    this.profileDir = profileDir;
    mkdirSync(profileDir, { recursive: true });
    writeProfileConfig(profileDir);
    // LibreOffice's own temporary files (/tmp/lu*.tmp) are never cleaned when the process ends
    // with exit() instead of the (hang-prone) destroy(): keep them inside this worker's profile
    // and wipe what the previous process of this slot left behind.
    const tempDir = join(profileDir, "tmp");
    rmSync(tempDir, { recursive: true, force: true });
    mkdirSync(tempDir, { recursive: true });
    const pkg = debianPackageVersion();
    const t0 = performance.now();
    const office = new LokOffice(fileUrl(profileDir), LO_PROGRAM_DIR, engineEnvironment(profileDir, tempDir));
    this.startMs = Math.round(performance.now() - t0);
    this.office = office;
    office.setOptionalFeatures(LOK_FEATURE_DOCUMENT_PASSWORD | LOK_FEATURE_DOCUMENT_PASSWORD_TO_MODIFY);
    // Build the password callback now (it compiles a small native trampoline), so a broken
    // toolchain shows at start, not in the middle of a job; it is registered only during loads.
    try {
      office.registerCallback(() => {});
      office.unregisterCallback();
      this.passwordCallback = true;
    } catch (err) {
      this.passwordCallback = false;
      this.log("warn", "engine_password_callback_unavailable", { message: String((err as Error)?.message ?? err) });
    }
    let name = "LibreOffice", version = "";
    try {
      const vi = JSON.parse(office.getVersionInfo() ?? "{}");
      name = vi.ProductName ?? name;
      version = `${vi.ProductVersion ?? ""}${vi.ProductExtension ?? ""}`;
    } catch {
      // keep defaults
    }
    this.core = { name, version, source: pkg ? `debian:libreoffice-core ${pkg} (${LO_PROGRAM_DIR})` : LO_PROGRAM_DIR };
  }

  private requireOffice(): LokOffice {
    if (!this.office) throw new EngineError("internal", "engine not started");
    return this.office;
  }

  /** Dispatches one protocol request. Throws EngineError. */
  handle(req: WorkerRequest): ConvertResult | TextResult | MetaResult | ThumbnailResult {
    switch (req.op) {
      case "convert":
        return this.convert(req.input, req.output, req.to, req.password);
      case "text":
        return this.text(req.input, req.password);
      case "meta":
        return this.meta(req.input, req.password);
      case "thumbnail":
        return this.thumbnail(req.input, req.output, req.width, req.password);
      default:
        throw new EngineError("internal", `unknown op ${(req as { op?: unknown }).op}`);
    }
  }

  convert(input: string, output: string, to: string, password?: string): ConvertResult {
    const target = String(to).toLowerCase().replace(/^\./, "");
    return this.withDocument(input, password, (l) => {
      let format: string, options: string;
      if (l.drawing) {
        if (target !== "pdf") throw new EngineError("unsupported_format", `a drawing converts to pdf only, not ${target}`);
        format = "pdf";
        options = "";
      } else {
        const exp = exportFilterFor(l.family, target);
        if (!exp) throw new EngineError("unsupported_format", `${l.family} document cannot become ${target}`);
        format = target;
        options = LOK_SAVE_OPTIONS[target] ?? exp.options;
      }
      rmSync(output, { force: true });
      if (!l.doc.saveAs(fileUrl(output), format, options) || !existsSync(output)) {
        throw new EngineError("internal", `export to ${target} failed: ${this.office!.getError() || "no detail"}`);
      }
      if (target === "txt") stripUtf8Bom(output);
      return { family: l.family, pages: this.pages(l) };
    });
  }

  text(input: string, password?: string): TextResult {
    return this.withDocument(input, password, (l) => {
      let text: string;
      if (l.family === "text" && !l.drawing) text = this.writerText(l);
      else if (l.family === "spreadsheet") text = this.sheetsText(l);
      else text = this.slidesText(l);
      return { family: l.family, text, pages: this.pages(l) };
    });
  }

  meta(input: string, password?: string): MetaResult {
    return this.withDocument(input, password, (l) => {
      const pkg = l.kind === "zip" && (ZIP_EXTS.has(l.ext) || l.ext === "") ? readPackageMeta(l.input) : null;
      const needEngine = (l.family === "text" && !l.drawing) || !pkg;
      const eng = needEngine ? this.engineMeta(l) : null;
      const base = pkg ?? eng;
      const pages = this.pages(l);
      return {
        family: l.family,
        title: base?.title ?? null,
        subject: base?.subject ?? null,
        author: base?.author ?? null,
        keywords: base?.keywords ?? [],
        description: base?.description ?? null,
        created: base?.created ?? null,
        modified: base?.modified ?? null,
        pages,
        words: l.family === "text" ? (eng?.words ?? pkg?.words ?? null) : null,
        characters: l.family === "text" ? (eng?.characters ?? pkg?.characters ?? null) : null,
      };
    });
  }

  thumbnail(input: string, output: string, width: number, password?: string): ThumbnailResult {
    if (!Number.isInteger(width) || width < 1 || width > 4096) throw new EngineError("internal", `invalid thumbnail width ${width}`);
    return this.withDocument(input, password, (l) => {
      const d = l.doc;
      d.initializeForRendering("");
      let x = 0, y = 0, w: number, h: number;
      if (l.family === "text" && !l.drawing) {
        const first = (d.getPartPageRectangles() ?? "").split(";")[0]!.split(",").map((s) => Number(s.trim()));
        if (first.length === 4 && first.every(Number.isFinite) && first[2]! > 0 && first[3]! > 0) [x, y, w, h] = first as [number, number, number, number];
        else ({ width: w, height: h } = d.getDocumentSize());
      } else {
        if (d.getParts() > 0 && d.getPart() !== 0) d.setPart(0);
        ({ width: w, height: h } = d.getDocumentSize());
        if (l.family === "spreadsheet") {
          // The "first page" of a sheet: its top-left A4-portrait-sized area (twips).
          w = Math.min(w, 11906);
          h = Math.min(h, Math.round((w * 16838) / 11906));
        }
      }
      if (!(w > 0 && h > 0)) throw new EngineError("internal", "document has no renderable area");
      const height = Math.max(1, Math.min(8192, Math.round((width * h) / w)));
      const tile = new Uint8Array(width * height * 4);
      d.paintTile(tile, width, height, x, y, w, h);
      const png = encodeTilePng(tile, width, height, d.getTileMode());
      writeFileSync(output, png);
      return { family: l.family, width, height, pages: this.pages(l) };
    });
  }

  // -------------------------------------------------------------------------------------------

  private pages(l: Loaded): number {
    return Math.max(0, l.doc.getParts());
  }

  private tempPath(near: string, ext: string): string {
    return join(dirname(near), `.lok-${process.pid}-${++tmpCounter}.${ext}`);
  }

  private writerText(l: Loaded): string {
    const tmp = this.tempPath(l.input, "txt");
    l.temps.push(tmp);
    if (!l.doc.saveAs(fileUrl(tmp), "txt", "UTF8")) throw new EngineError("internal", "text export failed");
    return readFileSync(tmp, "utf8").replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  }

  private sheetsText(l: Loaded): string {
    const d = l.doc;
    d.initializeForRendering("");
    const n = d.getParts();
    const original = d.getPart();
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      if (d.getPart() !== i) d.setPart(i);
      const tmp = this.tempPath(l.input, "csv");
      l.temps.push(tmp);
      // tab-separated, '"' quoted, UTF-8 (76), from row 1
      if (!d.saveAs(fileUrl(tmp), "csv", "9,34,76,1")) throw new EngineError("internal", `sheet ${i} export failed`);
      const rows = Papa.parse<string[]>(readFileSync(tmp, "utf8").replace(/^\uFEFF/, ""), { delimiter: "\t", quoteChar: '"' }).data;
      const lines = rows.map((r) => {
        let last = r.length;
        while (last > 0 && r[last - 1] === "") last--;
        return r.slice(0, last).map((c) => c.replace(/\s*[\r\n]+\s*/g, " ")).join("\t");
      });
      while (lines.length && lines[lines.length - 1] === "") lines.pop();
      const name = d.getPartName(i) ?? `Sheet${i + 1}`;
      out.push([name, ...lines].join("\n"));
    }
    if (n > 0 && d.getPart() !== original) d.setPart(original);
    return out.join("\n\n");
  }

  private slidesText(l: Loaded): string {
    const ext = l.drawing ? "odg" : "odp";
    const tmp = this.tempPath(l.input, ext);
    l.temps.push(tmp);
    if (!l.doc.saveAs(fileUrl(tmp), ext, "")) throw new EngineError("internal", "slide text export failed");
    const files = unzipSync(readFileSync(tmp), { filter: (f) => f.name === "content.xml" });
    const content = files["content.xml"];
    if (!content) throw new EngineError("internal", "exported package has no content.xml");
    return odfPagesText(strFromU8(content)).filter((p) => p !== "").join("\n\n");
  }

  /** Saves an ODF copy and reads its meta.xml: LibreOffice's own view of the properties and statistics. */
  private engineMeta(l: Loaded): CoreProps | null {
    const ext = l.drawing ? "odg" : l.family === "text" ? "odt" : l.family === "spreadsheet" ? "ods" : "odp";
    const tmp = this.tempPath(l.input, ext);
    l.temps.push(tmp);
    if (!l.doc.saveAs(fileUrl(tmp), ext, "")) return null;
    try {
      const files = unzipSync(readFileSync(tmp), { filter: (f) => f.name === "meta.xml" });
      return files["meta.xml"] ? parseOdfMeta(strFromU8(files["meta.xml"])) : null;
    } catch {
      return null;
    }
  }

  /** Loads the input, runs fn, always destroys the document and removes temporary files. */
  private withDocument<T>(input: string, password: string | undefined, fn: (l: Loaded) => T): T {
    const l = this.load(input, password);
    try {
      return fn(l);
    } finally {
      try {
        l.doc.destroy();
      } finally {
        for (const t of l.temps) rmSync(t, { force: true });
      }
    }
  }

  private load(input: string, password: string | undefined): Loaded {
    const office = this.requireOffice();
    if (typeof input !== "string" || !input.startsWith("/")) throw new EngineError("internal", "input must be an absolute path");
    let size: number;
    try {
      const st = statSync(input);
      if (!st.isFile()) throw new Error("not a file");
      size = st.size;
    } catch {
      throw new EngineError("internal", "input file not found");
    }
    const ext = extname(input).slice(1).toLowerCase();
    if (size === 0) throw new EngineError("corrupt_source", "empty file (0 bytes)");
    const head = readHead(input, 8192);
    const kind = sniff(head);
    const declared = formatOf(ext)?.family;
    const temps: string[] = [];
    const fail = (code: WorkerErrorCode, msg: string): never => {
      for (const t of temps) rmSync(t, { force: true });
      throw new EngineError(code, msg);
    };

    if (ZIP_EXTS.has(ext) && kind !== "zip" && !(kind === "ole" && OOXML_EXTS.has(ext))) {
      fail("corrupt_source", kind === "zip-empty" ? "empty ZIP package" : `not a ${ext} package (content looks like ${kind})`);
    }

    // What LibreOffice will load: the input itself, or a converted private copy.
    let loadPath = input;
    if (kind === "text" && (ext === "csv" || ext === "tsv" || declared === "spreadsheet")) {
      const dec = decodeText(readFileSync(input));
      const fods = csvToFods(dec.text, sheetNameFrom(input), ext === "tsv" ? "\t" : undefined);
      loadPath = this.tempPath(input, "fods");
      temps.push(loadPath);
      writeFileSync(loadPath, fods.xml);
      this.log("debug", "engine_csv_source", { encoding: dec.encoding, delimiter: fods.delimiter, rows: fods.rows, cols: fods.cols });
    } else if (ext === "txt" || (kind === "text" && declared === "text" && ext !== "rtf")) {
      const buf = readFileSync(input);
      const dec = decodeText(buf);
      // ASCII or BOM-less UTF-8 is detected by LibreOffice itself; anything else becomes UTF-8 with BOM.
      const ascii = dec.encoding === "utf-8" && !dec.bom && buf.every((c) => c < 0x80);
      if (!ascii) {
        loadPath = this.tempPath(input, "txt");
        temps.push(loadPath);
        writeFileSync(loadPath, "\uFEFF" + dec.text);
        this.log("debug", "engine_text_source", { encoding: dec.encoding });
      } else if (ext !== "txt") {
        loadPath = this.tempPath(input, "txt");
        temps.push(loadPath);
        linkOrCopy(input, loadPath);
      }
    } else if (!/^[A-Za-z0-9._\/+-]+$/.test(input)) {
      // Keep LibreOffice's document URL trivially equal to ours (the password interaction is
      // keyed by it): a hard link with a plain name in the same job directory.
      loadPath = this.tempPath(input, ext || "bin");
      temps.push(loadPath);
      linkOrCopy(input, loadPath);
    }

    const url = fileUrl(loadPath);
    // Phase 1: no office callback registered, Batch mode: nothing can wait on a dialog.
    let doc = office.documentLoad(url, LOAD_OPTIONS);
    let asked = 0, refused = false;
    if (!doc && (kind === "ole" || kind === "zip") && this.passwordCallback) {
      // Phase 2: may be encrypted; load again with the password callback answering.
      this.pw = { url, password: password ?? null, asked: 0, refused: false };
      this.lastLokError = null;
      office.registerCallback((type, payload) => this.onCallback(type, payload));
      try {
        doc = office.documentLoad(url, LOAD_OPTIONS);
      } finally {
        asked = this.pw.asked;
        refused = this.pw.refused;
        this.pw = null;
        office.unregisterCallback();
      }
    }
    if (!doc) {
      const detail = office.getError();
      this.log("info", "engine_load_failed", { error: detail.replace(/<[^>]*>/g, "<url>").slice(0, 300), password_asked: asked, lok_error: this.lastLokError?.slice(0, 300) ?? null });
      if (asked > 0) fail("password_required", password ? "wrong password" : "document is password protected");
      if (kind === "ole" && hasCryptoApiHeader(input)) {
        // RC4 CryptoAPI encryption LibreOffice does not implement (PowerPoint 97-2003): it never
        // asks for a password, the load just fails.
        if (!password) fail("password_required", "document is password protected");
        fail("unsupported_format", "this engine cannot decrypt this encrypted file");
      }
      fail("corrupt_source", "the engine cannot open this file");
    }
    const d = doc!;
    const doctype = d.getDocumentType();
    const drawing = doctype === LOK_DOCTYPE.DRAWING;
    const family = drawing ? "presentation" : FAMILY_OF_DOCTYPE[doctype];
    if (!family) {
      d.destroy();
      fail("unsupported_format", `unsupported document type ${doctype}`);
    }
    if (asked > 0 || refused) this.log("debug", "engine_password", { asked, accepted: !refused });
    return { doc: d, doctype, family: family!, drawing, input, ext, kind, temps };
  }

  private onCallback(type: number, payload: string | null): void {
    const office = this.office!;
    if (type === LOK_CALLBACK_DOCUMENT_PASSWORD || type === LOK_CALLBACK_DOCUMENT_PASSWORD_TO_MODIFY) {
      const st = this.pw;
      // Always answer with the URL we loaded (the key LOK's interaction map uses): answering an
      // unknown URL would dereference a missing map entry inside LibreOffice.
      if (!st) return; // cannot happen: the callback is registered only while a load runs
      st.asked++;
      if (type === LOK_CALLBACK_DOCUMENT_PASSWORD_TO_MODIFY) {
        office.setDocumentPassword(st.url, null); // open read-only: enough to convert
      } else if (st.password !== null && st.asked === 1) {
        office.setDocumentPassword(st.url, st.password);
      } else {
        st.refused = true;
        office.setDocumentPassword(st.url, null); // none, or already tried: abort the load
      }
    } else if (type === LOK_CALLBACK_ERROR) {
      this.lastLokError = payload;
    }
  }
}

function readHead(path: string, n: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** An OLE2 file carrying a CryptoAPI encryption header (its CSP name, in UTF-16LE). */
function hasCryptoApiHeader(path: string): boolean {
  try {
    if (statSync(path).size > 64 * 1048576) return false;
    return readFileSync(path).includes(Buffer.from("Cryptographic Provider", "utf16le"));
  } catch {
    return false;
  }
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    writeFileSync(to, readFileSync(from));
  }
}

function stripUtf8Bom(path: string): void {
  const b = readFileSync(path);
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) writeFileSync(path, b.subarray(3));
}

/** Version of Debian's libreoffice-core package, read once at start ("" when not a Debian install). */
function debianPackageVersion(): string {
  try {
    const r = Bun.spawnSync(["/usr/bin/dpkg-query", "-W", "-f=${Version}", "libreoffice-core"], { stdout: "pipe", stderr: "ignore" });
    return r.exitCode === 0 ? r.stdout.toString().trim() : "";
  } catch {
    return "";
  }
}
