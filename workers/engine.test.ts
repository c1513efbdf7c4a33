// In-process tests of the office engine against real LibreOffice (no mocks). LibreOfficeKit can
// be initialised once per process, so every in-process test lives in this one file and shares
// the Engine started in beforeAll. Worker-process tests are in worker-main.test.ts.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strToU8, unzipSync, zipSync, strFromU8 } from "fflate";
import { DOCUMENT_SLOTS, OFFICE_SLOTS, fileUrl } from "./lok";
import { Engine, EngineError } from "./engine";
import { LOAD_OPTIONS, PASSWORD_LOAD_OPTIONS, writeProfileConfig } from "./profile";
import { decodeText, sniff } from "./sniff";
import { csvToFods } from "./csv-import";
import { FORMATS, targetsOf } from "./formats";
import { scaled } from "../app/testing/until";

const CORPUS = "/work/shared/corpus";
const T = scaled(60_000); // per-test timeout: LibreOffice work, not a speed assertion

let root: string;
let engine: Engine;
const logs: { level: string; event: string; fields?: Record<string, unknown> }[] = [];
let jobN = 0;

/** A fresh private job directory holding a copy of a corpus file (or of given bytes). */
function job(source: string | { name: string; bytes: Uint8Array | string }): { dir: string; input: string } {
  const dir = join(root, `job-${++jobN}`);
  mkdirSync(dir);
  if (typeof source === "string") {
    const input = join(dir, `input.${source.split(".").pop()}`);
    copyFileSync(join(CORPUS, source), input);
    return { dir, input };
  }
  const input = join(dir, source.name);
  writeFileSync(input, source.bytes);
  return { dir, input };
}

function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof EngineError) return e.code;
    throw e;
  }
  return "no error";
}

const isPdf = (p: string) => readFileSync(p).subarray(0, 5).toString("latin1") === "%PDF-";
const zipEntries = (p: string) => Object.keys(unzipSync(readFileSync(p)));
/** Only the input and the declared output remain: no lock files, no temporary copies. */
const leftovers = (dir: string, keep: string[]) => readdirSync(dir).filter((f) => !keep.includes(f));

