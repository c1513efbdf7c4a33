// Template filling for POST /v1/template/render (enterprise): a Word template (.docx/.dotx) is
// filled with docxtemplater + pizzip, delimiters {{ }}. v1 syntax, and nothing else:
//   {{path}}                 a field; path = names joined by dots ({{customer.name}}), or {{.}} for
//                            the current loop item. Spaces around the path are ignored.
//   {{#path}} … {{/path}}    a table-row loop: both tags in the same table row; the row is repeated
//                            once per element of the array `path` (0 elements → the row is removed).
// Refused with template_error naming the tag (see docs/templates.md): conditions ({{#x}} on a value
// that is not an array), inverted sections {{^x}}, images {{%x}}, raw XML {{@x}}, filters {{x | f}},
// any other expression, forced expansion {{-w:p x}}, loops outside a table row, across several
// rows or nested in the same row, and Jinja2 statements {% … %}.
// The template never goes through the office engine; conversion of the result is the caller's.

import Docxtemplater from "docxtemplater";
import { unzipSync } from "fflate";
import PizZip from "pizzip";
import { ServiceError } from "../errors";
import { checkMacros, isZip } from "./macros";
import { sniff, type Sniff } from "../../workers/sniff";
import {
  fromDocxtemplaterError,
  inDocumentOrder,
  notDocx,
  RefusedTag,
  templateError,
  unescapeXml,
  type TemplateProblem,
  type TemplateReason,
} from "./template-problems";

export { problemMessage, type TemplateProblem, type TemplateReason } from "./template-problems";

export type MissingMode = "empty" | "error";
export interface RenderOptions {
  /** "empty" (default): a missing field renders as "" and a missing loop as 0 rows; "error": 422 listing them all. */
  missing: MissingMode;
}

const WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const WORD_TEMPLATE_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml";
/** Names joined by dots; letters of any script, digits, _ and $ (not first). */
const PATH = /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u;
/** Sum of the uncompressed sizes a template may declare (a zip bomb guard; real templates are a few MB). */
export const MAX_UNZIPPED_MB = 256;

/**
 * Fills a Word template. Returns the .docx bytes. Throws ServiceError:
 *  - macro_not_allowed (from checkMacros, run first again here);
 *  - template_error {reason: "not_docx" | "corrupt_zip"} when the bytes are not a Word .docx/.dotx;
 *  - template_error {errors: TemplateProblem[]} for template syntax, refused features and data
 *    problems; with {fields: string[]} when fields are missing and missing = "error";
 *  - bad_request {errors: [{path: "/data", …}]} when data is not a JSON object.
 */
export function renderTemplate(bytes: Uint8Array, data: unknown, opts: RenderOptions = { missing: "empty" }): Uint8Array {
  checkMacros(bytes);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new ServiceError("bad_request", "Tham số data phải là một đối tượng JSON, ví dụ {\"customer\": {\"name\": \"…\"}}.", {
      errors: [{ path: "/data", message: "must be a JSON object" }],
    });
  }
  const zip = openWordZip(bytes);
  const problems: TemplateProblem[] = scanJinja(zip);

  const state: RenderState = { missing: [], missingSeen: new Set(), problems: [], problemSeen: new Set() };
  const structure = new LoopStructureModule();
  let doc: Docxtemplater;
  try {
    doc = new Docxtemplater(zip, {
      delimiters: { start: "{{", end: "}}" },
      paragraphLoop: true,
      linebreaks: true,
      stripInvalidXMLChars: true,
      errorLogging: false,
      modules: [structure],
      parser: (tag: string, meta?: { tag?: DxtPart }) => compileTag(tag, meta?.tag, state),
      nullGetter: () => "",
    });
  } catch (e) {
    problems.push(...structure.problems, ...fromDocxtemplaterError(e, (part, offset) => paragraphAt(zip, part, offset)));
    throw templateError(inDocumentOrder(problems), []);
  }
  problems.push(...structure.problems);
  if (problems.length) throw templateError(inDocumentOrder(problems), []);

  try {
    doc.render(data as Record<string, unknown>);
  } catch (e) {
    throw templateError([...fromDocxtemplaterError(e, (part, offset) => paragraphAt(zip, part, offset)), ...state.problems], state.missing);
  }
  if (state.problems.length || (opts.missing === "error" && state.missing.length)) {
    throw templateError(state.problems, opts.missing === "error" ? state.missing : []);
  }

  const out = doc.getZip();
  // A filled .dotx is a document: give its main part the .docx content type.
  const ct = out.file("[Content_Types].xml");
  if (ct) {
    const xml = ct.asText();
    if (xml.includes(WORD_TEMPLATE_MAIN)) out.file("[Content_Types].xml", xml.split(WORD_TEMPLATE_MAIN).join(WORD_MAIN));
  }
  return out.generate({ type: "uint8array", compression: "DEFLATE" }) as Uint8Array;
}

