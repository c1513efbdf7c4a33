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
// - CSV (and tab text in a .xls): LibreOffice reads it with one default dialect (comma, no
//   encoding detection; 7.4 even waited forever on its import dialog once an office callback was
//   registered). CSV/TSV sources are therefore parsed here (csv-import.ts: papaparse, delimiter
//   and encoding sniffed) and handed to LibreOffice as a flat ODS (.fods).
// - Loads happen in two phases: first with NO office callback and Batch=true (any dialog is
//   cancelled instead of waited for); only when that fails on an OLE2/ZIP container (the only
//   kinds that can be encrypted) is the file loaded again with the password callback registered,
//   and without Batch (LibreOffice 7.5 and later never ask a batch load for a password).
//   The password callback is answered re-entrantly from a non-threadsafe JSCallback (lok.ts).
// - LOK resets the macro security level to 1 on every load unless the load options say
//   otherwise: every load passes MacroSecurityLevel=3; MacroExecutionMode is NEVER_EXECUTE by
//   LOK default (no EnableMacrosExecution option). The profile config pins the rest.

import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import Papa from "papaparse";
import { unzipSync, strFromU8 } from "fflate";
import {
  LokOffice,
  LokDocument,
  fileUrl,
  engineProgramDir,
  LOK_DOCTYPE,
  LOK_FEATURE_DOCUMENT_PASSWORD,
  LOK_FEATURE_DOCUMENT_PASSWORD_TO_MODIFY,
  LOK_CALLBACK,
} from "./lok";
import { exportFilterFor, formatOf, type Family } from "./formats";
import { encodeTilePng } from "./png";
import { LOAD_OPTIONS, PASSWORD_LOAD_OPTIONS, engineEnvironment, writeProfileConfig } from "./profile";
import { withoutLinkedPictures } from "./linked-pictures";
import { DECK_PACKAGES, layoutsUnseenIn, withoutUnusedSlideLayouts } from "./unused-layouts";
import { textForEngine } from "./text-dialect";
import { decodeText, sniff, type Sniff } from "./sniff";
import { csvToFods, sheetNameFrom } from "./csv-import";
import { odfPagesText, parseOdfMeta, readPackageMeta, type CoreProps } from "./package-meta";
import { coreInfo, missingSlots, unsupportedReason } from "./engine-identity";
import type {
  ConvertResult,
  CoreInfo,
  MetaResult, PagesResult,
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

export type EngineResult = ConvertResult | TextResult | MetaResult | PagesResult | ThumbnailResult;

export type LogFn = (level: "debug" | "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) => void;

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
  core: CoreInfo = { name: "LibreOffice", version: "", source: engineProgramDir() };
  startMs = 0;
  profileDir = "";
  private pw: PasswordState | null = null;
  /** Where handle() sends its result once the output is written, before the document is closed. */
  private answerBeforeClose: ((result: EngineResult) => void) | null = null;
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
    const programDir = engineProgramDir();
    const t0 = performance.now();
    const office = new LokOffice(fileUrl(profileDir), programDir, engineEnvironment(profileDir, tempDir, { spelling: false }));
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
    this.core = coreInfo(office, programDir);
    const unsupported = unsupportedReason(this.core, missingSlots(office));
    if (unsupported) throw new Error(`svc cannot drive the LibreOffice in ${programDir}: ${unsupported}`);
  }

  private requireOffice(): LokOffice {
    if (!this.office) throw new EngineError("internal", "engine not started");
    return this.office;
  }

  /**
   * Dispatches one protocol request and hands its result to `answer` as soon as it is complete,
   * before the document is closed: LibreOffice's close of a document is a tenth of a small
   * conversion (6 ms of 60 for a one-page docx), and nothing the caller does with the result
   * needs it. Throws EngineError (before `answer`, or a failure of the close after it).
   */
  handle(req: WorkerRequest, answer: (result: EngineResult) => void): void {
    this.answerBeforeClose = answer;
    try {
      const result = this.dispatch(req);
      this.takeAnswer()?.(result); // an op that opened no document
    } finally {
      this.answerBeforeClose = null;
    }
  }

  /** The answer handle() waits for, once. */
  private takeAnswer(): ((result: EngineResult) => void) | null {
    const answer = this.answerBeforeClose;
    this.answerBeforeClose = null;
    return answer;
  }

  private dispatch(req: WorkerRequest): EngineResult {
    switch (req.op) {
      case "convert":
        return this.convert(req.input, req.output, req.to, req.password);
      case "text":
        return this.text(req.input, req.password);
      case "meta":
        return this.meta(req.input, req.password);
      case "pages":
        return this.pageCount(req.input, req.password);
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
    }, target);
  }

  /**
   * The page count alone: a build or a template asking for its native format (docx) has the
   * engine count the file's pages (the spec's `pages`). `meta` did it, and for a text document
   * also saved an ODF copy to read its statistics: most of a 10-page report's 347 ms (issue 47).
   */
  pageCount(input: string, password?: string): PagesResult {
    return this.withDocument(input, password, (l) => ({ family: l.family, pages: this.pages(l) }));
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
  private withDocument<T extends EngineResult>(input: string, password: string | undefined, fn: (l: Loaded) => T, output: string | null = null): T {
    const l = this.load(input, password, output);
    const close = () => {
      try {
        l.doc.destroy();
      } finally {
        for (const t of l.temps) rmSync(t, { force: true });
      }
    };
    let result: T;
    try {
      result = fn(l);
    } catch (err) {
      close();
      throw err;
    }
    this.takeAnswer()?.(result);
    close();
    return result;
  }

  /** `output`: the format the document becomes (null: text, metadata or a picture), which says whether a deck's unused layouts may stay out. */
  private load(input: string, password: string | undefined, output: string | null = null): Loaded {
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
      const readable = textForEngine(buf, dec);
      if (readable !== null) {
        loadPath = this.tempPath(input, "txt");
        temps.push(loadPath);
        writeFileSync(loadPath, readable);
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

    // A deck's slide layouts no slide uses, when the output shows slides only (unused-layouts.ts).
    if (kind === "zip" && DECK_PACKAGES.has(ext) && layoutsUnseenIn(output)) {
      const pruned = withoutUnusedSlideLayouts(loadPath, this.tempPath(input, ext));
      if (pruned) {
        temps.push(pruned);
        loadPath = pruned;
      }
    }

    // Picture links no setting holds (an SVG's <image href>, RTF's INCLUDEPICTURE): a private copy without them.
    const defused = withoutLinkedPictures(loadPath, this.tempPath(input, ext || "bin"));
    if (defused) {
      temps.push(defused);
      loadPath = defused;
      this.log("info", "engine_picture_links_removed", {});
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
        doc = office.documentLoad(url, PASSWORD_LOAD_OPTIONS);
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
    if (type === LOK_CALLBACK.DOCUMENT_PASSWORD || type === LOK_CALLBACK.DOCUMENT_PASSWORD_TO_MODIFY) {
      const st = this.pw;
      // Always answer with the URL we loaded (the key LOK's interaction map uses): answering an
      // unknown URL would dereference a missing map entry inside LibreOffice.
      if (!st) return; // cannot happen: the callback is registered only while a load runs
      st.asked++;
      if (type === LOK_CALLBACK.DOCUMENT_PASSWORD_TO_MODIFY) {
        office.setDocumentPassword(st.url, null); // open read-only: enough to convert
      } else if (st.password !== null && st.asked === 1) {
        office.setDocumentPassword(st.url, st.password);
      } else {
        st.refused = true;
        office.setDocumentPassword(st.url, null); // none, or already tried: abort the load
      }
    } else if (type === LOK_CALLBACK.ERROR) {
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
