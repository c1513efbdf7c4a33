// Macro check for POST /v1/template/render. Spec: "Template filling does not load the template
// through the engine, so a template with macros is rejected up front (422 macro_not_allowed)":
// an OOXML file with a vbaProject.bin part or a macro-enabled content type, or an ODF file with a
// Basic/ or Scripts/ folder; detail.reason and detail.part; returned at once even with async true.
//
// This reads only the zip directory, [Content_Types].xml and the *.rels parts; nothing is run,
// nothing goes through the engine. The rules, in the order they are checked (first hit wins):
//   1. vba_project         a zip entry whose name ends with "vbaProject.bin" (any folder, any case),
//                          or a relationship of type .../relationships/vbaProject in any *.rels part
//                          (part = the entry, or the relationship's resolved target).
//   2. macro_content_type  a content type in [Content_Types].xml that marks macros (MACRO_CONTENT_TYPE):
//                          an <Override> → part = its PartName (without the leading "/", as a zip entry name);
//                          a <Default> → part = the first entry with that extension, or
//                          "[Content_Types].xml" when no entry has it.
//   3. odf_basic           an entry under Basic/ (any case) → part "Basic/".
//   4. odf_scripts         an entry under Scripts/ (any case) → part "Scripts/".
// Every `part` is a zip entry name (no leading "/"), so a client can find it with any unzip tool.
// Not refused (not macros): ActiveX controls (activeX*.xml/.bin), OLE objects, digital signatures,
// legacy binary .doc/.dot files (not zips: renderTemplate refuses them as not_docx).

import { strFromU8, unzipSync } from "fflate";
import { ServiceError } from "../errors";

/**
 * Content types that mean "this package carries macros":
 *  - anything "macroEnabled": .docm/.dotm/.xlsm/.xltm/.xlam/.xlsb/.pptm/.potm/.ppsm/.ppam main parts,
 *    and embedded macro-enabled workbooks (application/vnd.ms-excel.sheet.macroEnabled.12);
 *  - application/vnd.ms-office.vbaProject (+ vbaProjectSignature*): the VBA project itself;
 *  - application/vnd.ms-word.vbaData+xml: Word's VBA data part (word/vbaData.xml);
 *  - application/vnd.ms-excel.macrosheet+xml / intlmacrosheet+xml: Excel 4.0 (XLM) macro sheets.
 */
export const MACRO_CONTENT_TYPE =
  /macroEnabled|^application\/vnd\.ms-office\.vbaProject|^application\/vnd\.ms-word\.vbaData\+xml$|^application\/vnd\.ms-excel\.(intl)?macrosheet\+xml$/i;

const VBA_REL_TYPE = /\/relationships\/vbaProject$/i;
/** Small parts read for the check; anything larger is not a real [Content_Types].xml or .rels. */
const MAX_READ = 4 * 1024 * 1024;

export type MacroReason = "vba_project" | "macro_content_type" | "odf_basic" | "odf_scripts";

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6);
}

function refuse(reason: MacroReason, part: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new ServiceError("macro_not_allowed", message, { reason, part, ...extra });
}

/** Attributes of one XML start tag, by local name. */
function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = m[1]!.replace(/^.*:/, "");
    out[name] = (m[2] ?? m[3] ?? "").replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&apos;/g, "'");
  }
  return out;
}

/** Where the package came from, for the advice in the messages. */
function saveAsHint(filename?: string): string {
  const ext = filename?.match(/\.([a-z0-9]+)$/i)?.[1]?.toLowerCase();
  if (ext && !["docm", "dotm", "docx", "dotx"].includes(ext)) {
    return `điền mẫu chỉ nhận tài liệu Word; hãy tạo mẫu bằng Word và lưu thành "Word Document (.docx)" rồi gửi lại`;
  }
  const from = ext ? `tệp .${ext}` : "mẫu";
  return `hãy mở ${from} trong Word, lưu thành "Word Document (.docx)" (macro sẽ bị loại bỏ) rồi gửi lại`;
}

