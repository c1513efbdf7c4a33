// What can be wrong with a template (or with the data against it), and how it is told: the
// problems' reasons, the Vietnamese sentence for each, docxtemplater's errors translated into
// them, and the ServiceErrors render.ts throws.
import { ServiceError } from "../errors";

/** One problem of the template (or of the data against it), as returned in detail.errors. */
export interface TemplateProblem {
  /** Internal: character offset of the tag in its part, to list problems in document order; not returned. */
  offset?: number;
  /** The tag as written in the template, with its delimiters: "{{#items}}", "{%tr for i in items %}". */
  tag: string;
  reason: TemplateReason;
  /** Part of the package where the tag is, e.g. "word/document.xml", "word/header1.xml". */
  part?: string;
  /** Data path of the offending value, for the data problems (condition, object_value): "items[2].name". */
  field?: string;
}

export type TemplateReason =
  // Loop structure
  | "unclosed_loop"
  | "unopened_loop"
  | "loop_tags_mismatch"
  | "unbalanced_loop"
  | "loop_outside_table_row"
  | "loop_spans_rows"
  | "several_loops_in_row"
  // Tag syntax
  | "unclosed_tag"
  | "unopened_tag"
  | "duplicate_open_tag"
  | "duplicate_close_tag"
  // Features not in v1
  | "condition"
  | "inverted_section"
  | "image"
  | "raw_xml"
  | "filter"
  | "expression"
  | "forced_expansion"
  | "jinja_statement"
  // Data
  | "object_value"
  // Anything else docxtemplater reports (invalid XML in a part, …)
  | "template_invalid";

const MAX_LISTED = 10;

/** Error thrown by the parser at compile time; docxtemplater wraps it with the tag. */
export class RefusedTag extends Error {
  constructor(
    readonly reason: TemplateReason,
    /** The tag as written: "{{^paid}}", "{{@raw}}", "{{ date | date }}". */
    readonly shown: string,
  ) {
    super(reason);
  }
}

/**
 * A template that is not a Word file: the spec's 415 `unsupported_format` ("Source format not
 * recognised"; `template_error` is for unbalanced loops and missing fields), `detail.from` the
 * kind found (null when unknown) and `to` the format a template must be.
 */
export function notDocx(message: string, extra: { detected?: string } = {}): ServiceError {
  return new ServiceError("unsupported_format", message, { reason: "not_docx", from: extra.detected ?? null, to: "docx", ...extra });
}

export function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}

interface DxtError {
  message?: string;
  properties?: {
    id?: string;
    xtag?: string;
    file?: string;
    errors?: DxtError[];
    rootError?: unknown;
    context?: string;
    openingtag?: string;
    closingtag?: string;
    pair?: { left?: string; right?: string };
    offset?: number | number[];
  };
}

const DXT_REASON: Record<string, TemplateReason> = {
  unclosed_loop: "unclosed_loop",
  unopened_loop: "unopened_loop",
  closing_tag_does_not_match_opening_tag: "loop_tags_mismatch",
  unbalanced_loop_tags: "unbalanced_loop",
  loop_position_invalid: "loop_spans_rows",
  unclosed_tag: "unclosed_tag",
  unopened_tag: "unopened_tag",
  duplicate_open_tag: "duplicate_open_tag",
  duplicate_close_tag: "duplicate_close_tag",
  raw_xml_tag_should_be_only_text_in_paragraph: "raw_xml",
};

export function fromDocxtemplaterError(e: unknown, textAt: (part: string, offset: number) => [string, number]): TemplateProblem[] {
  const err = e as DxtError;
  const list = err?.properties?.id === "multi_error" && err.properties.errors ? err.properties.errors : [err];
  const out: TemplateProblem[] = [];
  for (const one of list) {
    const p = one?.properties ?? {};
    const part = p.file;
    const offset = Array.isArray(p.offset) ? p.offset[0] : p.offset;
    if (p.rootError instanceof RefusedTag) {
      out.push({ tag: p.rootError.shown, reason: p.rootError.reason, part, offset });
      continue;
    }
    const reason = (p.id && DXT_REASON[p.id]) || null;
    if (!reason) {
      if (p.id === "filetype_not_identified" || p.id === "filetype_not_handled") {
        throw notDocx("Mẫu phải là tệp Word .docx (hoặc .dotx): không nhận ra loại tài liệu.");
      }
      if (!p.id) throw e; // not a template problem: a bug, let it become 500 internal
      out.push({ tag: p.xtag ? `{{${p.xtag}}}` : "", reason: "template_invalid", part, offset });
      continue;
    }
    const [text, at] = part && offset !== undefined ? textAt(part, offset) : ["", -1];
    out.push({ tag: delimiterSnippet(reason, at, text) ?? shownDxtTag(reason, p), reason, part, offset });
  }
  // A stray "}}" or "{{" also leaves an empty tag behind: report the delimiter, not the "{{}}".
  if (out.some((o) => /^(unclosed|unopened|duplicate_open|duplicate_close)_tag$/.test(o.reason))) {
    return out.filter((o) => !(o.reason === "expression" && o.tag === "{{}}"));
  }
  return out;
}

