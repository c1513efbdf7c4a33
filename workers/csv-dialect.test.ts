// A CSV opened in the editor is saved back in its own dialect (issue 21, item 25): delimiter,
// record separator, line breaks in cells, quotes only where needed, encoding and byte order mark.
// The editor round trip itself is app/edsrv/corpus-roundtrip.test.ts.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { csvFileToFods, csvInDialect, encodeText, type CsvDialect } from "./csv-import";
import { decodeText } from "./sniff";

const CORPUS = join(import.meta.dir, "../../shared/corpus");

test("every file type opens, edits and saves: text is written back in each encoding the sniffer reads", () => {
  const samples: [string, string][] = [
    ["shift_jis", "作業NO,ｶﾀｶﾅ,完了"],
    ["windows-1251", "Привет, мир"],
    ["koi8-r", "Привет, мир"],
    ["ibm866", "Привет, мир"],
    ["windows-1250", "Žluťoučký kůň"],
    ["windows-1252", "café, naïve"],
  ];
  for (const [encoding, text] of samples) {
    const bytes = encodeText(text, encoding, false);
    expect([encoding, new TextDecoder(encoding).decode(bytes)]).toEqual([encoding, text]);
  }
  expect(encodeText("Ab", "utf-16le", true)).toEqual(Uint8Array.from([0xff, 0xfe, 0x41, 0, 0x62, 0]));
  expect(encodeText("Ab", "utf-16be", true)).toEqual(Uint8Array.from([0xfe, 0xff, 0, 0x41, 0, 0x62]));
  expect(encodeText("é", "utf-8", true)).toEqual(Uint8Array.from([0xef, 0xbb, 0xbf, 0xc3, 0xa9]));
  // What an encoding cannot write becomes "?".
  expect(new TextDecoder("windows-1252").decode(encodeText("a作b", "windows-1252", false))).toBe("a?b");
});

test("every file type opens, edits and saves: the engine's CSV comes back in the source's dialect", () => {
  const engine = '"Name","City; Town","Note"\n"Ann","Oslo","two\nlines"\n"Bo","","say ""hi"""\n';
  const dialect: CsvDialect = { delimiter: ";", encoding: "utf-8", bom: false, newline: "\r\n", cellNewline: "\r\n", finalNewline: true };
  const out = new TextDecoder().decode(csvInDialect(engine.replaceAll(",", ";"), dialect));
  expect(out).toBe('Name;"City; Town";Note\r\nAnn;Oslo;"two\r\nlines"\r\nBo;;"say ""hi"""\r\n');
  const noFinal = new TextDecoder().decode(csvInDialect('"a","b"\n', { ...dialect, delimiter: ",", newline: "\n", finalNewline: false }));
  expect(noFinal).toBe("a,b");
});

test.skipIf(!existsSync(CORPUS))("every file type opens, edits and saves: a CSV's dialect is read from the file", () => {
  const dir = mkdtempSync(join(tmpdir(), "csv-dialect-"));
  try {
    const dialect = (rel: string) => {
      const { rows, cols, ...d } = csvFileToFods(join(CORPUS, rel), join(dir, "x.fods"));
      expect(rows).toBeGreaterThan(0);
      return d;
    };
    expect(dialect("csv/sheetjs_attendance.csv")).toEqual({ delimiter: ",", encoding: "utf-8", bom: false, newline: "\r\n", cellNewline: "\n", finalNewline: false });
    expect(dialect("csv/sheetjs_apachepoi_12561_japanese.csv")).toMatchObject({ delimiter: ",", encoding: "utf-8", newline: "\r\n", cellNewline: "\r\n" });
    expect(dialect("csv/markitdown_mskanji.csv")).toMatchObject({ delimiter: ",", encoding: "shift_jis", bom: false });
    expect(dialect("csv/unstructured_stanley_cups_utf16.csv")).toMatchObject({ encoding: "utf-16be", bom: true });
    expect(dialect("csv/unstructured_semicolon_delimited.csv")).toMatchObject({ delimiter: ";" });
    // The sheet is named after the name the person knows, not the kit's copy.
    writeFileSync(join(dir, "original.csv"), "a,b\n");
    csvFileToFods(join(dir, "original.csv"), join(dir, "y.fods"), { fileName: "Budget 2026.csv" });
    expect(readFileSync(join(dir, "y.fods"), "utf8")).toContain('table:name="Budget 2026"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
