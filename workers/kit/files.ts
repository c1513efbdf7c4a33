// The document's file: loading it (CSV and TSV through a flat ODS made from them) and saving it
// (a CSV written back in the dialect it was opened in).

import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileUrl } from "../lok";
import type { KitRequestOf, KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { csvFileToFods, csvFilterOptions, csvInDialect, type CsvDialect } from "../csv-import";
import { formatOf } from "../formats";
import { sniff } from "../sniff";
import { textDialectOf, textForEngine, textInDialect } from "../text-dialect";
import { withoutLinkedPictures } from "../linked-pictures";
import { kit, log, requireDoc, requireOffice, status } from "./state";

/** Extensions whose save needs filter options (LOK saveAs re-joins options with ", "). */
const SAVE_OPTIONS: Record<string, string> = { txt: "UTF8" };

/** `load`: the kit's one document. */
export function load(req: KitRequestOf<"load">): KitResult<"load"> {
  if (kit.doc) throw new Error("a document is already loaded");
  const path = String(req.path ?? "");
  if (!path.startsWith("/") || !existsSync(path)) throw new Error("path must be an existing absolute path");
  const t0 = performance.now();
  const source = loadableSource(path, typeof req.name === "string" ? req.name : "");
  // Picture links no setting holds (workers/linked-pictures.ts): the engine gets a copy without them.
  const defused = withoutLinkedPictures(source, join(kit.tempDir, `source-defused${extname(source)}`));
  if (defused) log("info", "kit_picture_links_removed", {});
  const d = requireOffice().documentLoad(fileUrl(defused ?? source), kit.loadOptions);
  if (!d) throw new Error(`load failed: ${requireOffice().getError() || "no detail"}`);
  kit.doc = d;
  kit.docType = d.getDocumentType();
  d.initializeForRendering("");
  log("info", "kit_document_loaded", { ms: Math.round(performance.now() - t0) });
  return status(d);
}

/** `save`: the document written to `path` in `format`, once every input before it is in. */
export async function save(req: KitRequestOf<"save">): Promise<KitResult<"save">> {
  const d = requireDoc();
  const path = String(req.path ?? "");
  const format = String(req.format ?? "").toLowerCase();
  if (!path.startsWith("/") || !/^[a-z0-9]{1,8}$/.test(format)) throw new Error("bad save request");
  await engineIdle();
  rmSync(path, { force: true });
  const t0 = performance.now();
  const options = format === "csv" ? csvFilterOptions(kit.csvSource) : (SAVE_OPTIONS[format] ?? "");
  if (!d.saveAs(fileUrl(path), format, options) || !existsSync(path)) {
    throw new Error(`save failed: ${requireOffice().getError() || "no detail"}`);
  }
  if (format === "csv" && kit.csvSource) writeInSourceDialect(path, kit.csvSource);
  if (format === "txt" && kit.textSource) writeFileSync(path, textInDialect(readFileSync(path), kit.textSource));
  log("info", "kit_document_saved", { ms: Math.round(performance.now() - t0), format });
  return {};
}

/**
 * What the engine opens for the file at `path`: the file itself, or for CSV/TSV text (and text
 * named as a spreadsheet) a flat ODS made from it, as DocBuilder does (engine.ts). Opened as is,
 * CSV went to Calc's text-import dialog, which under LibreOfficeKit is cancelled (Batch=true):
 * "loadComponentFromURL returned an empty reference". A save as csv writes the sheet back with the
 * file's own delimiter, record separator, encoding and byte order mark (writeInSourceDialect).
 */
function loadableSource(path: string, name: string): string {
  const ext = extname(path).slice(1).toLowerCase();
  if (ext === "txt") return loadableText(path);
  const spreadsheet = ext === "csv" || ext === "tsv" || formatOf(ext)?.family === "spreadsheet";
  if (!spreadsheet) return path;
  const fd = openSync(path, "r");
  const head = new Uint8Array(8192);
  const got = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  if (sniff(head.subarray(0, got)) !== "text") return path;
  const fods = join(kit.tempDir, "source.fods");
  const dialect = csvFileToFods(path, fods, { delimiter: ext === "tsv" ? "\t" : undefined, fileName: name || path });
  const { rows, cols, ...source } = dialect;
  kit.csvSource = source;
  log("info", "kit_csv_source", { encoding: dialect.encoding, delimiter: dialect.delimiter, rows, cols });
  return fods;
}

/**
 * A .txt file: its dialect kept for the saves (workers/text-dialect.ts). LibreOffice reads ASCII
 * as it is; any other text is handed to it as UTF-8 with a mark, as
 * DocBuilder does (engine.ts), so that what it reads is what the dialect will write back.
 */
function loadableText(path: string): string {
  const bytes = readFileSync(path);
  if (sniff(bytes.subarray(0, 8192)) !== "text") return path;
  const { text, ...dialect } = textDialectOf(bytes);
  kit.textSource = dialect;
  log("info", "kit_text_source", { encoding: dialect.encoding, bom: dialect.bom, newline: JSON.stringify(dialect.newline) });
  const readable = textForEngine(bytes, { ...dialect, text });
  if (readable === null) return path;
  const copy = join(kit.tempDir, "source.txt");
  writeFileSync(copy, readable);
  return copy;
}

/** A CSV the engine wrote, written again as the file it was opened from was (see csvInDialect). */
function writeInSourceDialect(path: string, dialect: CsvDialect): void {
  writeFileSync(path, csvInDialect(new TextDecoder("utf-8").decode(readFileSync(path)), dialect));
}
