// A deck's slide layouts that no slide uses, left out of what the engine loads when the output
// does not carry them (issue 47 item 4). LibreOffice 25.2 imports every slide layout of a pptx as
// a master page of its own (7.4 made two): a deck made from PowerPoint's default template brings
// 11 to 24 layouts, and their import was most of its conversion (hello.pptx, 2 of 24 layouts
// used: 563 ms of load and PDF export on a quiet machine; the same deck without the 22 unused
// layouts 7× faster, measured side by side). LibreOffice has no import setting for it (its
// registry's only "unused masters" switch is the Presentation Minimizer's, which runs after a
// load), so the worker hands the engine a private copy without them: for a PDF, a picture, text
// or metadata, which show slides only. A conversion to a presentation format keeps every layout,
// the editing kit never prunes, and a package this cannot read surely is loaded as it came.

import { readFileSync, writeFileSync } from "node:fs";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";

const LAYOUT_PART = /^ppt\/slideLayouts\/(slideLayout\d+\.xml)$/;
const SLIDE_RELS = /^ppt\/slides\/_rels\/slide\d+\.xml\.rels$/;
const MASTER_RELS = /^ppt\/slideMasters\/_rels\/(slideMaster\d+\.xml)\.rels$/;
const RELATIONSHIP = /<Relationship\b[^>]*\/?>/g;
const attr = (tag: string, name: string) => new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`).exec(tag)?.[1];

/** The decks whose layouts this reads (PowerPoint's package formats). */
export const DECK_PACKAGES = new Set(["pptx", "pptm", "potx", "potm", "ppsx", "ppsm"]);

/** Presentation formats: an output that carries the deck's layouts. */
const PRESENTATION_OUTPUTS = new Set(["pptx", "pptm", "potx", "potm", "ppsx", "ppsm", "ppt", "pps", "pot", "odp", "otp", "fodp"]);

/** Whether an output of this format shows slides only (a layout nobody uses is not in it). */
export const layoutsUnseenIn = (target: string | null): boolean => target === null || !PRESENTATION_OUTPUTS.has(target);

/**
 * `input`'s package without the slide layouts no slide uses, written to `output` (entries stored,
 * not deflated: it is read once, by the engine, from a private folder); null when every layout is
 * used or the package is not a deck this can read.
 */
export function withoutUnusedSlideLayouts(input: string, output: string): string | null {
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(readFileSync(input));
  } catch {
    return null;
  }
  const layouts = Object.keys(parts).filter((n) => LAYOUT_PART.test(n)).map((n) => LAYOUT_PART.exec(n)![1]!);
  const slideRels = Object.keys(parts).filter((n) => SLIDE_RELS.test(n));
  if (layouts.length === 0 || slideRels.length === 0) return null;
  const used = new Set<string>();
  for (const n of slideRels) {
    for (const tag of strFromU8(parts[n]!).match(RELATIONSHIP) ?? []) {
      const target = attr(tag, "Target");
      const m = target && /(?:^|\/)slideLayouts\/(slideLayout\d+\.xml)$/.exec(target);
      if (m) used.add(m[1]!);
    }
  }
  const unused = new Set(layouts.filter((l) => !used.has(l)));
  // Every slide must name a layout this found; else the package is not as this expects.
  if (unused.size === 0 || used.size === 0 || [...used].some((l) => !layouts.includes(l))) return null;

  const out: Zippable = {};
  for (const [name, bytes] of Object.entries(parts)) {
    const layout = LAYOUT_PART.exec(name)?.[1] ?? /^ppt\/slideLayouts\/_rels\/(slideLayout\d+\.xml)\.rels$/.exec(name)?.[1];
    if (layout && unused.has(layout)) continue;
    out[name] = [bytes, { level: 0 }];
  }
  // Each master forgets the unused layouts: its relationships and its sldLayoutIdLst entries.
  for (const name of Object.keys(parts)) {
    const master = MASTER_RELS.exec(name)?.[1];
    if (!master || !parts[`ppt/slideMasters/${master}`]) continue;
    const dropped: string[] = [];
    const rels = strFromU8(parts[name]!).replace(RELATIONSHIP, (tag) => {
      const target = attr(tag, "Target");
      const m = target && /(?:^|\/)slideLayouts\/(slideLayout\d+\.xml)$/.exec(target);
      if (!m || !unused.has(m[1]!)) return tag;
      dropped.push(attr(tag, "Id") ?? "");
      return "";
    });
    if (dropped.length === 0) continue;
    const ids = new Set(dropped);
    const xml = strFromU8(parts[`ppt/slideMasters/${master}`]!).replace(/<p:sldLayoutId\b[^>]*\/>/g, (tag) => (ids.has(attr(tag, "r:id") ?? "") ? "" : tag));
    out[name] = [strToU8(rels), { level: 0 }];
    out[`ppt/slideMasters/${master}`] = [strToU8(xml), { level: 0 }];
  }
  const types = parts["[Content_Types].xml"];
  if (types) {
    // An override of a part left out goes too (a layout's, its relationships' when listed).
    const xml = strFromU8(types).replace(/<Override\b[^>]*\/>/g, (tag) => {
      const part = (attr(tag, "PartName") ?? "").replace(/^\//, "");
      return /^ppt\/slideLayouts\//.test(part) && !(part in out) ? "" : tag;
    });
    out["[Content_Types].xml"] = [strToU8(xml), { level: 0 }];
  }
  writeFileSync(output, zipSync(out));
  return output;
}
