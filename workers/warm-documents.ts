// The documents that warm a fresh engine before it says ready (an editing server's kit and a
// DocBuilder worker alike): the first load in a fresh engine pays the modules' and fonts'
// initialisation and each file format's import filter, which would otherwise fall on the first
// real document (a worker's first hello.docx to PDF: 296 ms against 37 ms after).

import { copyFileSync, existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";

/**
 * Small real documents of each family: their import filters (OOXML, ODF) load on first use. The
 * deck is an empty one LibreOffice wrote (warm-up.pptx, its default layouts): LibreOffice 25.2
 * imports every slide layout of a pptx as a master page, and hello.pptx's 24, each with its
 * master's drawing, kept 180 MB in every idle kit after the warm-up (472 MB an idle kit, 296 MB
 * with this one; 7.4: 282 and 267).
 */
export const WARM_DOCUMENTS = ["hello.docx", "hello.xlsx", "warm-up.pptx"].map((f) => resolve(import.meta.dir, "../fixtures", f));

/**
 * Private copies of the warm documents in `dir` (the engine writes lock files beside what it
 * opens), made before the confinement: the repository's fixtures are not the engine's to read
 * afterwards (workers/confine.ts).
 */
export function copyWarmDocuments(dir: string): string[] {
  return WARM_DOCUMENTS.filter((f) => existsSync(f)).map((f) => {
    const copy = join(dir, `warm-${basename(f)}`);
    copyFileSync(f, copy);
    return copy;
  });
}
