// A conversion to the document's own format keeps what the document had (issue 46): real corpus
// documents are counted (app/testing/package-structure.ts: tables, pictures, charts, chart
// workbooks, embedded objects, comments, tracked changes, notes with text, formulas, sheets,
// slides, links) as sent, after the engine's plain round trip (the worker's conversion alone,
// asked of the pool directly) and after svc's /v1/convert (that round trip and svc's steps). svc
// must keep at least what the engine's round trip keeps, and every chart the original let Office edit
// (a chart with its workbook; in a workbook, a chart bound to its own cells is editable too).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { AUTH, CORPUS, form, startTestService, type Harness } from "../testing/harness";
import { packageStructure, type PackageStructure } from "../testing/package-structure";
import { scaled } from "../testing/until";

const FILES = [
  "pptx/pythonpptx_cht_series.pptx", // 11 charts, each with its workbook
  "pptx/pythonpptx_notes.pptx", // notes pages, a picture
  "docx/poi_stress011_arabic.docx", // a table, a picture
  "docx/onlyoffice_sample.docx", // a chart
  "xlsx/onlyoffice_sample.xlsx", // sheets, formulas, charts, pictures
];

const present = existsSync(path.join(CORPUS, "MANIFEST.tsv"));
let svc: Harness;
let seq = 0;

beforeAll(async () => {
  if (present) svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1" });
}, scaled(120_000));

afterAll(async () => {
  await svc?.close();
});

/** The engine's round trip alone: the worker's conversion, without what the service does after it. */
async function engineRoundTrip(source: string, to: string): Promise<Uint8Array> {
  const dir = mkdtempSync(path.join(svc.dataDir, "plain-"));
  const input = path.join(dir, `source.${to}`);
  await Bun.write(input, Bun.file(source));
  const output = path.join(dir, `plain.${to}`);
  await svc.pool.run({ op: "convert", id: `plain_${++seq}`, input, output, to }, { runTimeoutMs: scaled(60_000) });
  return new Uint8Array(await Bun.file(output).arrayBuffer());
}

async function svcRoundTrip(source: string, to: string): Promise<Uint8Array> {
  const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ path: source, name: path.basename(source) }, { to }) });
  if (res.status !== 200) throw new Error(`convert ${path.basename(source)}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** What svc kept less of than the engine's round trip, and chart workbooks the original had that svc lost. */
function losses(original: PackageStructure, plain: PackageStructure, kept: PackageStructure): string[] {
  const lost: string[] = [];
  for (const key of Object.keys(plain) as (keyof PackageStructure)[]) {
    if (kept[key] < plain[key]) lost.push(`${key}: svc ${kept[key]} < engine ${plain[key]}`);
  }
  if (kept.editableCharts < original.editableCharts) lost.push(`editableCharts: svc ${kept.editableCharts} < original ${original.editableCharts}`);
  return lost;
}

describe.skipIf(!present)("a same-format conversion keeps the document's structure", () => {
  for (const rel of FILES) {
    const to = path.extname(rel).slice(1);
    test(`${rel}: svc keeps at least what the engine's round trip keeps, and every editable chart`, async () => {
      const source = path.join(CORPUS, rel);
      const original = packageStructure(new Uint8Array(readFileSync(source)));
      const plain = packageStructure(await engineRoundTrip(source, to));
      const kept = packageStructure(await svcRoundTrip(source, to));
      if (process.env.SVC_TEST_STRUCTURE_FIGURES) console.log(JSON.stringify({ file: rel, original, plain, kept }));
      // On failure the three counts show what went where.
      expect({ lost: losses(original, plain, kept), original, plain, kept }).toEqual({ lost: [], original, plain, kept });
    }, scaled(90_000));
  }

  test("the charts pptx: the engine alone drops all 11 workbooks, svc gives all 11 back", async () => {
    const source = path.join(CORPUS, "pptx/pythonpptx_cht_series.pptx");
    expect(packageStructure(new Uint8Array(readFileSync(source))).chartWorkbooks).toBe(11);
    expect(packageStructure(await engineRoundTrip(source, "pptx")).chartWorkbooks).toBe(0);
    const kept = packageStructure(await svcRoundTrip(source, "pptx"));
    expect({ charts: kept.charts, chartWorkbooks: kept.chartWorkbooks }).toEqual({ charts: 11, chartWorkbooks: 11 });
    const lines = svc.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === "chart_workbooks_restored");
    expect(lines.at(-1)).toMatchObject({ charts: 11, added: 11, skipped: 0 });
  }, scaled(90_000));
});
