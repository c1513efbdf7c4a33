// Every file type opens, edits and saves in the editor (issue 21, item 25): two real files of each
// of the 12 types of the shared corpus are opened in the editing server (protocol level, as a page
// does), two letters are typed at the end as a word of their own, the document is saved, and the
// text of the version the WOPI host stored is compared with the original's, both extracted by the
// DocBuilder engine: at least 99 % of the words are kept, the typed letters are there, and the
// stored file is of the original's type (a CSV stays CSV: its own bytes, then the new row).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { sniff } from "../../workers/sniff";
import { AUTH, CORPUS, enterpriseEnv, form, startTestService, type Harness } from "../testing/harness";
import { createEdsrv, type Edsrv } from "./server";
import { startWopiHost } from "./testing/wopi-host";
import { TYPED, lostWords, roundTrip, words } from "./testing/corpus-roundtrip";
import { scaled } from "../testing/until";

/** Two files of each type the editor takes. */
const FILES = [
  "docx/onlyoffice_sample.docx",
  "docx/pythondocx_tables.docx",
  "doc/nwe_test06_tables_headers.doc",
  "doc/nwe_test11_chinese.doc",
  "odt/formatcorpus_lo7_odf13.odt",
  "odt/odftoolkit_headerfooter.odt",
  "rtf/formatcorpus_testrtf.rtf",
  "rtf/tika_word2010_czech.rtf",
  "txt/formatcorpus_lorem_ipsum.txt",
  "txt/unstructured_utf16.txt",
  "xlsx/onlyoffice_sample.xlsx",
  "xlsx/poi_51519_cjk.xlsx",
  "xls/poi_chinese_provinces.xls",
  "xls/tika_charts.xls",
  "ods/formatcorpus_lo7_odf13.ods",
  "ods/made_vietnamese_contract_or_table.ods",
  "csv/sheetjs_attendance.csv",
  "csv/sheetjs_apachepoi_12561_japanese.csv",
  "pptx/onlyoffice_sample.pptx",
  "pptx/pythonpptx_table_cell.pptx",
  "ppt/poi_54880_chinese.ppt",
  "ppt/tika_mschart_govdocs.ppt",
  "odp/formatcorpus_lo7_odf13.odp",
  "odp/tika_master_footer.odp",
];

let svc: Harness;
let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
let origin: string;
let seq = 0;

const present = existsSync(path.join(CORPUS, "MANIFEST.tsv"));

beforeAll(async () => {
  if (!present) return;
  host = startWopiHost();
  host.addToken("tok_rt", "u1", true, "Alice");
  const [s, e] = await Promise.all([
    startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() }),
    createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-roundtrip-")), SVC_ONLINE_ALIASGROUP1: host.origin }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 2,
      autosaveSeconds: 0,
    }),
  ]);
  svc = s;
  ed = e;
  origin = `http://${new URL(ed.url).host}`;
}, scaled(120_000));

afterAll(async () => {
  await ed?.close();
  host?.stop();
  await svc?.close();
});

/** The text the DocBuilder engine extracts (cells tab-separated, slides in order). */
async function extractText(name: string, bytes: Uint8Array): Promise<string> {
  const res = await fetch(`${svc.url}/v1/extract/text`, { method: "POST", headers: AUTH, body: form({ bytes, name }) });
  const body = (await res.json()) as { text?: string; error?: unknown };
  if (res.status !== 200) throw new Error(`extract ${name}: ${res.status} ${JSON.stringify(body.error)}`);
  return body.text!;
}

describe.skipIf(!present)("every file type opens, edits and saves in the editor", () => {
  for (const rel of FILES) {
    test(`${rel}: open, type two letters at the end, save: ≥ 99 % of the words kept, the letters there, still ${path.extname(rel).slice(1)}`, async () => {
      const name = path.basename(rel);
      const original = new Uint8Array(readFileSync(path.join(CORPUS, rel)));
      const { stored } = await roundTrip({ edsrvUrl: ed.url, origin, host, token: "tok_rt" }, `rt${++seq}`, name, original);
      const [before, after] = await Promise.all([extractText(name, original), extractText(name, stored)]);
      const originalWords = words(before), storedWords = words(after);
      const lost = lostWords(originalWords, storedWords);
      const kept = 1 - lost.length / Math.max(1, originalWords.length);
      // On failure the difference shows which words went.
      if (kept < 0.99) expect({ kept, lost: lost.slice(0, 30) }).toEqual({ kept: 1, lost: [] });
      expect(storedWords).toContain(TYPED);
      // Stored in the original's format: the same container kind.
      expect(sniff(stored.subarray(0, 8192))).toBe(sniff(original.subarray(0, 8192)));
      if (rel.endsWith(".csv")) {
        // A CSV comes back as the same bytes (delimiter, quoting, line breaks, encoding), then the new row.
        expect(Buffer.from(stored.subarray(0, original.length)).equals(Buffer.from(original))).toBe(true);
        expect(new TextDecoder().decode(stored.subarray(original.length))).toMatch(new RegExp(`^(\\r?\\n)?,*${TYPED}\\r?\\n?$`));
      }
    }, scaled(60_000));
  }
});
