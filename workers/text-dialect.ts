// A plain text file written back as it was read (issue 46): LibreOffice's text export writes UTF-8
// with a byte order mark, "\n" line ends and a final line end, whatever the file it opened had.
// The editor's save of a .txt therefore came back three bytes longer (EF BB BF) than a file that
// had no mark, and a Windows-1252 or UTF-16 file came back as UTF-8. The dialect is read when the
// file is opened and the engine's export is written in it again.

import { encodeText } from "./csv-import";
import { decodeText } from "./sniff";

export interface TextDialect {
  /** An encoding decodeText recognises (utf-8, utf-16le/be, windows-125x, shift_jis…). */
  encoding: string;
  /** The file began with a byte order mark. */
  bom: boolean;
  newline: "\n" | "\r\n" | "\r";
  /** The file's last line ended with a line end. */
  finalNewline: boolean;
}

/** The dialect of a text file and its text (without the byte order mark). */
export function textDialectOf(bytes: Uint8Array): TextDialect & { text: string } {
  const decoded = decodeText(bytes);
  const text = decoded.text.replace(/^\uFEFF/, "");
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/(?<!\r)\n/g) ?? []).length;
  const cr = (text.match(/\r(?!\n)/g) ?? []).length;
  const newline = crlf > lf && crlf >= cr ? "\r\n" : cr > lf && cr > crlf ? "\r" : "\n";
  return { text, encoding: decoded.encoding, bom: decoded.bom, newline, finalNewline: /[\r\n]$/.test(text) };
}

/** The engine's text export (UTF-8, perhaps with a mark, any line ends) in the file's own dialect. */
export function textInDialect(engineBytes: Uint8Array, dialect: TextDialect): Uint8Array {
  let text = new TextDecoder("utf-8").decode(engineBytes).replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!dialect.finalNewline) text = text.replace(/\n$/, "");
  if (dialect.newline !== "\n") text = text.replace(/\n/g, dialect.newline);
  return encodeText(text, dialect.encoding, dialect.bom);
}

/**
 * What LibreOffice is given to read a text file as the file's author wrote it: null for ASCII
 * (LibreOffice reads it as it is), else the text as UTF-8 with a mark, which it never misreads.
 * The one rule for DocBuilder's worker (engine.ts) and the editing kit (kit/files.ts).
 */
export function textForEngine(bytes: Uint8Array, decoded: { encoding: string; bom: boolean; text: string }): string | null {
  const ascii = decoded.encoding === "utf-8" && !decoded.bom && bytes.every((c) => c < 0x80);
  return ascii ? null : "\uFEFF" + decoded.text;
}