/**
 * For a delimiter error, the text around it as written ("{{{name}}", "Tổng: {{total}}}"):
 * docxtemplater's own context is only the fragment it could not parse ("{").
 */
function delimiterSnippet(reason: TemplateReason, offset: number, text: string): string | null {
  if (offset < 0 || offset >= text.length) return null;
  let snippet: string;
  if (reason === "unclosed_tag" || reason === "duplicate_open_tag") {
    const close = text.indexOf("}}", offset);
    snippet = text.slice(offset, close >= 0 && close - offset <= 40 ? close + 2 : offset + 40);
  } else if (reason === "unopened_tag" || reason === "duplicate_close_tag") {
    const open = text.lastIndexOf("{{", offset);
    snippet = text.slice(open >= 0 && offset - open <= 40 ? open : Math.max(0, offset - 40), offset + 2);
  } else {
    return null;
  }
  snippet = unescapeXml(snippet).trim();
  return /[{}]/.test(snippet) ? snippet : null;
}

function shownDxtTag(reason: TemplateReason, p: NonNullable<DxtError["properties"]>): string {
  const x = p.xtag ?? "";
  switch (reason) {
    case "unclosed_loop":
      return `{{#${x}}}`;
    case "unopened_loop":
      return `{{/${x}}}`;
    case "loop_tags_mismatch":
      return `{{#${p.openingtag ?? ""}}} … {{/${p.closingtag ?? ""}}}`;
    case "unbalanced_loop":
      return `{{#${p.pair?.left ?? x}}}`;
    case "loop_spans_rows":
      return `{{#${x}}}`;
    case "unopened_tag":
      return `${(p.context ?? x).trim().slice(-40)}}}`;
    case "unclosed_tag":
    case "duplicate_open_tag":
    case "duplicate_close_tag":
      return (p.context ?? x).trim().slice(0, 60);
    default:
      return x ? `{{${x}}}` : "";
  }
}

