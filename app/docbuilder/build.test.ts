// POST /v1/build end to end: svcscript → OOXML in-process → other formats on real workers.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import path from "node:path";
import { ManualClock } from "../clock";
import { AUTH, FIXTURES, enterpriseEnv, startTestService, waitForJob, type Harness } from "../testing/harness";
import { scaled } from "../testing/until";

const script = async (name: string) => JSON.parse(await Bun.file(path.join(FIXTURES, "svcscript", name)).text());
const build = (base: string, body: unknown) =>
  fetch(`${base}/v1/build`, { method: "POST", headers: { ...AUTH, "Content-Type": "application/json" }, body: JSON.stringify(body) });
const partsText = (bytes: Uint8Array, pattern: RegExp) =>
  Object.entries(unzipSync(bytes))
    .filter(([n]) => pattern.test(n))
    .map(([, x]) => strFromU8(x).replace(/<[^>]+>/g, " "))
    .join("\n");

describe("build on community", () => {
  let svc: Harness;
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 2, 0, 0));
  beforeAll(async () => {
    svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1" }, { clock });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  test("a one-output script returns the built docx with the title as file name", async () => {
    clock.advance(60_000);
    const s = { ...(await script("invoice.json")), outputs: ["docx"] };
    const res = await build(svc.url, { script: s });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toContain("Ho");
    expect(decodeURIComponent(res.headers.get("Content-Disposition")!)).toContain("Hóa đơn HD-2024-0193.docx");
    const text = partsText(new Uint8Array(await res.arrayBuffer()), /^word\/(document|header\d*|footer\d*)\.xml$/);
    expect(text).toContain("HD-2024-0193");
  });

  test("more outputs than max_outputs_per_build is script_invalid at /outputs", async () => {
    clock.advance(60_000);
    const res = await build(svc.url, { script: await script("invoice.json") }); // docx + pdf, community allows 1
    expect(res.status).toBe(422);
    const err = ((await res.json()) as any).error;
    expect(err.code).toBe("script_invalid");
    expect(err.detail.errors[0].path).toBe("/outputs");
  });

  test("script_invalid reports every schema error with its JSON Pointer", async () => {
    clock.advance(60_000);
    const s = { type: "text", outputs: ["docx"], body: [{ type: "heading", text: "x", level: 9 }, { type: "paragraph", text: 5 }, { type: "chart" }] };
    const err = ((await (await build(svc.url, { script: s })).json()) as any).error;
    expect(err.code).toBe("script_invalid");
    const paths = err.detail.errors.map((e: any) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["/body/0/level", "/body/1/text"]));
    expect(err.detail.errors.some((e: any) => e.path.startsWith("/body/2") && /chart/i.test(e.message))).toBe(true);
  });

  test("script_too_large with detail.units and detail.limit past max_script_units", async () => {
    clock.advance(60_000);
    const rows = Array.from({ length: 50 }, (_, r) => Array.from({ length: 11 }, (_, c) => r * 11 + c));
    const res = await build(svc.url, { script: { type: "spreadsheet", outputs: ["xlsx"], sheets: [{ name: "S", rows }] } });
    const err = ((await res.json()) as any).error;
    expect(err.code).toBe("script_too_large");
    expect(err.detail).toMatchObject({ units: 551, limit: 500 });
  });

  test("script_error with detail.path for an image that does not decode", async () => {
    clock.advance(60_000);
    const s = { type: "text", outputs: ["docx"], body: [{ type: "paragraph", text: "ok" }, { type: "image", data: Buffer.from("not an image").toString("base64") }] };
    const err = ((await (await build(svc.url, { script: s })).json()) as any).error;
    expect(err.code).toBe("script_error");
    expect(err.detail.path).toStartWith("/body/1");
  });
});

