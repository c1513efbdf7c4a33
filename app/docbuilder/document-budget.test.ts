// A small document costs what it is (issue 44 item 5): the engine time a request may take grows
// with the document sent (document-budget.ts). Seen: the thumbnail of a small xlsx with heavy
// conditional formats and a small xlsx of slow formulas each held the only slot for the whole 60 s
// before 504; now each ends with 504 `timeout` (reason document_budget) after its budget, about
// 20 s, through the real service and engines.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { ManualClock } from "../clock";
import { AUTH, CORPUS, FIXTURES, form, startTestService, type Harness } from "../testing/harness";
import { heavyConditionalFormats, slowFormulas } from "../testing/heavy-sheets";
import { scaled } from "../testing/until";
import { BASE_MS, documentBudgetMs, documentSize } from "./document-budget";

describe("a small document costs what it is", () => {
  let svc: Harness;
  // Community (one job at a time, 60 s for a synchronous request); each request in a fresh minute.
  const clock = new ManualClock(Date.UTC(2026, 10, 29, 1, 0, 0));
  beforeAll(async () => {
    svc = await startTestService({}, { clock });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  async function timed(endpoint: string, file: { bytes: Uint8Array; name: string }, fields: Record<string, string>) {
    clock.advance(60_000);
    const res = await fetch(`${svc.url}/v1/${endpoint}`, { method: "POST", headers: AUTH, body: form(file, fields) });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("the thumbnail of a 26 KB xlsx of 2,000 heavy conditional formats ends with 504 timeout (document_budget) after its budget, not after the 60 s job time", async () => {
    const bytes = heavyConditionalFormats(2000);
    expect(bytes.length).toBeLessThan(40_000);
    const r = await timed("extract/thumbnail", { bytes, name: "conditional.xlsx" }, { width: "256" });
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe("timeout");
    expect(r.body.error.detail.reason).toBe("document_budget");
    expect(r.body.error.detail.budget_seconds).toBeGreaterThanOrEqual(BASE_MS / 1000);
    // A small file's budget is about the base: it ended by its budget, well before the job time.
    expect(r.body.error.detail.budget_seconds).toBeLessThan(BASE_MS / 1000 + 5);
  }, scaled(120_000));

  test("a 7 KB xlsx of 1,000 formulas without cached results, each reading a whole column, converted to pdf ends with 504 timeout (document_budget) after its budget", async () => {
    const bytes = slowFormulas(1000);
    expect(bytes.length).toBeLessThan(8_000);
    const r = await timed("convert", { bytes, name: "slow.xlsx" }, { to: "pdf" });
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe("timeout");
    expect(r.body.error.detail.reason).toBe("document_budget");
    // The service goes on: the worker was replaced and a small document converts.
    clock.advance(60_000);
    const ok = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" }, { to: "pdf" }) });
    expect(ok.status).toBe(200);
  }, scaled(120_000));

  test("the corpus's slowest files get more than twice what they were measured to need", async () => {
    // Measured on this machine kind (LibreOffice 25.2, 2 cores): pdf export, the slowest of pdf and thumbnail.
    const needs: [string, number][] = [
      ["xlsx/lo_300000_line_sample.xlsx", 48_000],
      ["txt/unstructured_war_and_peace_1225p.txt", 19_300],
      ["odt/odftoolkit_excelfileformat.odt", 20_000],
      ["docx/unstructured_handbook_872p.docx", 7_000],
      ["pptx/poi_stress022_arabic.pptx", 9_100],
    ];
    for (const [file, ms] of needs) {
      const budget = documentBudgetMs(await documentSize(path.join(CORPUS, file)));
      expect([file, budget > 2 * ms]).toEqual([file, true]);
    }
  });
});
