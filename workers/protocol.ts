// The wire protocol between the DocBuilder pool (parent) and one office-engine worker process.
//
// Transport: newline-delimited JSON. The parent writes requests to the worker's stdin; the worker
// writes replies on file descriptor 3 (a pipe the parent opens), never on stdout, because
// LibreOffice itself prints to stdout/stderr and would corrupt the stream. Only file paths travel
// on the wire, never document content: the parent puts the input in a per-job directory and the
// worker writes the output next to it.

import type { Family } from "./formats";

export interface CoreInfo {
  /** Engine name, e.g. "LibreOffice". */
  name: string;
  /** Engine version as reported by the running engine, e.g. "7.4.7.2". */
  version: string;
  /** Where the engine comes from, e.g. "debian:libreoffice-core 4:7.4.7-1+deb12u14" or the install path. */
  source: string;
}

interface Base {
  /** Correlates request and reply; the job id. */
  id: string;
  /** The HTTP request id that caused the job, for the worker's log lines. */
  requestId?: string;
  /** Absolute path of the source file (a private copy in the job directory). */
  input: string;
  password?: string;
}

export interface ConvertRequest extends Base {
  op: "convert";
  /** Absolute path the worker writes the result to. */
  output: string;
  /** Target extension, e.g. "pdf", "docx". */
  to: string;
}
export interface ExtractTextRequest extends Base {
  op: "text";
}
export interface MetaRequest extends Base {
  op: "meta";
}
/** The document's page count alone (the spec's `pages` of a file built in-process): a load and its layout, nothing saved. */
export interface PagesRequest extends Base {
  op: "pages";
}
export interface ThumbnailRequest extends Base {
  op: "thumbnail";
  output: string;
  /** Target width of the PNG in pixels; height follows the page's aspect ratio. */
  width: number;
}
export type WorkerRequest = ConvertRequest | ExtractTextRequest | MetaRequest | PagesRequest | ThumbnailRequest;

export interface ConvertResult {
  family: Family;
  /** Pages of the document as laid out (pages for text, sheets' printed pages or sheets for spreadsheets, slides for presentations). */
  pages: number;
}
export interface TextResult {
  family: Family;
  text: string;
  pages: number;
}
export interface MetaResult {
  family: Family;
  title: string | null;
  subject: string | null;
  author: string | null;
  keywords: string[];
  description: string | null;
  created: string | null;
  modified: string | null;
  pages: number;
  words: number | null;
  characters: number | null;
}
export interface PagesResult {
  family: Family;
  pages: number;
}
export interface ThumbnailResult {
  family: Family;
  width: number;
  height: number;
  pages: number;
}

export type WorkerErrorCode = "password_required" | "corrupt_source" | "unsupported_format" | "internal";

export type WorkerReply =
  | { type: "ready"; pid: number; core: CoreInfo; startMs: number }
  | { type: "result"; id: string; ok: true; result: ConvertResult | TextResult | MetaResult | PagesResult | ThumbnailResult }
  | { type: "result"; id: string; ok: false; error: { code: WorkerErrorCode; message: string } }
  | { type: "log"; level: "debug" | "info" | "warn" | "error"; event: string; fields?: Record<string, unknown> }
  /**
   * After every request's `result`: the worker has closed the document and takes the next request.
   * A successful result is sent as soon as the output is written, before LibreOffice's close.
   */
  | { type: "closed"; id: string };
