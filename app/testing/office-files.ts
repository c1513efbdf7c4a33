// Reading what a saved office file holds, for tests: the text of a zip part with its markup
// dropped. Enough to say "what was typed is in the file"; not a document model.
import { strFromU8, unzipSync } from "fflate";

/** The text of one part of an office zip (word/document.xml, xl/sharedStrings.xml…), tags removed. */
export function zipPartText(bytes: Uint8Array, part: string): string {
  const xml = unzipSync(bytes, { filter: (f) => f.name === part })[part];
  if (!xml) throw new Error(`the file has no part ${part}`);
  return strFromU8(xml).replace(/<[^>]+>/g, "");
}

/** The text of a docx's body (word/document.xml), tags removed and trimmed. */
export function docxText(bytes: Uint8Array): string {
  return zipPartText(bytes, "word/document.xml").trim();
}

/** The text of a docx's body, headers and footers, one part per line. */
export function docxAllText(bytes: Uint8Array): string {
  return Object.entries(unzipSync(bytes, { filter: (f) => /^word\/(document|header\d*|footer\d*)\.xml$/.test(f.name) }))
    .map(([, xml]) => strFromU8(xml).replace(/<[^>]+>/g, ""))
    .join("\n");
}