describe("build on enterprise", () => {
  let svc: Harness;
  beforeAll(async () => {
    svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "2", ...enterpriseEnv() });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  const download = async (o: any) => new Uint8Array(await (await fetch(`${svc.url}/v1/files/${o.file_id}`, { headers: AUTH })).arrayBuffer());

  test("an invoice, a data export and a deck come back as OOXML and PDF", async () => {
    for (const [name, native, parts] of [
      ["invoice.json", "docx", /^word\/document\.xml$/],
      ["data-export.json", "xlsx", /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/],
      ["deck.json", "pptx", /^ppt\/slides\/slide\d+\.xml$/],
    ] as const) {
      const s = { ...(await script(name)), outputs: [native, "pdf"] };
      const res = await build(svc.url, { script: s });
      expect(res.status).toBe(200);
      const job = (await res.json()) as any; // several outputs: the finished job
      expect(job).toMatchObject({ kind: "build", status: "done" });
      expect(job.outputs.map((o: any) => o.format)).toEqual([native, "pdf"]);
      const nativeBytes = await download(job.outputs[0]);
      expect(partsText(nativeBytes, parts).length).toBeGreaterThan(20);
      const pdf = await download(job.outputs[1]);
      expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe("%PDF-");
      expect(job.outputs[1].pages).toBeGreaterThanOrEqual(1);
    }
  });

  test("DocBuilder output pages is an integer for native build outputs (docx, xlsx, pptx), the engine's count as for converted outputs", async () => {
    for (const native of ["docx", "xlsx", "pptx"] as const) {
      const name = { docx: "invoice.json", xlsx: "data-export.json", pptx: "deck.json" }[native];
      // Alone (asynchronous, so the job shows its outputs) …
      const res = await build(svc.url, { script: { ...(await script(name)), outputs: [native] }, async: true });
      expect(res.status).toBe(202);
      const job = await waitForJob(svc.url, ((await res.json()) as any).id);
      const pages = job.outputs[0].pages;
      expect([native, Number.isInteger(pages) && pages >= 1]).toEqual([native, true]);
      // … the same figure as the engine gives for the same file converted (pages of the source as laid out).
      const both = await build(svc.url, { script: { ...(await script(name)), outputs: [native, "pdf"] } });
      const j2 = (await both.json()) as any;
      expect([native, j2.outputs[0].pages]).toEqual([native, j2.outputs[1].pages]);
      expect([native, j2.outputs[0].pages]).toEqual([native, pages]);
      // A synchronous single output says it in X-SVC-Pages.
      const sync = await build(svc.url, { script: { ...(await script(name)), outputs: [native] } });
      expect([native, sync.headers.get("X-SVC-Pages")]).toEqual([native, String(pages)]);
      await sync.arrayBuffer();
    }
  }, scaled(120_000));

  test("every output format of every family opens in the engine (text extracted from each)", async () => {
    const plans: [string, string[][]][] = [
      ["invoice.json", [["docx", "doc", "odt", "rtf", "txt"], ["html", "epub", "pdf"]]],
      ["data-export.json", [["xlsx", "xls", "ods", "csv", "pdf"]]],
      ["deck.json", [["pptx", "ppt", "odp", "pdf"]]],
    ];
    for (const [name, batches] of plans) {
      for (const outputs of batches) {
        const res = await build(svc.url, { script: { ...(await script(name)), outputs } });
        expect(res.status).toBe(200);
        const job = (await res.json()) as any;
        for (const o of job.outputs) {
          const bytes = await download(o);
          // Export-only targets (not sources in /v1/formats): checked as what they are.
          if (o.format === "epub") {
            expect(strFromU8(unzipSync(bytes).mimetype!)).toBe("application/epub+zip");
            continue;
          }
          if (o.format === "pdf") {
            const out = Bun.spawnSync(["pdftotext", "-", "-"], { stdin: bytes });
            expect(out.stdout.toString().replace(/\s+/g, " ").length).toBeGreaterThan(10);
            continue;
          }
          if (o.format === "html") {
            expect(new TextDecoder().decode(bytes)).toContain("HD-2024-0193");
            continue;
          }
          const fd = new FormData();
          fd.append("file", new Blob([bytes]), o.filename);
          const text = await fetch(`${svc.url}/v1/extract/text`, { method: "POST", headers: AUTH, body: fd });
          expect({ format: o.format, status: text.status }).toEqual({ format: o.format, status: 200 });
          expect(((await text.json()) as any).text.length).toBeGreaterThan(10);
        }
      }
    }
  }, scaled(120_000));

  test("an asynchronous build is a build job with one output per requested format", async () => {
    const s = { ...(await script("invoice.json")), outputs: ["docx", "odt", "pdf"] };
    const res = await build(svc.url, { script: s, async: true });
    expect(res.status).toBe(202);
    const job = await waitForJob(svc.url, ((await res.json()) as any).id);
    expect(job.status).toBe("done");
    expect(job.outputs.map((o: any) => o.format)).toEqual(["docx", "odt", "pdf"]);
  });
});