// ---------------------------------------------------------------------------------------------
// Package checks

function openWordZip(bytes: Uint8Array): PizZip {
  if (bytes.length === 0) throw notDocx("Tệp mẫu rỗng (0 byte): hãy gửi một tệp Word .docx.");
  if (bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) {
    throw notDocx("Mẫu là tệp Word 97-2003 (.doc/.dot): hãy mở trong Word, lưu thành \"Word Document (.docx)\" rồi gửi lại.", { detected: "ole2" });
  }
  if (!isZip(bytes)) throw notDocx("Mẫu phải là tệp Word .docx (hoặc .dotx): tệp đã gửi không phải tài liệu Word.", sniffedKind(bytes));
  let zip: PizZip;
  try {
    let total = 0;
    unzipSync(bytes, { filter: (f) => ((total += f.originalSize), false) });
    if (total > MAX_UNZIPPED_MB * 1024 * 1024) {
      throw new ServiceError("file_too_large", `Mẫu giải nén ra hơn ${MAX_UNZIPPED_MB} MB: hãy gửi mẫu nhỏ hơn (bỏ bớt ảnh hoặc tệp nhúng).`, {
        reason: "too_large",
        limit_mb: MAX_UNZIPPED_MB,
      });
    }
    zip = new PizZip(bytes);
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    throw new ServiceError("corrupt_source", "Không đọc được tệp mẫu: tệp zip bị hỏng hoặc bị cắt cụt; hãy lưu lại mẫu bằng Word rồi gửi lại.", {
      reason: "corrupt_zip",
    });
  }
  const mimetype = zip.file("mimetype")?.asText().trim() ?? "";
  if (mimetype.startsWith("application/vnd.oasis.opendocument") || zip.file("META-INF/manifest.xml")) {
    throw notDocx("Mẫu là tài liệu OpenDocument (.odt/.ott): điền mẫu trong v1 chỉ nhận Word; hãy lưu mẫu thành .docx rồi gửi lại.", {
      detected: "odf",
    });
  }
  const types = zip.file("[Content_Types].xml")?.asText() ?? "";
  const main = [...types.matchAll(/<(?:\w+:)?Override\b[^>]*>/g)]
    .map((m) => m[0])
    .find((t) => /ContentType\s*=\s*["'][^"']*(wordprocessingml\.(document|template)\.main\+xml|spreadsheetml\.(sheet|template)\.main\+xml|presentationml\.(presentation|template|slideshow)\.main\+xml)/.test(t));
  if (!main || !/wordprocessingml\.(document|template)\.main\+xml/.test(main)) {
    const kind = main?.includes("spreadsheetml") ? "Excel" : main?.includes("presentationml") ? "PowerPoint" : null;
    throw notDocx(
      kind
        ? `Mẫu là tệp ${kind}: điền mẫu trong v1 chỉ nhận tài liệu Word .docx; hãy tạo mẫu bằng Word.`
        : "Mẫu phải là tệp Word .docx (hoặc .dotx): tệp zip đã gửi không có phần word/document.xml của Word.",
      kind ? { detected: kind === "Excel" ? "xlsx" : "pptx" } : {},
    );
  }
  return zip;
}

/** What a file that is no zip is, from its first bytes (workers/sniff.ts), when it is a format we name. */
function sniffedKind(bytes: Uint8Array): { detected?: string } {
  const kind = ({ pdf: "pdf", rtf: "rtf", html: "html", xml: "xml", text: "txt" } as Partial<Record<Sniff, string>>)[sniff(bytes.subarray(0, 8192))];
  return kind ? { detected: kind } : {};
}

/** Jinja2 statements ({% for %}, {%tr if %}, …): left as text by {{ }} parsing, so found here. */
function scanJinja(zip: PizZip): TemplateProblem[] {
  const out: TemplateProblem[] = [];
  for (const name of Object.keys(zip.files)) {
    if (!/^word\/[^/]+\.xml$/.test(name)) continue;
    const xml = zip.file(name)!.asText();
    // The text of each paragraph, runs joined (a tag is often split over several runs).
    for (const p of xml.split(/<\/w:p>/)) {
      const text = [...p.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => unescapeXml(m[1]!)).join("");
      for (const m of text.matchAll(/\{%.{0,200}?%\}/g)) out.push({ tag: m[0], reason: "jinja_statement", part: name });
    }
  }
  return out;
}

/**
 * All text of a part, runs and paragraphs joined, still XML-escaped (the text docxtemplater's error
 * offsets point into), cut back to the paragraph around `offset`: [paragraph text, offset within it].
 */
function paragraphAt(zip: PizZip, name: string, offset: number): [string, number] {
  const xml = zip.file(name)?.asText() ?? "";
  let start = 0;
  for (const p of xml.split(/<\/w:p>/)) {
    const text = [...p.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]!).join("");
    if (offset < start + text.length) return [text, offset - start];
    start += text.length;
  }
  return ["", -1];
}

// ---------------------------------------------------------------------------------------------
// Tags and values

/** The part of docxtemplater's parse tree we read. */
interface DxtPart {
  type: string;
  value: string;
  raw?: string;
  module?: string;
  location?: "start" | "end";
  inverted?: boolean;
  expandTo?: string;
  offset?: number;
  tag?: string;
  position?: string;
}

interface DxtContext {
  scopeList: unknown[];
  scopePath: string[];
  scopePathItem: number[];
}

interface RenderState {
  missing: string[];
  missingSeen: Set<string>;
  problems: TemplateProblem[];
  problemSeen: Set<string>;
}

function compileTag(tag: string, part: DxtPart | undefined, state: RenderState) {
  const path = tag.trim();
  const isLoop = part?.module === "loop";
  // A closing tag left unpaired is already an unopened_loop error; it has no value of its own.
  if (isLoop && part?.location === "end") return { get: () => "" };
  const refuse = (reason: TemplateReason) => new RefusedTag(reason, `{{${part?.raw ?? tag}}}`);
  if (part?.module === "rawxml") throw refuse("raw_xml");
  if (isLoop && part?.inverted) throw refuse("inverted_section");
  if (path.startsWith("%")) throw refuse("image");
  if (path.includes("|")) throw refuse("filter");
  if (path !== "." && !PATH.test(path)) throw refuse("expression");
  const segments = path === "." ? [] : path.split(".");
  const display = `{{${isLoop ? "#" : ""}${path}}}`;

  const problem = (reason: TemplateReason, field: string) => {
    const key = `${reason}\u0000${field}`;
    if (state.problemSeen.has(key)) return;
    state.problemSeen.add(key);
    state.problems.push({ tag: display, reason, field });
  };
  const missing = (field: string) => {
    if (state.missingSeen.has(field)) return;
    state.missingSeen.add(field);
    state.missing.push(field);
  };

  return {
    // Called once per tag and scope; always answers non-null so docxtemplater does not search
    // the outer scopes itself: the search is done here, from the innermost loop item outwards.
    get(_scope: unknown, ctx: DxtContext) {
      const found = lookup(ctx.scopeList, segments);
      const field = fieldName(ctx, path);
      if (isLoop) {
        if (!found || found.value == null) {
          missing(field);
          return [];
        }
        if (!Array.isArray(found.value)) {
          problem("condition", field);
          return [];
        }
        return found.value;
      }
      if (!found || found.value == null) {
        missing(field);
        return "";
      }
      if (typeof found.value === "object") {
        problem("object_value", field);
        return "";
      }
      return String(found.value);
    },
  };
}

/**
 * The value of a dotted path: in the innermost scope that has the whole path (own properties of
 * plain objects only; arrays are entered only by loops), then the enclosing loop items, then the
 * root. A key present with null stops the search (that item's value is missing, not the root's).
 */
function lookup(scopes: unknown[], segments: string[]): { value: unknown } | null {
  if (segments.length === 0) return { value: scopes[scopes.length - 1] };
  for (let i = scopes.length - 1; i >= 0; i--) {
    let cur: unknown = scopes[i];
    let ok = true;
    for (const seg of segments) {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur) || !Object.hasOwn(cur, seg)) {
        ok = false;
        break;
      }
      cur = (cur as Record<string, unknown>)[seg];
    }
    if (ok) return { value: cur };
  }
  return null;
}

