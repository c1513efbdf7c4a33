// Macro rules of POST /v1/template/render: checkMacros refuses OOXML packages with a VBA project or
// a macro-enabled content type, and ODF packages with Basic/ or Scripts/, naming the reason and part.

import { describe, expect, test } from "bun:test";
import { strFromU8, strToU8, unzipSync } from "fflate";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ServiceError } from "../errors";
import { checkMacros } from "./macros";
import { renderTemplate } from "./render";
import { buildDocx, invoiceTemplate, para, zipFiles } from "./make-fixtures";

const CORPUS = path.resolve(import.meta.dir, "../../../shared/corpus");
const corpus = (rel: string) => new Uint8Array(readFileSync(path.join(CORPUS, rel)));

/** The ServiceError thrown by fn, or a failure when nothing is thrown. */
function thrown(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error("expected a ServiceError, nothing was thrown");
}

/** A zip rebuilt from `bytes` with parts removed, replaced or added. */
function editZip(bytes: Uint8Array, edit: (files: Record<string, Uint8Array>) => void): Uint8Array {
  const files = unzipSync(bytes);
  edit(files);
  return zipFiles(files);
}

describe("macro_not_allowed: OOXML VBA projects", () => {
  for (const f of readdirSync(path.join(CORPUS, "docm")).filter((n) => n.endsWith(".docm"))) {
    test(`the corpus docm/${f} is refused as vba_project with part word/vbaProject.bin`, () => {
      const e = thrown(() => checkMacros(corpus(`docm/${f}`), f));
      expect(e.code).toBe("macro_not_allowed");
      expect(e.status).toBe(422);
      expect(e.detail).toEqual({ reason: "vba_project", part: "word/vbaProject.bin" });
      expect(e.message).toContain("word/vbaProject.bin");
    });
  }

  test("the corpus xlsm and pptm files are refused as vba_project with their own part", () => {
    expect(thrown(() => checkMacros(corpus("xlsm/poi_simple_macro.xlsm"))).detail).toEqual({ reason: "vba_project", part: "xl/vbaProject.bin" });
    expect(thrown(() => checkMacros(corpus("pptm/poi_simple_macro.pptm"))).detail).toEqual({ reason: "vba_project", part: "ppt/vbaProject.bin" });
  });

  test("a part named vbaProject.bin in any folder and any case is a VBA project", () => {
    const bytes = buildDocx(para("x"), { extraFiles: { "custom/VBAPROJECT.BIN": new Uint8Array([1, 2, 3]) } });
    expect(thrown(() => checkMacros(bytes)).detail).toEqual({ reason: "vba_project", part: "custom/VBAPROJECT.BIN" });
  });

  test("a vbaProject relationship to a renamed part is a VBA project, named by its resolved target", () => {
    const bytes = buildDocx(para("x"), {
      extraRels: `<Relationship Id="rIdV" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="macros/code.bin"/>`,
      extraFiles: { "word/macros/code.bin": new Uint8Array([1]) },
    });
    expect(thrown(() => checkMacros(bytes)).detail).toEqual({ reason: "vba_project", part: "word/macros/code.bin" });
  });

  test("renderTemplate checks macros before anything else: a docm with invalid data still gives macro_not_allowed", () => {
    const e = thrown(() => renderTemplate(corpus("docm/poi_simple_macro.docm"), "not an object", { missing: "error" }));
    expect(e.code).toBe("macro_not_allowed");
  });
});