// The profile lives outside the per-run directory and is reused: LibreOffice writes its
// registrymodifications.xcu again when the test process exits, after afterAll has run.
const PROFILE = join(tmpdir(), "svc-engine-test-profile");

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "engine-test-"));
  const existed = existsSync(join(PROFILE, "user"));
  engine = new Engine((level, event, fields) => logs.push({ level, event, fields }));
  engine.start(PROFILE);
  console.log(`engine start: ${engine.startMs} ms (${existed ? "existing" : "new"} profile), core ${JSON.stringify(engine.core)}`);
}, T);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("binding", () => {
  test("slot tables follow the order of LibreOfficeKit.h", () => {
    const h = readFileSync("/usr/include/LibreOfficeKit/LibreOfficeKit.h", "utf8");
    const members = (struct: string) => {
      const body = h.slice(h.indexOf(`struct ${struct}\n{`), h.indexOf("};", h.indexOf(`struct ${struct}\n{`)));
      // drop the iOS-only member, which Linux builds do not have
      const noIos = body.replace(/#ifdef IOS[\s\S]*?#endif/g, "").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      // Members only: a function pointer among a member's parameters (startURP's) is inside parentheses.
      return [...noIos.matchAll(/\(\*(\w+)\)\s*\(/g)]
        .filter((m) => { const before = noIos.slice(0, m.index); return before.split("(").length === before.split(")").length; })
        .map((m) => m[1]);
    };
    expect(members("_LibreOfficeKitClass")).toEqual([...OFFICE_SLOTS]);
    expect(members("_LibreOfficeKitDocumentClass")).toEqual([...DOCUMENT_SLOTS]);
  });

  test("paintPartTile paints the slide it is given, whatever the engine's signature of it (7.6 inserted nMode)", () => {
    // Called with 7.4's arguments, 25.2 read the canvas width as the mode and painted nothing.
    const { input } = job("pptx/onlyoffice_sample.pptx");
    const doc = engine.office!.documentLoad(fileUrl(input), LOAD_OPTIONS)!;
    try {
      doc.initializeForRendering("");
      const size = doc.getDocumentSize();
      const [w, h] = [160, Math.round((160 * size.height) / size.width)];
      const painted = (part: number) => {
        const buf = new Uint8Array(w * h * 4);
        doc.paintPartTile(buf, part, w, h, 0, 0, size.width, size.height);
        return buf;
      };
      const first = painted(0), second = painted(1);
      const opaque = (b: Uint8Array) => b.filter((_, i) => i % 4 === 3 && b[i] !== 0).length;
      expect(opaque(first)).toBeGreaterThan((w * h) / 2);
      expect(Buffer.from(first).equals(Buffer.from(second))).toBe(false);
    } finally {
      doc.destroy();
    }
  });

  test("core is reported by the running engine", () => {
    expect(engine.core.name).toBe("LibreOffice");
    expect(engine.core.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(engine.core.source).toContain("/usr/lib/libreoffice/program");
  });

  test("the profile pins macro security, link updates and no lock files before start", () => {
    const xcu = readFileSync(join(PROFILE, "user/registrymodifications.xcu"), "utf8");
    const has = (path: string, name: string, value: string) =>
      expect(xcu).toContain(`<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`);
    has("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "3");
    has("/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "true");
    has("/org.openoffice.Office.Writer/Content/Update", "Link", "0");
    has("/org.openoffice.Office.Calc/Content/Update", "Link", "1");
    has("/org.openoffice.Office.Common/Misc", "UseLocking", "false");
    expect(LOAD_OPTIONS).toContain("MacroSecurityLevel=3");
  });

  test("the profile config is honoured: no .~lock file beside an open document", () => {
    // Without UseLocking=false, LibreOffice writes .~lock.input.xlsx# next to the file while it is open.
    const { dir, input } = job("xlsx/tika_charts.xlsx");
    const doc = engine.office!.documentLoad(fileUrl(input), LOAD_OPTIONS);
    expect(doc).not.toBeNull();
    try {
      expect(readdirSync(dir)).toEqual(["input.xlsx"]);
    } finally {
      doc!.destroy();
    }
  }, T);

  test("restarting on an existing profile keeps LibreOffice's own entries and re-pins ours", () => {
    const dir = join(root, "profile-merge");
    mkdirSync(join(dir, "user"), { recursive: true });
    writeFileSync(
      join(dir, "user/registrymodifications.xcu"),
      `<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry">\n` +
        `<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="LastCompatibilityCheckID" oor:op="fuse"><value>40(Build:2)</value></prop></item>\n` +
        `<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>0</value></prop></item>\n` +
        `</oor:items>\n`,
    );
    writeProfileConfig(dir);
    const xcu = readFileSync(join(dir, "user/registrymodifications.xcu"), "utf8");
    expect(xcu).toContain("LastCompatibilityCheckID");
    expect(xcu).toContain('<prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value>');
    expect(xcu.match(/oor:name="MacroSecurityLevel"/g)).toHaveLength(1);
  });

  test("LibreOffice's temporary files stay inside the worker's profile, not in /tmp", () => {
    expect(readdirSync(join(PROFILE, "tmp")).some((f) => /^lu.*\.tmp$/.test(f))).toBe(true);
  });

  test("the password callback's native trampoline is ready after start", () => {
    expect(engine.passwordCallback).toBe(true);
  });
});

describe("convert", () => {
  test("docx, xlsx and pptx convert warm (timings logged, not asserted)", () => {
    const cases = [
      ["docx/pythondocx_tables.docx", "pdf"],
      ["xlsx/tika_charts.xlsx", "pdf"],
      ["pptx/pythonpptx_table_cell.pptx", "pdf"],
      ["docx/pythondocx_tables.docx", "odt"],
      ["xlsx/tika_charts.xlsx", "ods"],
    ] as const;
    const times: string[] = [];
    for (const [src, to] of cases) {
      const ms: number[] = [];
      for (let i = 0; i < 4; i++) {
        const { dir, input } = job(src);
        const out = join(dir, `out.${to}`);
        const t0 = performance.now();
        const r = engine.convert(input, out, to);
        ms.push(performance.now() - t0);
        expect(r.pages).toBeGreaterThan(0);
        if (to === "pdf") expect(isPdf(out)).toBe(true);
        else expect(zipEntries(out)).toContain("content.xml");
      }
      times.push(`${src}→${to}: first ${ms[0]!.toFixed(0)} ms, warm ${ms.slice(1).map((m) => m.toFixed(0)).join("/")} ms`);
    }
    console.log("warm conversions:\n  " + times.join("\n  ") + `\n  rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`);
  }, T);

  test("every target of formats.ts is reachable through LOK saveAs for its family", () => {
    const sources = { text: "odt/formatcorpus_lo7_odf13.odt", spreadsheet: "ods/formatcorpus_lo7_odf13.ods", presentation: "odp/formatcorpus_lo7_odf13.odp" } as const;
    for (const [family, src] of Object.entries(sources)) {
      for (const to of targetsOf(family as keyof typeof sources)) {
        const { dir, input } = job(src);
        const out = join(dir, `out.${to}`);
        const r = engine.convert(input, out, to);
        expect(r.family).toBe(family as any);
        expect(readFileSync(out).length).toBeGreaterThan(0);
      }
    }
    expect(FORMATS.filter((f) => f.target).length).toBeGreaterThan(0);
  }, T);

  test("txt output is UTF-8 without BOM and with LF line ends", () => {
    const { dir, input } = job("odt/formatcorpus_lo7_odf13.odt");
    const out = join(dir, "out.txt");
    engine.convert(input, out, "txt");
    const b = readFileSync(out);
    expect(b[0]).not.toBe(0xef);
    expect(b.toString("utf8")).toContain("This is an example document\n");
    expect(b.includes(0x0d)).toBe(false);
  }, T);

  test("unsupported_format for a target outside the loaded document's family", () => {
    for (const [src, to] of [["docx/pythondocx_tables.docx", "xlsx"], ["xlsx/tika_charts.xlsx", "docx"], ["pptx/pythonpptx_table_cell.pptx", "ods"], ["docx/pythondocx_tables.docx", "png"]]) {
      const { dir, input } = job(src!);
      expect(errorCode(() => engine.convert(input, join(dir, `out.${to}`), to!))).toBe("unsupported_format");
      expect(existsSync(join(dir, `out.${to}`))).toBe(false);
    }
  }, T);

  test("family comes from the loaded document, not the file name", () => {
    // A workbook that calls itself .docx is a spreadsheet.
    const { dir, input } = job({ name: "report.docx", bytes: readFileSync(join(CORPUS, "xlsx/tika_charts.xlsx")) });
    const r = engine.convert(input, join(dir, "out.ods"), "ods");
    expect(r.family).toBe("spreadsheet");
    expect(errorCode(() => engine.convert(input, join(dir, "out.odt"), "odt"))).toBe("unsupported_format");
  }, T);

  test("macro-enabled files convert and their macros never run", () => {
    for (const src of ["docm/poi_simple_macro.docm", "odt/tika_macro.odt", "xlsm/tika_macro.xlsm", "pptm/poi_simple_macro.pptm", "doc/tika_macros.doc", "xls/tika_macro.xls"]) {
      const { dir, input } = job(src);
      const r = engine.convert(input, join(dir, "out.pdf"), "pdf");
      expect(isPdf(join(dir, "out.pdf"))).toBe(true);
      expect(r.pages).toBeGreaterThan(0);
    }
    expect(engine.text(job("odt/tika_macro.odt").input).text).toContain("Hello dear user");
    // A document whose OnLoad event calls a Basic macro that would write a marker file.
    const { dir } = job({ name: "x.txt", bytes: "x" });
    const marker = join(dir, "macro-ran.txt");
    const odt = join(dir, "onload.odt");
    writeFileSync(odt, onLoadMacroOdt(marker));
    engine.convert(odt, join(dir, "out.pdf"), "pdf");
    engine.text(odt);
    expect(existsSync(marker)).toBe(false);
  }, T);

  test("no lock files or temporary copies are left in the job directory", () => {
    for (const src of ["xlsx/tika_charts.xlsx", "docx/pythondocx_tables.docx", "csv/sheetjs_attendance.csv", "txt/tika_russian_cp866.txt"]) {
      const { dir, input } = job(src);
      engine.convert(input, join(dir, "out.pdf"), "pdf");
      engine.text(input);
      engine.meta(input);
      engine.thumbnail(input, join(dir, "t.png"), 64);
      expect(leftovers(dir, [input.split("/").pop()!, "out.pdf", "t.png"])).toEqual([]);
    }
  }, T);

  test("odd file names (spaces, #, %, non-ASCII) load and leave nothing behind", () => {
    const name = "Bericht #1 50% Übersicht.docx";
    const { dir, input } = job({ name, bytes: readFileSync(join(CORPUS, "docx/pythondocx_header_footer.docx")) });
    engine.convert(input, join(dir, "out.pdf"), "pdf");
    expect(isPdf(join(dir, "out.pdf"))).toBe(true);
    expect(leftovers(dir, [name, "out.pdf"])).toEqual([]);
  }, T);
});

describe("passwords", () => {
  test("password_required when no password is given", () => {
    for (const src of ["docx/msoffcrypto_example_password.docx", "odt/odftoolkit_encrypted_pwd_hello.odt", "xls/msoffcrypto_xor_password.xls"]) {
      const { dir, input } = job(src);
      expect(errorCode(() => engine.convert(input, join(dir, "out.pdf"), "pdf"))).toBe("password_required");
    }
  }, T);

  test("password_required when the password is wrong", () => {
    for (const src of ["docx/msoffcrypto_example_password.docx", "ods/collabora_password_protected.ods"]) {
      const { dir, input } = job(src);
      expect(errorCode(() => engine.convert(input, join(dir, "out.pdf"), "pdf", "not-the-password"))).toBe("password_required");
    }
  }, T);

  test("the right password opens OOXML, ODF and legacy encrypted files (callback answered re-entrantly)", () => {
    const cases = [
      ["docx/msoffcrypto_example_password.docx", "Password1234_", "Lorem ipsum"],
      ["odt/odftoolkit_encrypted_pwd_hello.odt", "hello", "Hello World"],
      ["xlsx/tika_protected_passtika.xlsx", "tika", "Encrypted Excel"],
      ["ods/collabora_password_protected.ods", "1", "Sheet1"],
      ["doc/msoffcrypto_rc4cryptoapi_password.doc", "Password1234_", ""],
      ["xls/msoffcrypto_xor_password.xls", "123456789012345", ""],
      ["pptx/tika_protected_passtika.pptx", "tika", "encrypted PowerPoint"],
    ] as const;
    for (const [src, pw, words] of cases) {
      const { dir, input } = job(src);
      const r = engine.convert(input, join(dir, "out.pdf"), "pdf", pw);
      expect(isPdf(join(dir, "out.pdf"))).toBe(true);
      expect(r.pages).toBeGreaterThan(0);
      if (words) expect(engine.text(input, pw).text).toContain(words);
    }
    // The XLSX import parses sheets on LibreOffice's own threads, which call the office callback
    // too; the native trampoline drops those (a non-threadsafe JSCallback entered from a foreign
    // thread would block forever).
    console.log(`office callbacks dropped from non-JS threads: ${engine.office!.droppedCallbacks()}`);
  }, T);

  test("a password given for an unencrypted file is ignored", () => {
    const { dir, input } = job("docx/pythondocx_tables.docx");
    expect(engine.convert(input, join(dir, "out.pdf"), "pdf", "whatever").family).toBe("text");
  }, T);
});

describe("corrupt and empty sources", () => {
  test("corrupt_source for files the engine cannot open", () => {
    for (const src of ["docx/tika_truncated.docx", "odt/collabora_corrupted.odt", "pptx/poi_clusterfuzz_xslf.pptx", "doc/nwe_badfile_bad_header.doc"]) {
      const { dir, input } = job(src);
      expect(errorCode(() => engine.convert(input, join(dir, "out.pdf"), "pdf"))).toBe("corrupt_source");
    }
    const err = logs.filter((l) => l.event === "engine_load_failed");
    expect(err.length).toBeGreaterThan(0);
  }, T);

  test("corrupt_source for empty files and packages that are not ZIP", () => {
    for (const src of ["odt/collabora_empty_0bytes.odt", "txt/unstructured_empty.txt", "ods/odftoolkit_empty_file_1byte.ods", "odt/tika_not_a_zip.odt", "xlsx/poi_invalid_22bytes.xlsx"]) {
      const { dir, input } = job(src);
      expect(errorCode(() => engine.convert(input, join(dir, "out.pdf"), "pdf"))).toBe("corrupt_source");
      expect(errorCode(() => engine.text(input))).toBe("corrupt_source");
    }
  }, T);
});

describe("CSV and plain text", () => {
  test("a CSV given straight to LibreOffice never waits on its import dialog, with or without a callback", () => {
    // LibreOffice 7.4 blocked forever on Calc's text-import dialog once an office callback was
    // registered; 25.2 loads a CSV in batch mode (with its default dialect: comma, no encoding
    // detection, which is why csv-import.ts still parses CSV itself) and, with the password
    // callback registered and no Batch (the second phase of a load), gives up at once.
    // Blocking on the dialog would never return: the test's own timeout is the bound.
    const { input } = job("csv/sheetjs_attendance.csv");
    const batch = engine.office!.documentLoad(fileUrl(input), LOAD_OPTIONS);
    expect(batch).not.toBeNull();
    batch!.destroy();
    engine.office!.registerCallback(() => {});
    try {
      const interactive = engine.office!.documentLoad(fileUrl(input), PASSWORD_LOAD_OPTIONS);
      interactive?.destroy();
    } finally {
      engine.office!.unregisterCallback();
    }
  }, T);

  test("every corpus CSV converts to xlsx, ods and pdf", () => {
    const csvs = readdirSync(join(CORPUS, "csv"));
    expect(csvs.length).toBeGreaterThanOrEqual(7);
    for (const f of csvs) {
      for (const to of ["xlsx", "ods", "pdf"]) {
        const { dir, input } = job(`csv/${f}`);
        const r = engine.convert(input, join(dir, `out.${to}`), to);
        expect(r.family).toBe("spreadsheet");
        expect(r.pages).toBe(1);
        if (to === "pdf") expect(isPdf(join(dir, "out.pdf"))).toBe(true);
        else expect(zipEntries(join(dir, `out.${to}`)).length).toBeGreaterThan(2);
      }
    }
  }, T);

  test("CSV encodings and delimiters are detected (Shift_JIS, UTF-16, semicolons, multi-line cells)", () => {
    const text = (f: string) => engine.text(job(`csv/${f}`).input).text;
    expect(text("markitdown_mskanji.csv")).toContain("佐藤太郎\t30\t東京");
    expect(text("unstructured_stanley_cups_utf16.csv")).toContain("Stanley Cups");
    expect(text("unstructured_semicolon_delimited.csv").split("\n")[1]!.split("\t")).toHaveLength(3);
    expect(text("sheetjs_apachepoi_12561_japanese.csv")).toContain("作業NO");
    expect(text("made_vietnamese_prices.csv")).toContain("Mã hàng");
    // the quoted cell keeps its line breaks inside one cell of the sheet
    const { dir, input } = job("csv/lo_cell_with_line_break.csv");
    engine.convert(input, join(dir, "out.ods"), "ods");
    const content = strFromU8(unzipSync(readFileSync(join(dir, "out.ods")))["content.xml"]!);
    expect(content).toContain("<text:p>one</text:p><text:p>two</text:p><text:p>three</text:p>");
  }, T);

  test("CSV formulas stay text: nothing is evaluated", () => {
    const { dir, input } = job({ name: "f.csv", bytes: 'a,b\n1,"=1+1"\n' });
    engine.convert(input, join(dir, "out.csv"), "csv");
    expect(readFileSync(join(dir, "out.csv"), "utf8")).toContain("=1+1");
  }, T);

  test("tab-separated text named .xls converts as a spreadsheet without hanging", () => {
    const { dir, input } = job("xls/lo_malformed_quotes_tsv_named_xls.xls");
    const r = engine.convert(input, join(dir, "out.xlsx"), "xlsx");
    expect(r.family).toBe("spreadsheet");
    expect(engine.text(input).text).toContain("Record Type\tAgency");
  }, T);

  test("plain text in UTF-16, CP866 and UTF-8 loads with the right characters", () => {
    expect(engine.text(job("txt/unstructured_utf16.txt").input).text).toContain("This is a test document to use for unit tests.");
    expect(engine.text(job("txt/tika_russian_cp866.txt").input).text).toContain("Однажды, в студеную зимнюю пору,");
    const udhr = engine.text(job("txt/unstructured_udhr_article1_all_languages.txt").input);
    expect(udhr.text).toContain("Universal Declaration of Human Right");
    expect(udhr.family).toBe("text");
  }, T);

  test("decodeText, sniff and csvToFods (units)", () => {
    expect(decodeText(readFileSync(join(CORPUS, "txt/tika_russian_cp866.txt"))).encoding).toBe("ibm866");
    expect(decodeText(readFileSync(join(CORPUS, "csv/markitdown_mskanji.csv"))).encoding).toBe("shift_jis");
    expect(decodeText(new TextEncoder().encode("héllo")).encoding).toBe("utf-8");
    expect(decodeText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65])).text).toBe("café crème");
    expect(sniff(readFileSync(join(CORPUS, "xls/lo_malformed_quotes_tsv_named_xls.xls")))).toBe("text");
    expect(sniff(readFileSync(join(CORPUS, "xlsx/poi_invalid_22bytes.xlsx")))).toBe("zip-empty");
    const f = csvToFods("id,name\n007,  two  spaces\n3.5,<b>&\n", "S");
    expect(f.xml).toContain('office:value-type="float" office:value="3.5"');
    expect(f.xml).toContain("<text:p>007</text:p>"); // leading zeros keep the text
    expect(f.xml).toContain('<text:s text:c="2"/>two<text:s text:c="2"/>spaces');
    expect(f.xml).toContain("&lt;b&gt;&amp;");
  });
});

describe("text, meta, thumbnail", () => {
  test("text of a docx contains its words, with the page count", () => {
    const r = engine.text(job("docx/onlyoffice_sample.docx").input);
    expect(r.family).toBe("text");
    expect(r.text).toContain("Welcome to ONLYOFFICE Online Editors");
    expect(r.pages).toBe(1);
    expect(engine.text(job("doc/jodconverter_multi_page.doc").input).pages).toBe(3);
  }, T);

  test("text of a workbook lists every sheet, tab separated", () => {
    const r = engine.text(job("xlsx/unstructured_half_year_analyses.xlsx").input);
    expect(r.family).toBe("spreadsheet");
    expect(r.pages).toBe(5);
    expect(r.text).toContain("OS-Rev.and results 30 06 2023");
    expect(r.text).toContain("Reconciliation 30 06 2023");
    expect(r.text).toMatch(/Zone NA\t12[ ,.]?553/);
  }, T);

  test("text of a presentation is its slide text, notes excluded", () => {
    const r = engine.text(job("pptx/onlyoffice_sample.pptx").input);
    expect(r.family).toBe("presentation");
    expect(r.pages).toBe(8);
    expect(r.text).toContain("Throw Out");
    const p = engine.text(job("odp/formatcorpus_lo7_odf13.odp").input);
    expect(p.text).toContain("An example Impress file");
  }, T);

  test("meta reads properties and statistics", () => {
    const doc = engine.meta(job("doc/jodconverter_multi_page.doc").input);
    expect(doc).toMatchObject({ family: "text", author: "Mirko Nasato", created: "2008-07-12T19:03:00.000Z", pages: 3 });
    expect(doc.words).toBeGreaterThan(10);
    expect(doc.characters).toBeGreaterThan(doc.words!);
    const ppt = engine.meta(job("pptx/pythonpptx_notes.pptx").input);
    expect(ppt).toMatchObject({ family: "presentation", title: "Presentation", author: "python-pptx", created: "2012-11-17T11:07:40.000Z" });
    expect(ppt.words).toBeNull();
    const xls = engine.meta(job("xlsx/unstructured_half_year_analyses.xlsx").input);
    expect(xls).toMatchObject({ family: "spreadsheet", author: "ibays", modified: "2023-07-26T18:31:42.000Z", pages: 5 });
    expect(Array.isArray(xls.keywords)).toBe(true);
    const odt = engine.meta(job("odt/formatcorpus_lo7_odf13.odt").input);
    expect(odt.words).toBe(5);
  }, T);

  test("thumbnail is a PNG of the first page at the requested width", () => {
    for (const [src, family] of [["docx/onlyoffice_sample.docx", "text"], ["xlsx/tika_charts.xlsx", "spreadsheet"], ["pptx/onlyoffice_sample.pptx", "presentation"]] as const) {
      const { dir, input } = job(src);
      const out = join(dir, "t.png");
      const r = engine.thumbnail(input, out, 200);
      const png = readFileSync(out);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.readUInt32BE(16)).toBe(200);
      expect(png.readUInt32BE(20)).toBe(r.height);
      expect(r).toMatchObject({ family, width: 200 });
      if (family === "presentation") expect(r.height).toBe(150); // 4:3 slides
      if (family === "text") expect(r.height).toBe(259); // US Letter 8.5×11 in
    }
  }, T);

  test("thumbnail of a page with content is not blank", () => {
    const { dir, input } = job("pptx/onlyoffice_sample.pptx");
    engine.thumbnail(input, join(dir, "t.png"), 64);
    // decode: the PNG's IDAT holds "Up"-filtered rows; a non-white slide has dark pixels
    const png = readFileSync(join(dir, "t.png"));
    const idat = png.subarray(png.indexOf("IDAT") + 4, png.indexOf("IEND") - 8);
    const raw = Bun.inflateSync(idat.subarray(2, idat.length - 4));
    const nonWhite = raw.filter((v, i) => i % (64 * 3 + 1) !== 0 && v !== 0).length;
    expect(nonWhite).toBeGreaterThan(100);
  }, T);
});

/** A minimal ODT whose OnLoad event runs a document Basic macro that writes `marker`. */
function onLoadMacroOdt(marker: string): Uint8Array {
  const x = (s: string) => strToU8(`<?xml version="1.0" encoding="UTF-8"?>\n${s}`);
  return zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
    "content.xml": x(
      `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">` +
        `<office:scripts><office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" xlink:type="simple" xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document"/></office:event-listeners></office:scripts>` +
        `<office:body><office:text><text:p>OnLoad macro fixture</text:p></office:text></office:body></office:document-content>`,
    ),
    "Basic/script-lc.xml": x(
      `<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink"><library:library library:name="Standard" library:link="false"/></library:libraries>`,
    ),
    "Basic/Standard/script-lb.xml": x(
      `<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false"><library:element library:name="Module1"/></library:library>`,
    ),
    "Basic/Standard/Module1.xml": x(
      `<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">Sub Main\n  Dim n As Integer\n  n = FreeFile\n  Open "${marker}" For Output As #n\n  Print #n, "macro ran"\n  Close #n\nEnd Sub\n</script:module>`,
    ),
    "META-INF/manifest.xml": x(
      `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
        `<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>` +
        ["content.xml", "Basic/script-lc.xml", "Basic/Standard/script-lb.xml", "Basic/Standard/Module1.xml"]
          .map((p) => `<manifest:file-entry manifest:full-path="${p}" manifest:media-type="text/xml"/>`)
          .join("") +
        `</manifest:manifest>`,
    ),
  });
}