/** "total", "items[2].price", "orders[0].lines[3].qty", "tags[1]" for {{.}} (0-based indexes). */
function fieldName(ctx: DxtContext, path: string): string {
  const loops = ctx.scopePath.map((p, i) => `${p.trim()}[${ctx.scopePathItem[i]}]`);
  if (path !== ".") loops.push(path);
  return loops.join(".") || ".";
}

// ---------------------------------------------------------------------------------------------
// Loop structure: table-row loops only

/**
 * A docxtemplater module that runs before the loop pairing (priority): it tracks table rows in the
 * parse tree, makes a loop whose two tags are in the same row repeat that row (even when both tags
 * are in one cell), and records loops that are outside a table row, span several rows, are nested
 * in the same row, or use the forced-expansion syntax {{-w:p x}}.
 */
class LoopStructureModule {
  readonly name = "SvcLoopStructure";
  readonly priority = 1000;
  readonly problems: TemplateProblem[] = [];
  private filePath = "";

  set(options: { inspect?: { filePath?: string } }) {
    if (options.inspect?.filePath) this.filePath = options.inspect.filePath;
  }

  postparse<T extends DxtPart>(parsed: T[]): T[] {
    const rows: number[] = [];
    let rowCounter = 0;
    const open: { part: DxtPart; row: number | undefined; refused: boolean | undefined }[] = [];
    const loopsInRow = new Map<number, number>();
    for (const part of parsed) {
      if (part.type === "tag" && part.tag === "w:tr") {
        if (part.position === "start") rows.push(++rowCounter);
        else if (part.position === "end") rows.pop();
        continue;
      }
      if (part.type !== "placeholder" || part.module !== "loop") continue;
      const row = rows[rows.length - 1];
      if (part.location === "start") {
        // Inverted sections are refused by the parser; forced expansion here. Neither is checked further.
        const refused = part.inverted || part.raw?.startsWith("-");
        if (part.raw?.startsWith("-")) this.add(`{{${part.raw}}}`, "forced_expansion", part.offset);
        if (row !== undefined && !refused) {
          // A second loop in the same row, nested or after the first one.
          if (loopsInRow.get(row)) this.add(`{{${part.raw ?? "#" + part.value}}}`, "several_loops_in_row", part.offset);
          loopsInRow.set(row, (loopsInRow.get(row) ?? 0) + 1);
        }
        open.push({ part, row, refused });
      } else if (part.location === "end") {
        const start = open[open.length - 1];
        // Mismatched names are docxtemplater's errors (loop_tags_mismatch); leave them to it.
        if (!start || (part.value !== "" && part.value !== start.part.value)) continue;
        open.pop();
        if (start.refused) continue;
        const shown = `{{${start.part.raw ?? "#" + start.part.value}}}`;
        if (start.row === undefined) this.add(shown, "loop_outside_table_row", start.part.offset);
        else if (start.row !== row) this.add(shown, "loop_spans_rows", start.part.offset);
        else if (start.part.expandTo === "auto") start.part.expandTo = "w:tr";
      }
    }
    return parsed;
  }

  private add(tag: string, reason: TemplateReason, offset: number | undefined) {
    if (!this.problems.some((p) => p.tag === tag && p.reason === reason && p.part === this.filePath && p.offset === offset)) {
      this.problems.push({ tag, reason, part: this.filePath || undefined, offset });
    }
  }
}
