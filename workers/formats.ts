// The one table of document formats: which family a source belongs to, which targets each
// family reaches, and the MIME type of each. The HTTP layer uses it to refuse impossible pairs
// before any engine work (415), the worker uses it to pick the engine's export filter, and
// GET /v1/formats publishes it as is.

export type Family = "text" | "spreadsheet" | "presentation";

export interface FormatInfo {
  ext: string;
  family: Family;
  contentType: string;
  /** Can be opened as a source. */
  source: boolean;
  /** Can be produced as a target within its family. */
  target: boolean;
  /** LibreOffice export filter name (saveAs format), when target. */
  filter?: string;
  /** Extra filter options passed to saveAs. */
  filterOptions?: string;
}

const f = (
  ext: string,
  family: Family,
  contentType: string,
  source: boolean,
  filter?: string,
  filterOptions?: string,
): FormatInfo => ({ ext, family, contentType, source, target: filter !== undefined, filter, filterOptions });

// Filter names are LibreOffice's (see `soffice --convert-to` docs); verified against 7.4.
export const FORMATS: readonly FormatInfo[] = [
  // text
  f("docx", "text", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", true, "MS Word 2007 XML"),
  f("doc", "text", "application/msword", true, "MS Word 97"),
  f("odt", "text", "application/vnd.oasis.opendocument.text", true, "writer8"),
  f("rtf", "text", "application/rtf", true, "Rich Text Format"),
  f("txt", "text", "text/plain; charset=utf-8", true, "Text (encoded)", "UTF8,LF,,,"),
  f("html", "text", "text/html; charset=utf-8", false, "HTML (StarWriter)"),
  f("epub", "text", "application/epub+zip", false, "EPUB"),
  f("docm", "text", "application/vnd.ms-word.document.macroEnabled.12", true),
  f("dotx", "text", "application/vnd.openxmlformats-officedocument.wordprocessingml.template", true),
  f("dotm", "text", "application/vnd.ms-word.template.macroEnabled.12", true),
  f("dot", "text", "application/msword", true),
  f("ott", "text", "application/vnd.oasis.opendocument.text-template", true),
  f("fodt", "text", "application/vnd.oasis.opendocument.text-flat-xml", true),
  // spreadsheet
  f("xlsx", "spreadsheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", true, "Calc MS Excel 2007 XML"),
  f("xls", "spreadsheet", "application/vnd.ms-excel", true, "MS Excel 97"),
  f("ods", "spreadsheet", "application/vnd.oasis.opendocument.spreadsheet", true, "calc8"),
  // 44 = comma, 34 = double quote, 76 = UTF-8, 1 = start at row 1 (LibreOffice CSV filter tokens).
  f("csv", "spreadsheet", "text/csv; charset=utf-8", true, "Text - txt - csv (StarCalc)", "44,34,76,1"),
  f("xlsm", "spreadsheet", "application/vnd.ms-excel.sheet.macroEnabled.12", true),
  f("xltx", "spreadsheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.template", true),
  f("ots", "spreadsheet", "application/vnd.oasis.opendocument.spreadsheet-template", true),
  f("fods", "spreadsheet", "application/vnd.oasis.opendocument.spreadsheet-flat-xml", true),
  f("tsv", "spreadsheet", "text/tab-separated-values", true),
  // presentation
  f("pptx", "presentation", "application/vnd.openxmlformats-officedocument.presentationml.presentation", true, "Impress MS PowerPoint 2007 XML"),
  f("ppt", "presentation", "application/vnd.ms-powerpoint", true, "MS PowerPoint 97"),
  f("odp", "presentation", "application/vnd.oasis.opendocument.presentation", true, "impress8"),
  f("pptm", "presentation", "application/vnd.ms-powerpoint.presentation.macroEnabled.12", true),
  f("potx", "presentation", "application/vnd.openxmlformats-officedocument.presentationml.template", true),
  f("ppsx", "presentation", "application/vnd.openxmlformats-officedocument.presentationml.slideshow", true),
  f("otp", "presentation", "application/vnd.oasis.opendocument.presentation-template", true),
  f("fodp", "presentation", "application/vnd.oasis.opendocument.presentation-flat-xml", true),
];

/** PDF is reachable from every family; its export filter depends on the family. */
export const PDF_FILTER: Record<Family, string> = {
  text: "writer_pdf_Export",
  spreadsheet: "calc_pdf_Export",
  presentation: "impress_pdf_Export",
};
export const PDF_CONTENT_TYPE = "application/pdf";

const byExt = new Map(FORMATS.map((x) => [x.ext, x]));

export function formatOf(ext: string): FormatInfo | undefined {
  return byExt.get(ext.toLowerCase());
}

export function extensionOf(filename: string): string | undefined {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(filename);
  return m ? m[1]!.toLowerCase() : undefined;
}

export function targetsOf(family: Family): string[] {
  return [...FORMATS.filter((x) => x.family === family && x.target).map((x) => x.ext), "pdf"];
}

/** The export filter and options for a target in the family of the loaded document, or undefined when the pair is impossible. */
export function exportFilterFor(family: Family, to: string): { filter: string; options: string } | undefined {
  const t = to.toLowerCase();
  if (t === "pdf") return { filter: PDF_FILTER[family], options: "" };
  const info = byExt.get(t);
  if (!info || !info.target || info.family !== family) return undefined;
  return { filter: info.filter!, options: info.filterOptions ?? "" };
}

export function contentTypeOf(ext: string): string {
  if (ext === "pdf") return PDF_CONTENT_TYPE;
  if (ext === "png") return "image/png";
  return byExt.get(ext)?.contentType ?? "application/octet-stream";
}
