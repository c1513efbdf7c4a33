// Template filling rules: {{ }} fields with dotted paths, table-row loops, the two missing modes,
// and template_error for every unbalanced loop and every feature v1 does not have.

import { describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import { XMLValidator } from "fast-xml-parser";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ServiceError } from "../errors";
import { MAX_UNZIPPED_MB, renderTemplate, type TemplateProblem } from "./render";
import {
  buildDocx,
  cell,
  FIXTURE_DIR,
  FIXTURES,
  INVOICE_DATA,
  invoiceTemplate,
  para,
  row,
  table,
  unbalancedLoopTemplate,
  zipFiles,
} from "./make-fixtures";

const CORPUS = path.resolve(import.meta.dir, "../../../shared/corpus");
const corpus = (rel: string) => new Uint8Array(readFileSync(path.join(CORPUS, rel)));

function thrown(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error("expected a ServiceError, nothing was thrown");
}

/** A part of the rendered package, checked to be well-formed XML. */
function partXml(docx: Uint8Array, name = "word/document.xml"): string {
  const xml = strFromU8(unzipSync(docx)[name]!);
  expect(XMLValidator.validate(xml)).toBe(true);
  return xml;
}

/** The text of a part, one line per paragraph. */
function textOf(docx: Uint8Array, name = "word/document.xml"): string[] {
  return partXml(docx, name)
    .split("</w:p>")
    .slice(0, -1)
    .map((p) => [...p.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(""));
}

/** Table rows of the document: the text of each cell. */
function rowsOf(docx: Uint8Array): string[][] {
  return [...partXml(docx).matchAll(/<w:tr[ >][\s\S]*?<\/w:tr>/g)]
    .map((m) => m[0])
    .map((r) => r.split("</w:tc>").slice(0, -1).map((c) => [...c.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join("")));
}

const problems = (e: ServiceError) => e.detail.errors as TemplateProblem[];

/** A one-table template: header row, a loop row, a footer row. */
const loopTemplate = (loopRow: string) =>
  buildDocx(para("Đơn hàng {{number}}") + table(["Tên", "SL", "Giá"], loopRow, ["Tổng", "", "{{total}}"]) + para("Hết."));
const itemsRow = row(cell("{{#items}}{{name}}"), cell("{{qty}}"), cell("{{price}}{{/items}}"));

describe("fields", () => {
  test("fields and dotted paths are filled, also when Word split a tag over runs and in headers", () => {
    const out = renderTemplate(invoiceTemplate(), INVOICE_DATA, { missing: "error" });
    const text = textOf(out);
    expect(text).toContain("Khách hàng: Công ty TNHH Ánh Dương");
    expect(text).toContain("Địa chỉ: 12 Lê Lợi, Quận 1, TP.HCM");
    expect(text).toContain("Ngày: 2025-03-14");
    expect(textOf(out, "word/header1.xml")).toEqual(["Số hóa đơn: HD-0001"]);
    expect(partXml(out)).not.toContain("{{");
  });

  test("numbers and booleans render with String(); 0, false and \"\" are values, not missing", () => {
    const tpl = buildDocx(para("n={{n}} f={{f}} t={{t}} z={{z}} e=[{{e}}] d={{d}}"));
    const out = renderTemplate(tpl, { n: 12.5, f: false, t: true, z: 0, e: "", d: -3 }, { missing: "error" });
    expect(textOf(out)).toEqual(["n=12.5 f=false t=true z=0 e=[] d=-3"]);
  });

  test("spaces around a path are ignored and field names may use Vietnamese letters", () => {
    const out = renderTemplate(buildDocx(para("{{ khách_hàng.tên }} / {{số}}")), { khách_hàng: { tên: "Lan" }, số: 7 }, { missing: "error" });
    expect(textOf(out)).toEqual(["Lan / 7"]);
  });

  test("values are escaped as text and a newline becomes a line break", () => {
    const out = renderTemplate(buildDocx(para("{{a}}")), { a: "<b>R&D</b>\nDòng 2" });
    const xml = partXml(out);
    expect(xml).toContain("&lt;b&gt;R&amp;D&lt;/b&gt;");
    expect(xml).toContain("<w:br/>");
    expect(textOf(out)[0]).toBe("&lt;b&gt;R&amp;D&lt;/b&gt;Dòng 2");
  });

  test("a path resolves only through own properties of objects (no prototype, no array length)", () => {
    const e = thrown(() => renderTemplate(buildDocx(para("{{constructor}} {{list.length}} {{obj.toString}}")), { list: [1], obj: {} }, { missing: "error" }));
    expect(e.detail.fields).toEqual(["constructor", "list.length", "obj.toString"]);
  });

  test("the template bytes are not changed and can be rendered again", () => {
    const tpl = invoiceTemplate();
    const copy = tpl.slice();
    renderTemplate(tpl, INVOICE_DATA);
    expect(textOf(renderTemplate(tpl, { ...INVOICE_DATA, date: "2026-01-01" }))).toContain("Ngày: 2026-01-01");
    expect(tpl).toEqual(copy);
  });
});

describe("table-row loops", () => {
  test("a row loop with 0 rows removes the row and leaves no empty row", () => {
    const out = renderTemplate(loopTemplate(itemsRow), { number: 1, items: [], total: 0 }, { missing: "error" });
    expect(rowsOf(out)).toEqual([
      ["Tên", "SL", "Giá"],
      ["Tổng", "", "0"],
    ]);
    expect(partXml(out).match(/<w:tr>/g)).toHaveLength(2);
  });

  test("a row loop with 1 row repeats the row once", () => {
    const out = renderTemplate(loopTemplate(itemsRow), { number: 1, items: [{ name: "Bút", qty: 2, price: "5.000" }], total: "10.000" });
    expect(rowsOf(out)).toEqual([
      ["Tên", "SL", "Giá"],
      ["Bút", "2", "5.000"],
      ["Tổng", "", "10.000"],
    ]);
  });

  test("a row loop with 1,000 rows repeats the row 1,000 times in order", () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: `Hàng ${i + 1}`, qty: i + 1, price: `${(i + 1) * 1000}` }));
    const tpl = loopTemplate(itemsRow);
    const t0 = performance.now();
    const out = renderTemplate(tpl, { number: 1, items, total: "x" }, { missing: "error" });
    const ms = performance.now() - t0;
    console.log(`[templates] 1,000-row render: ${ms.toFixed(1)} ms, ${out.length} bytes`);
    const rows = rowsOf(out);
    expect(rows).toHaveLength(1002);
    expect(rows[1]).toEqual(["Hàng 1", "1", "1000"]);
    expect(rows[1000]).toEqual(["Hàng 1000", "1000", "1000000"]);
    expect(rows[1001]).toEqual(["Tổng", "", "x"]);
  });

  test("both loop tags in one cell still repeat the whole row; {{.}} is the current item", () => {
    const out = renderTemplate(buildDocx(table(row(cell("{{#tags}}- {{.}}{{/tags}}")))), { tags: ["a", "b", "c"] });
    expect(rowsOf(out)).toEqual([["- a"], ["- b"], ["- c"]]);
  });

  test("inside a loop a path is looked up in the item first, then outwards to the root", () => {
    const tpl = buildDocx(table(row(cell("{{#items}}{{name}}"), cell("{{currency}}{{/items}}"))));
    const out = renderTemplate(tpl, { currency: "VND", items: [{ name: "A" }, { name: "B", currency: "USD" }] }, { missing: "error" });
    expect(rowsOf(out)).toEqual([
      ["A", "VND"],
      ["B", "USD"],
    ]);
  });

  test("a key present with null in the item is missing for that item; the root value is not used", () => {
    const tpl = buildDocx(table(row(cell("{{#items}}{{note}}{{/items}}"))));
    const e = thrown(() => renderTemplate(tpl, { note: "gốc", items: [{ note: "x" }, { note: null }] }, { missing: "error" }));
    expect(e.detail.fields).toEqual(["items[1].note"]);
  });

  test("a row loop inside a nested table repeats its inner row per item of the outer row", () => {
    const inner = table(row(cell("{{#lines}}{{sku}}"), cell("{{qty}}{{/lines}}")));
    const tpl = buildDocx(table(row(cell("{{#orders}}{{id}}"), `<w:tc>${inner}${para("")}</w:tc>`, cell("{{/orders}}"))));
    const data = { orders: [{ id: "D1", lines: [{ sku: "A", qty: 1 }, { sku: "B", qty: 2 }] }, { id: "D2", lines: [{ sku: "C", qty: 3 }] }] };
    const xml = partXml(renderTemplate(tpl, data, { missing: "error" }));
    expect(xml.replace(/<[^>]+>/g, "").trim()).toBe("D1A1B2D2C3");
    expect(xml.match(/<w:tr>/g)).toHaveLength(2 + 3);
    const e = thrown(() => renderTemplate(tpl, { orders: [{ id: "D1", lines: [{ sku: "A" }] }] }, { missing: "error" }));
    expect(e.detail.fields).toEqual(["orders[0].lines[0].qty"]);
  });
});

