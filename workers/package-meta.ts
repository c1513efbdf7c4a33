// Metadata and text read from a package's own XML (OOXML docProps, ODF meta.xml and content.xml),
// without the engine.
import { readFileSync } from "node:fs";
import { unzipSync, strFromU8 } from "fflate";
import { XMLParser } from "fast-xml-parser";
import type { MetaResult } from "./protocol";

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
export type CoreProps = Omit<MetaResult, "family" | "pages"> & { pages: number | null };

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