/**
 * Throws ServiceError("macro_not_allowed", …, {reason, part}) when the template carries macros.
 * Bytes that are not a zip pass (nothing to scan; renderTemplate refuses them as not_docx).
 * A zip that cannot be read throws corrupt_source {reason: "corrupt_zip"}: an unreadable template
 * cannot be shown to be free of macros.
 */
export function checkMacros(bytes: Uint8Array, filename?: string): void {
  if (!isZip(bytes)) return;
  const names: string[] = [];
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      filter: (f) => {
        names.push(f.name);
        const lower = f.name.toLowerCase();
        return f.originalSize <= MAX_READ && (lower === "[content_types].xml" || lower.endsWith(".rels"));
      },
    });
  } catch {
    throw new ServiceError("corrupt_source", "Không đọc được tệp mẫu: tệp zip bị hỏng hoặc bị cắt cụt; hãy lưu lại mẫu bằng Word rồi gửi lại.", {
      reason: "corrupt_zip",
    });
  }
  const hint = saveAsHint(filename);

  // 1. The VBA project part itself.
  const vba = names.find((n) => n.toLowerCase().endsWith("vbaproject.bin"));
  if (vba) refuse("vba_project", vba, `Mẫu chứa dự án macro VBA (${vba}), không được phép: ${hint}.`);
  for (const [name, data] of Object.entries(entries)) {
    if (!name.toLowerCase().endsWith(".rels")) continue;
    for (const m of strFromU8(data).matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)) {
      const a = attrs(m[0]);
      if (!a.Type || !VBA_REL_TYPE.test(a.Type)) continue;
      const part = resolveTarget(name, a.Target ?? "");
      refuse("vba_project", part, `Mẫu có liên kết tới dự án macro VBA (${part}), không được phép: ${hint}.`);
    }
  }

  // 2. Macro-enabled content types.
  const ctName = Object.keys(entries).find((n) => n.toLowerCase() === "[content_types].xml");
  if (ctName) {
    const xml = strFromU8(entries[ctName]!);
    const defaults: { ext: string; type: string }[] = [];
    for (const m of xml.matchAll(/<(?:\w+:)?(Default|Override)\b[^>]*>/g)) {
      const a = attrs(m[0]);
      const type = a.ContentType ?? "";
      if (!MACRO_CONTENT_TYPE.test(type)) continue;
      if (m[1] === "Override") {
        const part = (a.PartName ?? "").replace(/^\//, "");
        refuse("macro_content_type", part, `Mẫu có phần ${part} với kiểu nội dung chứa macro (${type}), không được phép: ${hint}.`, { content_type: type });
      }
      defaults.push({ ext: (a.Extension ?? "").toLowerCase(), type });
    }
    for (const { ext, type } of defaults) {
      const part = names.find((n) => n.toLowerCase().endsWith(`.${ext}`)) ?? ctName;
      refuse("macro_content_type", part, `Mẫu khai báo kiểu nội dung chứa macro (${type}) cho tệp .${ext}, không được phép: ${hint}.`, {
        content_type: type,
      });
    }
  }

  // 3-4. ODF macro libraries and scripts.
  const top = (n: string) => n.split("/")[0]!.toLowerCase();
  if (names.some((n) => n.includes("/") && top(n) === "basic")) {
    refuse("odf_basic", "Basic/", "Mẫu ODF chứa macro LibreOffice Basic (thư mục Basic/), không được phép: hãy xóa macro hoặc lưu mẫu thành .docx rồi gửi lại.");
  }
  if (names.some((n) => n.includes("/") && top(n) === "scripts")) {
    refuse("odf_scripts", "Scripts/", "Mẫu ODF chứa kịch bản (thư mục Scripts/), không được phép: hãy xóa kịch bản hoặc lưu mẫu thành .docx rồi gửi lại.");
  }
}

/** A relationship target resolved against the folder of the part that owns the .rels file. */
function resolveTarget(relsName: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  // "word/_rels/document.xml.rels" belongs to "word/document.xml": targets are relative to "word/".
  const base = relsName.replace(/(^|\/)_rels\/[^/]*$/, "$1").split("/").filter(Boolean);
  for (const seg of target.split("/")) {
    if (seg === "..") base.pop();
    else if (seg !== "." && seg !== "") base.push(seg);
  }
  return base.join("/");
}
