// Copies and pastes: the view's selection as HTML and text, a paste of HTML (confined), text or a
// picture, an uploaded picture inserted, and the values a picker offers.

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileUrl } from "../lok";
import type { KitRequestOf, KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { confinePastedHtml } from "../pasted-html";
import { kit, useView } from "./state";
import { expectingWindows } from "./windows";

/** A sheet's row and column headers for a twip rectangle (sizes and labels; Calc only). */
const ROW_COLUMN_HEADERS = /^\.uno:ViewRowColumnHeaders(\?x=\d{1,9}&y=\d{1,9}&width=\d{1,9}&height=\d{1,9})?$/;
/** Commands whose values a page may ask for (font list, styles). */
const COMMAND_VALUES = new Set([".uno:CharFontName", ".uno:StyleApply", ".uno:LanguageStatus", ".uno:ViewAnnotations"]);
/** The pictures a person can insert, by type; no SVG (it can name outside resources). */
const GRAPHIC_TYPES: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };
/**
 * The first bytes each type starts with. LibreOffice knows a picture by its content, not by the
 * type or name it is given: an SVG sent as image/png was inserted as an SVG, and its <image
 * href="file:…"> read a file of the kit's folder onto the page (app/documents-pull-nothing.test.ts).
 * So a picture is taken only when its bytes are of the type it claims.
 */
const MAGIC: Record<string, (b: Uint8Array) => boolean> = {
  png: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a,
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38,
  webp: (b) => Buffer.from(b.subarray(0, 4)).toString("latin1") === "RIFF" && Buffer.from(b.subarray(8, 12)).toString("latin1") === "WEBP",
};
const isPictureOf = (ext: string, data: Uint8Array) => MAGIC[ext]?.(data) === true;
let insertedGraphics = 0;
/** The most a copy or a paste carries (the WebSocket's frame limit is 16 MB, base64 included). */
const CLIPBOARD_MAX_BYTES = 10 * 1024 * 1024;

/** `selection`: what a copy takes. */
export async function selection(req: KitRequestOf<"selection">): Promise<KitResult<"selection">> {
  // What a copy takes: the view's selection as HTML (formatting) and plain text, once the
  // input that made the selection has been processed.
  await engineIdle();
  const d = useView(req.viewId);
  const html = d.getTextSelection("text/html") ?? "";
  const text = d.getTextSelection("text/plain;charset=utf-8") ?? "";
  if (html.length + text.length > CLIPBOARD_MAX_BYTES) return { tooLarge: true };
  return { html, text };
}

/** `commandvalues`: the values a picker offers (fonts and their sizes, styles): LibreOffice's JSON, as is. */
export function commandvalues(req: KitRequestOf<"commandvalues">): KitResult<"commandvalues"> {
  // The values a picker offers (fonts and their sizes, styles): LibreOffice's JSON, as is.
  const command = String(req.command ?? "");
  if (!COMMAND_VALUES.has(command) && !ROW_COLUMN_HEADERS.test(command)) throw new Error("unsupported command values");
  return { json: useView(req.viewId).getCommandValues(command) ?? "" };
}

/** `paste`: HTML (confined first), text or a PNG at the cursor. */
async function pasteUnwrapped(req: KitRequestOf<"paste">): Promise<KitResult<"paste">> {
  const mime = String(req.mime ?? "");
  if (!/^(text\/html|text\/plain|image\/png)(;charset=utf-8)?$/.test(mime)) throw new Error("unsupported paste type");
  let data: Uint8Array = Buffer.from(String(req.data ?? ""), "base64");
  if (data.byteLength > CLIPBOARD_MAX_BYTES) throw new Error("paste too large");
  if (mime.startsWith("text/html")) data = Buffer.from(confinePastedHtml(Buffer.from(data).toString("utf8")));
  if (mime === "image/png" && !isPictureOf("png", data)) throw new Error("not a png picture");
  await engineIdle();
  const ok = useView(req.viewId).paste(mime, data);
  await engineIdle();
  return { ok };
}

/** `insertgraphic`: an uploaded picture, inserted at the cursor. */
async function insertgraphicUnwrapped(req: KitRequestOf<"insertgraphic">): Promise<KitResult<"insertgraphic">> {
  // An uploaded picture, inserted at the cursor from a file as Collabora's kit does (the
  // engine's paste takes no picture in LibreOffice's Writer: 7.4, and 25.2 still answers false).
  const ext = GRAPHIC_TYPES[String(req.mime ?? "")];
  if (!ext) throw new Error("unsupported image type");
  const data = Buffer.from(String(req.data ?? ""), "base64");
  if (!data.byteLength || data.byteLength > CLIPBOARD_MAX_BYTES) throw new Error("image empty or too large");
  if (!isPictureOf(ext, data)) throw new Error(`not a ${ext} picture`);
  useView(req.viewId); // an unknown view fails at once
  const file = join(kit.tempDir, `insert-${++insertedGraphics}.${ext}`);
  writeFileSync(file, data);
  try {
    await engineIdle();
    useView(req.viewId).postUnoCommand(".uno:InsertGraphic", JSON.stringify({ FileName: { type: "string", value: fileUrl(file) } }), true);
    await engineIdle();
  } finally {
    rmSync(file, { force: true });
  }
  return {};
}

// A paste may ask a question (Calc: "replace the cells' contents?"): its window is the view's own
// (windows.ts closes any window nobody asked for).
export const paste = (req: KitRequestOf<"paste">) => expectingWindows(req.viewId, () => pasteUnwrapped(req));
export const insertgraphic = (req: KitRequestOf<"insertgraphic">) => expectingWindows(req.viewId, () => insertgraphicUnwrapped(req));