/** The Vietnamese sentence for one problem, naming the tag and what to do. */
export function problemMessage(p: TemplateProblem): string {
  const t = p.tag;
  const name = t.replace(/^\{\{[#/^@%-]?/, "").replace(/\}\}$/, "").trim();
  switch (p.reason) {
    case "unclosed_loop":
      return `Vòng lặp ${t} chưa được đóng: hãy thêm {{/${name}}} vào cùng hàng bảng với ${t}.`;
    case "unopened_loop":
      return `Thẻ đóng ${t} không có thẻ mở {{#${name}}} tương ứng: hãy thêm {{#${name}}} vào cùng hàng bảng hoặc xóa ${t}.`;
    case "loop_tags_mismatch":
      return `Thẻ mở và thẻ đóng vòng lặp không cùng tên (${t}): hãy dùng cùng một tên cho cả hai thẻ.`;
    case "unbalanced_loop":
      return `Vòng lặp ${t} đan chéo với một vòng lặp khác: hãy đóng vòng lặp mở sau trước.`;
    case "loop_outside_table_row":
      return `Vòng lặp ${t} không nằm trong hàng bảng: trong v1 vòng lặp chỉ lặp lại một hàng bảng; hãy đặt ${t} và {{/${name}}} trong cùng một hàng.`;
    case "loop_spans_rows":
      return `Vòng lặp ${t} trải qua nhiều hàng bảng: hãy đặt ${t} và {{/${name}}} trong cùng một hàng.`;
    case "several_loops_in_row":
      return `Vòng lặp ${t} nằm trên cùng hàng bảng với một vòng lặp khác: mỗi hàng chỉ có một vòng lặp; hãy tách sang hàng khác hoặc dùng bảng lồng trong ô cho danh sách con.`;
    case "unclosed_tag":
      return `Thẻ "${t}" thiếu dấu đóng }}: hãy thêm }} sau tên trường.`;
    case "unopened_tag":
      return `Dấu đóng }} ở "${t}" không có dấu mở {{ tương ứng: hãy thêm {{ hoặc xóa }}.`;
    case "duplicate_open_tag":
      return `Thẻ ${t} có dấu mở {{ lặp lại: mỗi thẻ viết đúng một {{ và một }}.`;
    case "duplicate_close_tag":
      return `Thẻ ${t} có dấu đóng }} lặp lại: mỗi thẻ viết đúng một {{ và một }}.`;
    case "condition":
      return `Thẻ ${t} được dùng như điều kiện vì ${p.field ?? name} không phải mảng: điều kiện chưa có trong v1; vòng lặp cần một mảng, hãy tính sẵn nội dung trong dữ liệu.`;
    case "inverted_section":
      return `Thẻ ${t} (phần đảo ngược, một dạng điều kiện) chưa có trong v1: hãy xóa thẻ và tính sẵn nội dung trong dữ liệu.`;
    case "image":
      return `Thẻ ${t} (chèn ảnh) chưa có trong v1: hãy đặt ảnh trực tiếp vào mẫu.`;
    case "raw_xml":
      return `Thẻ ${t} (chèn XML thô) không được phép: hãy dùng trường văn bản {{${name}}}.`;
    case "filter":
      return `Thẻ ${t} dùng bộ lọc "|": bộ lọc (ngày, tiền…) chưa có trong v1; hãy định dạng sẵn giá trị trong dữ liệu và viết {{${name.split("|")[0]!.trim()}}}.`;
    case "expression":
      return `Thẻ ${t} không phải đường dẫn trường: v1 chỉ nhận tên trường dạng a.b.c (chữ, số, _ nối bằng dấu chấm), không có phép tính, dấu cách hay ngoặc.`;
    case "forced_expansion":
      return `Thẻ ${t} dùng cú pháp mở rộng "-" không có trong v1: hãy dùng {{#${name.split(/\s+/).pop()}}} … {{/${name.split(/\s+/).pop()}}} trong một hàng bảng.`;
    case "jinja_statement":
      return `Mẫu dùng câu lệnh Jinja2 ${t}: v1 không có {% %}; thay vòng for bằng {{#danh_sách}} … {{/danh_sách}} trong một hàng bảng, còn điều kiện if chưa có trong v1.`;
    case "object_value":
      return `Trường ${p.field ?? name} là đối tượng hoặc mảng nên không in được ở thẻ ${t}: hãy trỏ tới một giá trị, ví dụ {{${name}.tên_trường}}.`;
    case "template_invalid":
      return `Mẫu có lỗi không xử lý được${t ? ` ở thẻ ${t}` : ""}${p.part ? ` trong ${p.part}` : ""}: hãy mở và lưu lại mẫu bằng Word rồi gửi lại.`;
  }
}

/** Parts in order of first appearance; within a part, by offset (the text scan's finds, without offset, first). */
export function inDocumentOrder(problems: TemplateProblem[]): TemplateProblem[] {
  const partRank = new Map<string, number>();
  for (const p of problems) if (!partRank.has(p.part ?? "")) partRank.set(p.part ?? "", partRank.size);
  // The same problem found twice (by the row check here and by docxtemplater) is listed once.
  const seen = new Set<string>();
  const sharedRow = new Set(problems.filter((p) => p.reason === "several_loops_in_row").map((p) => `${p.part}\u0000${p.tag}`));
  return problems
    .filter((p) => !(p.reason === "unbalanced_loop" && sharedRow.has(`${p.part}\u0000${p.tag}`)))
    .filter((p) => {
      const key = [p.part, p.tag, p.reason, p.field].join("\u0000");
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .map((p, i) => ({ p, i }))
    .sort((a, b) => partRank.get(a.p.part ?? "")! - partRank.get(b.p.part ?? "")! || (a.p.offset ?? -1) - (b.p.offset ?? -1) || a.i - b.i)
    .map(({ p }) => p);
}

function listed(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(", ");
  return items.length > MAX_LISTED ? `${shown} và ${items.length - MAX_LISTED} trường khác (xem detail.fields)` : shown;
}

/** The data fields a tag as written names: "{{#items}}" → items, "{{#items}} … {{/lines}}" → items, lines. */
function fieldsOfTag(tag: string): string[] {
  return [...tag.matchAll(/\{\{\s*[#/^%@]?\s*([^{}\s|]+)\s*\}\}/g)].map((m) => m[1]!).filter((f) => PATH_OF_TAG.test(f));
}
const PATH_OF_TAG = /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/**
 * One template_error for everything found: detail.errors (template and data problems) and always
 * detail.fields (the spec's detail of template_error): the missing fields first (only when
 * missing = "error"), then the fields the faulty tags name (a loop's name, a data problem's
 * path), each once.
 */
export function templateError(problems: TemplateProblem[], fields: string[]): ServiceError {
  const detail: Record<string, unknown> = {};
  if (problems.length) {
    detail.errors = problems.map(({ tag, reason, part, field }) => ({ tag, reason, ...(part ? { part } : {}), ...(field ? { field } : {}) }));
  }
  detail.fields = [...new Set([...fields, ...problems.flatMap((p) => (p.field ? [p.field] : fieldsOfTag(p.tag)))])];
  let message: string;
  if (problems.length) {
    message = problemMessage(problems[0]!);
    const more = problems.length - 1;
    if (more > 0) message += ` Còn ${more} lỗi khác trong detail.errors.`;
    if (fields.length) message += ` Thiếu dữ liệu cho ${fields.length} trường (detail.fields).`;
  } else {
    message = `Thiếu dữ liệu cho ${fields.length} trường: ${listed(fields)}. Hãy thêm các trường này vào data hoặc dùng options.missing="empty".`;
  }
  return new ServiceError("template_error", message, detail);
}