describe("options.missing", () => {
  test('missing "empty" renders missing fields as "" (never undefined or null) and a missing loop as 0 rows', () => {
    const out = renderTemplate(invoiceTemplate(), { customer: {}, items: [{ name: "A", qty: null }] }, { missing: "empty" });
    const xml = partXml(out);
    expect(xml).not.toMatch(/undefined|null|\{\{/);
    expect(textOf(out)).toContain("Khách hàng: ");
    expect(rowsOf(out)[1]).toEqual(["A", "", ""]);
    const none = renderTemplate(loopTemplate(itemsRow), {}, { missing: "empty" });
    expect(rowsOf(none)).toEqual([
      ["Tên", "SL", "Giá"],
      ["Tổng", "", ""],
    ]);
  });

  test("missing is empty by default", () => {
    expect(textOf(renderTemplate(buildDocx(para("[{{nothing}}]")), {}))).toEqual(["[]"]);
  });

  test('missing "error" lists every missing field of the document, headers and loop items included, in order', () => {
    const data = { customer: { name: "X" }, items: [{ name: "A", qty: 1, price: 2 }, { name: "B" }, { qty: 3, price: null }] };
    const e = thrown(() => renderTemplate(invoiceTemplate(), data, { missing: "error" }));
    expect(e.code).toBe("template_error");
    expect(e.status).toBe(422);
    expect(e.detail).toEqual({
      fields: ["number", "customer.address", "date", "items[1].qty", "items[1].price", "items[2].name", "items[2].price", "total"],
    });
    for (const f of e.detail.fields as string[]) expect(e.message).toContain(f);
  });

  test('missing "error" lists a missing loop by its name', () => {
    const e = thrown(() => renderTemplate(loopTemplate(itemsRow), { number: 1, total: 0 }, { missing: "error" }));
    expect(e.detail.fields).toEqual(["items"]);
  });

  test('missing "error" names each field once and the message shortens a long list', () => {
    const items = Array.from({ length: 30 }, () => ({ name: "x", qty: 1 }));
    const e = thrown(() => renderTemplate(loopTemplate(itemsRow), { number: 1, total: 1, items }, { missing: "error" }));
    expect(e.detail.fields).toHaveLength(30);
    expect((e.detail.fields as string[])[29]).toBe("items[29].price");
    expect(e.message).toContain("và 20 trường khác");
  });

  test("with every field present, missing error renders", () => {
    expect(() => renderTemplate(invoiceTemplate(), INVOICE_DATA, { missing: "error" })).not.toThrow();
  });
});

describe("unbalanced loops give template_error naming the tag", () => {
  test("an unclosed loop (fixture unbalanced-loop.docx)", () => {
    const e = thrown(() => renderTemplate(unbalancedLoopTemplate(), { customer: { name: "x" }, items: [] }));
    expect(e.code).toBe("template_error");
    expect(problems(e)).toEqual([{ tag: "{{#items}}", reason: "unclosed_loop", part: "word/document.xml" }]);
    expect(e.message).toContain("{{#items}}");
    expect(e.message).toContain("{{/items}}");
  });

  test("a closing tag without an opening tag", () => {
    const e = thrown(() => renderTemplate(loopTemplate(row(cell("{{name}}"), cell("{{qty}}"), cell("{{price}}{{/items}}"))), {}));
    expect(problems(e)).toEqual([{ tag: "{{/items}}", reason: "unopened_loop", part: "word/document.xml" }]);
    expect(e.message).toContain("{{/items}}");
  });

  test("opening and closing tags with different names", () => {
    const e = thrown(() => renderTemplate(loopTemplate(row(cell("{{#items}}{{name}}"), cell("{{qty}}"), cell("{{/lines}}"))), {}));
    expect(problems(e)).toEqual([{ tag: "{{#items}} … {{/lines}}", reason: "loop_tags_mismatch", part: "word/document.xml" }]);
  });

  test("interleaved loops", () => {
    const e = thrown(() => renderTemplate(buildDocx(table(row(cell("{{#a}}x{{#b}}"), cell("{{/a}}y{{/b}}")))), {}));
    expect(e.code).toBe("template_error");
    expect(problems(e).map((p) => p.reason)).toContain("loop_tags_mismatch");
  });

  test("a loop tag pair in a header is reported with the header part", () => {
    const tpl = buildDocx(para("x"), { header: para("{{#pages}}") });
    expect(problems(thrown(() => renderTemplate(tpl, {})))).toEqual([{ tag: "{{#pages}}", reason: "unclosed_loop", part: "word/header1.xml" }]);
  });

  test("an unclosed and a stray delimiter are named", () => {
    expect(problems(thrown(() => renderTemplate(buildDocx(para("Xin chào {{name")), {})))).toEqual([
      { tag: "{{name", reason: "unclosed_tag", part: "word/document.xml" },
    ]);
    expect(problems(thrown(() => renderTemplate(buildDocx(para("Xin chào name}}")), {})))).toEqual([
      { tag: "Xin chào name}}", reason: "unopened_tag", part: "word/document.xml" },
    ]);
    expect(problems(thrown(() => renderTemplate(buildDocx(para("R&D <x>") + para("a {{{name}}} b")), {})))).toEqual([
      { tag: "{{{name}}", reason: "unclosed_tag", part: "word/document.xml" },
      { tag: "{{name}}}", reason: "unopened_tag", part: "word/document.xml" },
    ]);
  });
});

describe("loops are table-row loops balanced within one row", () => {
  test("a loop over paragraphs outside a table is refused", () => {
    const e = thrown(() => renderTemplate(buildDocx(para("{{#items}}") + para("{{name}}") + para("{{/items}}")), { items: [{ name: "a" }] }));
    expect(problems(e)).toEqual([{ tag: "{{#items}}", reason: "loop_outside_table_row", part: "word/document.xml" }]);
    expect(e.message).toContain("{{#items}}");
  });

  test("an inline loop inside one paragraph is refused", () => {
    const e = thrown(() => renderTemplate(buildDocx(para("{{#tags}}{{.}}, {{/tags}}")), { tags: ["a"] }));
    expect(problems(e)[0]!.reason).toBe("loop_outside_table_row");
  });

  test("a loop spanning several rows is refused", () => {
    const tpl = buildDocx(table(row(cell("{{#items}}{{name}}"), cell("")), row(cell("{{qty}}"), cell("{{/items}}"))));
    expect(problems(thrown(() => renderTemplate(tpl, { items: [] })))).toEqual([{ tag: "{{#items}}", reason: "loop_spans_rows", part: "word/document.xml" }]);
  });

  test("a loop starting in a table and ending outside it is refused", () => {
    const tpl = buildDocx(table(row(cell("{{#items}}{{name}}"))) + para("{{/items}}"));
    const e = thrown(() => renderTemplate(tpl, { items: [] }));
    expect(e.code).toBe("template_error");
    expect(problems(e).map((p) => p.reason)).toEqual(["loop_spans_rows"]);
  });

  test("two loops in the same row, nested or one after the other, are refused", () => {
    const nested = buildDocx(table(row(cell("{{#a}}{{#b}}x"), cell("{{/b}}{{/a}}"))));
    expect(problems(thrown(() => renderTemplate(nested, { a: [{ b: [1] }] })))).toEqual([{ tag: "{{#b}}", reason: "several_loops_in_row", part: "word/document.xml" }]);
    const sequential = buildDocx(table(row(cell("{{#a}}X"), cell("{{/a}}{{#b}}Y{{/b}}"))));
    expect(problems(thrown(() => renderTemplate(sequential, { a: [1], b: [1] })))).toEqual([{ tag: "{{#b}}", reason: "several_loops_in_row", part: "word/document.xml" }]);
  });

  test("loops in different rows of one table are fine", () => {
    const tpl = buildDocx(table(row(cell("{{#a}}{{.}}{{/a}}")), ["—"], row(cell("{{#b}}{{.}}{{/b}}"))));
    expect(rowsOf(renderTemplate(tpl, { a: [1, 2], b: [3] }, { missing: "error" }))).toEqual([["1"], ["2"], ["—"], ["3"]]);
  });
});

describe("features not in v1 give template_error naming the tag", () => {
  const refused = (body: string, data: Record<string, unknown> = {}) => problems(thrown(() => renderTemplate(buildDocx(body), data)));

  test("a condition: {{#x}} on a boolean, an object, a string or a number", () => {
    const tpl = loopTemplate(row(cell("{{#paid}}Đã trả"), cell(""), cell("{{/paid}}")));
    for (const paid of [true, false, { at: "x" }, "yes", 1]) {
      const e = thrown(() => renderTemplate(tpl, { number: 1, total: 1, paid }));
      expect(e.code).toBe("template_error");
      expect(problems(e)).toEqual([{ tag: "{{#paid}}", reason: "condition", field: "paid" }]);
      expect(e.message).toContain("{{#paid}}");
    }
  });

  test("a missing section is not a condition: 0 rows", () => {
    const tpl = loopTemplate(row(cell("{{#paid}}Đã trả"), cell(""), cell("{{/paid}}")));
    expect(rowsOf(renderTemplate(tpl, { number: 1, total: 1 }))).toHaveLength(2);
  });

  test("an inverted section {{^x}}", () => {
    expect(refused(table(row(cell("{{^items}}Không có"), cell("{{/items}}"))))).toEqual([
      { tag: "{{^items}}", reason: "inverted_section", part: "word/document.xml" },
    ]);
  });

  test("an image {{%logo}}", () => {
    expect(refused(para("{{%logo}}"))).toEqual([{ tag: "{{%logo}}", reason: "image", part: "word/document.xml" }]);
  });

  test("raw XML {{@raw}}", () => {
    expect(refused(para("{{@raw}}"))).toEqual([{ tag: "{{@raw}}", reason: "raw_xml", part: "word/document.xml" }]);
  });

  test("filters: {{date | date}} and {{price|money}}", () => {
    expect(refused(para("{{date | date}}") + para("{{price|money}}"))).toEqual([
      { tag: "{{date | date}}", reason: "filter", part: "word/document.xml" },
      { tag: "{{price|money}}", reason: "filter", part: "word/document.xml" },
    ]);
  });

  test("expressions other than a dotted path: operators, brackets, inner spaces, calls", () => {
    const tags = ["{{a + b}}", "{{items[0].name}}", "{{first name}}", "{{total()}}", "{{a..b}}", "{{'x'}}"];
    expect(refused(tags.map((t) => para(t)).join(""))).toEqual(tags.map((tag) => ({ tag, reason: "expression", part: "word/document.xml" })));
  });

  test("forced expansion {{-w:p items}}", () => {
    const e = refused(table(row(cell("{{-w:tr items}}{{name}}"), cell("{{/items}}"))));
    expect(e).toEqual([{ tag: "{{-w:tr items}}", reason: "forced_expansion", part: "word/document.xml" }]);
  });

  test("an object where a value is expected names the field", () => {
    const e = thrown(() => renderTemplate(buildDocx(para("{{customer}}") + table(row(cell("{{#items}}{{name}}{{/items}}")))), { customer: { name: "x" }, items: [{ name: ["a"] }] }));
    expect(problems(e)).toEqual([
      { tag: "{{customer}}", reason: "object_value", field: "customer" },
      { tag: "{{name}}", reason: "object_value", field: "items[0].name" },
    ]);
    expect(e.message).toContain("customer");
  });

  test("all problems of a template are reported together, in document order", () => {
    const e = refused(para("{{%logo}}") + para("{{a | b}}") + table(row(cell("{{#x}}"))));
    expect(e.map((p) => p.reason)).toEqual(["image", "filter", "unclosed_loop"]);
  });

  test("the corpus docxtpl template (Jinja2) is refused naming each {% %} statement", () => {
    const e = thrown(() => renderTemplate(corpus("docx/docxtpl_order_template.docx"), { customer_name: "A", items: [] }));
    expect(e.code).toBe("template_error");
    expect(problems(e).map((p) => p.tag)).toEqual([
      "{%tr for i in items %}",
      "{%tr endfor %}",
      "{%p if is_paid %}",
      "{%p else %}",
      "{% if in_europe %}",
      "{% else %}",
      "{% endif %}",
      "{%p endif %}",
    ]);
    expect(problems(e).every((p) => p.reason === "jinja_statement")).toBe(true);
    expect(e.message).toContain("{%tr for i in items %}");
  });
});

describe("only Word templates", () => {
  test("data must be a JSON object", () => {
    for (const data of [null, [], "x", 3]) {
      const e = thrown(() => renderTemplate(invoiceTemplate(), data));
      expect(e.code).toBe("bad_request");
      expect(e.detail).toEqual({ errors: [{ path: "/data", message: "must be a JSON object" }] });
    }
  });

  test("a template that is not a Word file (not a zip, empty, OLE2) is 415 unsupported_format with detail.from and detail.to, not template_error", () => {
    const pdf = thrown(() => renderTemplate(new TextEncoder().encode("%PDF-1.7"), {}));
    expect([pdf.code, pdf.status, pdf.detail]).toEqual(["unsupported_format", 415, { reason: "not_docx", detected: "pdf", from: "pdf", to: "docx" }]);
    expect(thrown(() => renderTemplate(new Uint8Array(), {})).detail).toEqual({ reason: "not_docx", from: null, to: "docx" });
    const ole = thrown(() => renderTemplate(corpus("doc/jodconverter_multi_page.doc"), {}));
    expect([ole.code, ole.detail.from, ole.detail.to]).toEqual(["unsupported_format", "ole2", "docx"]);
    expect(ole.message).toContain(".docx");
  });

  test("an ODF text template without macros is refused as not_docx (Word templates only)", () => {
    expect(thrown(() => renderTemplate(corpus("odt/formatcorpus_lo7_odf13.odt"), {})).detail).toEqual({ reason: "not_docx", detected: "odf", from: "odf", to: "docx" });
  });

  test("a template declaring more than MAX_UNZIPPED_MB uncompressed is refused as too_large", () => {
    // A small zip whose central directory declares 300 MB for one entry; nothing is inflated to find out.
    const bomb = zipFiles({ "[Content_Types].xml": "<Types/>", "word/big.bin": new Uint8Array(1024) });
    const view = new DataView(bomb.buffer, bomb.byteOffset, bomb.byteLength);
    let patched = 0;
    for (let i = 0; i + 46 <= bomb.length; i++) {
      if (view.getUint32(i, true) !== 0x02014b50) continue; // central directory file header
      const name = new TextDecoder().decode(bomb.subarray(i + 46, i + 46 + view.getUint16(i + 28, true)));
      if (name === "word/big.bin") view.setUint32(i + 24, 300 * 1024 * 1024, true), patched++;
    }
    expect(patched).toBe(1);
    const e = thrown(() => renderTemplate(bomb, {}));
    expect([e.code, e.detail]).toEqual(["file_too_large", { reason: "too_large", limit_mb: MAX_UNZIPPED_MB }]);
  });

  test("an Excel package is refused as not_docx", () => {
    expect(thrown(() => renderTemplate(corpus("xlsx/onlyoffice_sample.xlsx"), {})).detail).toEqual({ reason: "not_docx", detected: "xlsx", from: "xlsx", to: "docx" });
  });

  test("a .dotx template renders and the result is typed as a .docx document", () => {
    const tpl = buildDocx(para("{{x}}"), { mainContentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml" });
    const out = renderTemplate(tpl, { x: "ok" });
    expect(textOf(out)).toEqual(["ok"]);
    const ct = strFromU8(unzipSync(out)["[Content_Types].xml"]!);
    expect(ct).toContain("wordprocessingml.document.main+xml");
    expect(ct).not.toContain("template.main+xml");
  });
});

describe("fixtures", () => {
  test("the committed fixtures/templates files are what make-fixtures.ts builds", () => {
    for (const [name, build] of Object.entries(FIXTURES)) {
      expect({ name, same: Buffer.from(readFileSync(path.join(FIXTURE_DIR, name))).equals(Buffer.from(build())) }).toEqual({ name, same: true });
    }
  });
});
