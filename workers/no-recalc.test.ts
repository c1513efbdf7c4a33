// Recalculation never, for every format that has the setting: a spreadsheet is converted with the
// values it was saved with (workers/profile.ts: OOXMLRecalcMode and ODFRecalcMode 1, the only two
// load-recalculation settings LibreOffice 7.4's configuration has; xls has none and always keeps
// its cached results). Recalculating on load would run the document's formulas on the server
// (slow ones held a worker for a whole job time) and change what the author saved.
// Each file here carries a cached result that recalculation would not give: A1 = 2, B1 = A1*3
// saved as 999.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { ManualClock } from "../app/clock";
import { WorkerPool } from "../app/docbuilder/pool";
import { memoryLogger } from "../app/log";
import { scaled } from "../app/testing/until";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-no-recalc-"));

function xlsx(): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1"><f>A1*3</f><v>999</v></c></row></sheetData></worksheet>`,
    ),
  });
}

/** An ods with the formula cell styled (`table:style-name`) or not: see the ods tests below for why it matters. */
function ods(styled = true): Uint8Array {
  return zipSync({
    // The mimetype first and stored, as ODF requires.
    mimetype: [strToU8("application/vnd.oasis.opendocument.spreadsheet"), { level: 0 }],
    "META-INF/manifest.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    ),
    // Written by LibreOffice itself, as far as the file says: LibreOffice recalculates a file from
    // another generator (or none) on load whatever ODFRecalcMode says.
    "meta.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.2"><office:meta><meta:generator>LibreOffice/7.4.7.2$Linux_X86_64 LibreOffice_project/40$Build-2</meta:generator></office:meta></office:document-meta>`,
    ),
    "content.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Sheet1"><table:table-row><table:table-cell office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell><table:table-cell${styled ? ' table:style-name="ce1"' : ""} table:formula="of:=[.A1]*3" office:value-type="float" office:value="999"><text:p>999</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`.replace(
        "<office:body>",
        '<office:automatic-styles><style:style xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" style:name="ce1" style:family="table-cell" style:parent-style-name="Default"/></office:automatic-styles><office:body>',
      ),
    ),
  });
}

describe("recalculation never, for every format", () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = new WorkerPool({ size: 1, maxJobs: 100, maxAgeMs: 600_000, profileRoot: path.join(dir, "profiles"), logger: memoryLogger("warn"), clock: new ManualClock() });
    await pool.start();
  }, scaled(120_000));
  afterAll(async () => {
    await pool?.shutdown(0);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, bytes] of [["xlsx", xlsx], ["ods", () => ods(true)]] as const) {
    test(`${name} to csv keeps the formula's saved value (999), not its recalculation (6)`, async () => {
      const input = path.join(dir, `cached.${name}`);
      const output = path.join(dir, `cached-${name}.csv`);
      writeFileSync(input, bytes());
      await pool.run({ op: "convert", id: `recalc-${name}`, input, output, to: "csv" }, { runTimeoutMs: 60_000 });
      expect(readFileSync(output, "utf8").trim()).toBe("2,999");
    }, scaled(60_000));
  }

  // LibreOffice 7.4 recalculates an ods formula cell that has no cell style whatever ODFRecalcMode
  // says: its ODF import asks for the cell's number format to be found by calculating it
  // (ScXMLTableRowCellContext::SetFormulaCell, SetNeedNumberFormat(!mbHasStyle)); no setting stops
  // that, and giving such cells a style would lose the formats found that way (a date's). What it
  // costs is bounded by the job's run time, which no longer fails the requests queued behind it.
  // Pinned, so that an engine whose import stops doing this shows here.
  test("an ods formula cell without a cell style is recalculated by LibreOffice 7.4 to find its number format (no setting stops it)", async () => {
    const input = path.join(dir, "unstyled.ods");
    const output = path.join(dir, "unstyled.csv");
    writeFileSync(input, ods(false));
    await pool.run({ op: "convert", id: "recalc-unstyled", input, output, to: "csv" }, { runTimeoutMs: 60_000 });
    expect(readFileSync(output, "utf8").trim()).toBe("2,6");
  }, scaled(60_000));
});