describe("macro_not_allowed: macro-enabled content types", () => {
  test("a docx whose main part is declared macroEnabled, with the VBA project removed, is refused as macro_content_type", () => {
    const bytes = editZip(corpus("docm/poi_simple_macro.docm"), (files) => {
      delete files["word/vbaProject.bin"];
      delete files["word/_rels/vbaProject.bin.rels"];
      const rels = strFromU8(files["word/_rels/document.xml.rels"]!);
      files["word/_rels/document.xml.rels"] = strToU8(rels.replace(/<Relationship [^>]*vbaProject[^>]*\/>/, ""));
    });
    expect(Object.keys(unzipSync(bytes)).some((n) => /vbaProject/i.test(n))).toBe(false);
    const e = thrown(() => checkMacros(bytes, "renamed.docx"));
    expect(e.code).toBe("macro_not_allowed");
    expect(e.detail).toEqual({
      reason: "macro_content_type",
      part: "word/document.xml",
      content_type: "application/vnd.ms-word.document.macroEnabled.main+xml",
    });
  });

  test("a dotm (main part macroEnabledTemplate) is refused as macro_content_type", () => {
    const bytes = buildDocx(para("{{name}}"), { mainContentType: "application/vnd.ms-word.template.macroEnabledTemplate.main+xml" });
    const e = thrown(() => checkMacros(bytes, "mau.dotm"));
    expect(e.detail).toEqual({
      reason: "macro_content_type",
      part: "word/document.xml",
      content_type: "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
    });
    expect(e.message).toContain(".dotm");
  });

  test("a Default vbaProject content type with no such part names [Content_Types].xml", () => {
    const bytes = buildDocx(para("x"), { extraContentTypes: `<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>` });
    expect(thrown(() => checkMacros(bytes)).detail).toEqual({
      reason: "macro_content_type",
      part: "[Content_Types].xml",
      content_type: "application/vnd.ms-office.vbaProject",
    });
  });

  test("an embedded macro-enabled workbook (Default by extension) names the embedded part", () => {
    const bytes = buildDocx(para("x"), {
      extraContentTypes: `<Default Extension="xlsm" ContentType="application/vnd.ms-excel.sheet.macroEnabled.12"/>`,
      extraFiles: { "word/embeddings/Book1.xlsm": new Uint8Array([0x50, 0x4b]) },
    });
    expect(thrown(() => checkMacros(bytes)).detail).toEqual({
      reason: "macro_content_type",
      part: "word/embeddings/Book1.xlsm",
      content_type: "application/vnd.ms-excel.sheet.macroEnabled.12",
    });
  });

  test("Word's vbaData part and Excel 4.0 macro sheets are macro content types", () => {
    const vbaData = buildDocx(para("x"), { extraContentTypes: `<Override PartName="/word/vbaData.xml" ContentType="application/vnd.ms-word.vbaData+xml"/>` });
    expect(thrown(() => checkMacros(vbaData)).detail).toMatchObject({ reason: "macro_content_type", part: "word/vbaData.xml" });
    const xlm = buildDocx(para("x"), { extraContentTypes: `<Override PartName="/xl/macrosheets/sheet1.xml" ContentType="application/vnd.ms-excel.macrosheet+xml"/>` });
    expect(thrown(() => checkMacros(xlm)).detail).toMatchObject({ reason: "macro_content_type", part: "xl/macrosheets/sheet1.xml" });
  });
});

describe("macro_not_allowed: ODF Basic/ and Scripts/", () => {
  for (const rel of ["odt/tika_macro.odt", "ods/tika_macro.ods", "odp/tika_macro.odp"]) {
    test(`the corpus ${rel} is refused as odf_basic with part Basic/`, () => {
      const e = thrown(() => checkMacros(corpus(rel), path.basename(rel)));
      expect(e.code).toBe("macro_not_allowed");
      expect(e.detail).toEqual({ reason: "odf_basic", part: "Basic/" });
    });
  }

  test("renderTemplate refuses an ODF with macros as macro_not_allowed before refusing it as not Word", () => {
    expect(thrown(() => renderTemplate(corpus("odt/tika_macro.odt"), {})).detail).toEqual({ reason: "odf_basic", part: "Basic/" });
  });

  test("an ODF with a Scripts/ folder is refused as odf_scripts with part Scripts/", () => {
    const clean = corpus("odt/formatcorpus_lo7_odf13.odt");
    expect(() => checkMacros(clean)).not.toThrow();
    const bytes = editZip(clean, (files) => {
      files["Scripts/python/hello.py"] = strToU8("def hello(*args):\n    pass\n");
    });
    expect(thrown(() => checkMacros(bytes)).detail).toEqual({ reason: "odf_scripts", part: "Scripts/" });
  });
});

describe("checkMacros lets clean files through", () => {
  test("a clean docx (the invoice fixture and corpus documents) does not throw", () => {
    expect(() => checkMacros(invoiceTemplate(), "invoice.docx")).not.toThrow();
    for (const rel of ["docx/onlyoffice_sample.docx", "docx/docxtpl_order_template.docx", "docx/pythondocx_tables.docx", "odt/formatcorpus_lo7_odf13.odt"]) {
      expect(() => checkMacros(corpus(rel), rel)).not.toThrow();
    }
  });

  test("bytes that are not a zip pass the macro check (renderTemplate refuses them as not_docx)", () => {
    expect(() => checkMacros(strToU8("hello"))).not.toThrow();
    expect(() => checkMacros(new Uint8Array())).not.toThrow();
    expect(() => checkMacros(corpus("doc/tika_macros.doc"))).not.toThrow();
    expect(thrown(() => renderTemplate(corpus("doc/tika_macros.doc"), {})).detail).toMatchObject({ reason: "not_docx", detected: "ole2", from: "ole2" });
  });

  test("a zip that cannot be read is corrupt_source (corrupt_zip), not a pass and not template_error", () => {
    const whole = invoiceTemplate();
    const e = thrown(() => checkMacros(whole.slice(0, Math.floor(whole.length / 2))));
    expect(e.code).toBe("corrupt_source");
    expect(e.detail).toEqual({ reason: "corrupt_zip" });
  });
});
