// POST /v1/template/render end to end: real service (enterprise token), real worker for non-docx targets.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { docxAllText } from "../testing/office-files";
import path from "node:path";
import { AUTH, CORPUS, FIXTURES, enterpriseEnv, form, startTestService, waitForJob, type Harness } from "../testing/harness";
import { scaled } from "../testing/until";

const invoice = { path: path.join(FIXTURES, "templates/invoice.docx"), name: "invoice.docx" };
const data = {
  number: "HD-2026-001",
  date: "22/11/2026",
  customer: { name: "Công ty TNHH Ánh Dương" },
  items: [
    { name: "Bút bi", qty: 120, price: "5.000" },
    { name: "Vở kẻ ngang", qty: 45, price: "18.000" },
  ],
  total: "1.410.000",
};

describe("POST /v1/template/render", () => {
  let svc: Harness;
  beforeAll(async () => {
    svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  const render = (file: { path?: string; bytes?: Uint8Array; name: string }, fields: Record<string, string>) =>
    fetch(`${svc.url}/v1/template/render`, { method: "POST", headers: AUTH, body: form(file, fields) });

  test("fills fields, nested paths and a table-row loop into a docx", async () => {
    const res = await render(invoice, { data: JSON.stringify(data) });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("wordprocessingml");
    expect(res.headers.get("Content-Disposition")).toContain("invoice.docx");
    const text = docxAllText(new Uint8Array(await res.arrayBuffer()));
    for (const s of ["HD-2026-001", "Công ty TNHH Ánh Dương", "Bút bi", "Vở kẻ ngang", "1.410.000"]) expect(text).toContain(s);
    expect(text).not.toContain("{{");
  });

  test("renders to pdf through the engine", async () => {
    const res = await render(invoice, { data: JSON.stringify(data), to: "pdf" });
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  test("template_error with detail.fields listing every missing field when options.missing is error", async () => {
    const res = await render(invoice, { data: JSON.stringify({ number: "1", items: [{ name: "x" }] }), options: JSON.stringify({ missing: "error" }) });
    expect(res.status).toBe(422);
    const err = ((await res.json()) as any).error;
    expect(err.code).toBe("template_error");
    expect(err.detail.fields).toEqual(expect.arrayContaining(["customer.name", "customer.address", "date", "total", "items[0].qty", "items[0].price"]));
  });

  test("missing fields render empty by default, never as undefined", async () => {
    const res = await render(invoice, { data: JSON.stringify({ number: "7" }) });
    expect(res.status).toBe(200);
    const text = docxAllText(new Uint8Array(await res.arrayBuffer()));
    expect(text).not.toContain("undefined");
    expect(text).not.toContain("null");
  });

  test("macro_not_allowed at once, even with async true, for a macro-enabled Word file and an ODF with Basic/", async () => {
    for (const rel of ["docm/poi_simple_macro.docm", "odt/tika_macro.odt"]) {
      const res = await render({ path: path.join(CORPUS, rel), name: path.basename(rel) }, { data: "{}", async: "true" });
      expect(res.status).toBe(422);
      const err = ((await res.json()) as any).error;
      expect(err.code).toBe("macro_not_allowed");
      expect(err.detail.reason).toBeTruthy();
      expect(err.detail.part).toBeTruthy();
    }
  });

  test("a template that is not a Word file is 415 with detail.from the file's own sniffed kind, detail.reason and detail.to the target asked for", async () => {
    const cases: [{ path?: string; bytes?: Uint8Array; name: string }, string | null][] = [
      [{ path: path.join(CORPUS, "doc/jodconverter_multi_page.doc"), name: "letter.doc" }, "ole2"],
      [{ path: path.join(CORPUS, "odt/formatcorpus_lo7_odf13.odt"), name: "letter.odt" }, "odf"],
      [{ bytes: new TextEncoder().encode("%PDF-1.7\n%\xe2\xe3\n1 0 obj\n"), name: "letter.docx" }, "pdf"],
    ];
    for (const [file, from] of cases) {
      for (const to of ["docx", "pdf"]) {
        const res = await render(file, { data: "{}", to });
        const err = ((await res.json()) as any).error;
        expect({ name: file.name, to, status: res.status, code: err.code, reason: err.detail.reason, from: err.detail.from, detailTo: err.detail.to }).toEqual({
          name: file.name, to, status: 415, code: "unsupported_format", reason: "not_docx", from, detailTo: to,
        });
      }
    }
  });

  test("unbalanced loop tags give template_error with detail.fields naming the loop, beside detail.errors", async () => {
    const res = await render({ path: path.join(FIXTURES, "templates/unbalanced-loop.docx"), name: "bad.docx" }, { data: "{}" });
    expect(res.status).toBe(422);
    const err = ((await res.json()) as any).error;
    expect(err.code).toBe("template_error");
    expect(err.detail).toEqual({ errors: [{ tag: "{{#items}}", reason: "unclosed_loop", part: "word/document.xml" }], fields: ["items"] });
  });

  test("asynchronous render gives a template/render job with the output", async () => {
    const res = await render(invoice, { data: JSON.stringify(data), to: "odt", async: "true" });
    expect(res.status).toBe(202);
    const job = await waitForJob(svc.url, ((await res.json()) as any).id);
    expect(job).toMatchObject({ kind: "template/render", status: "done" });
    expect(job.outputs[0]).toMatchObject({ format: "odt", filename: "invoice.odt" });
  });

  test("DocBuilder output pages is an integer for docx template output, the engine's count as for a converted output", async () => {
    const res = await render(invoice, { data: JSON.stringify(data), async: "true" });
    expect(res.status).toBe(202);
    const job = await waitForJob(svc.url, ((await res.json()) as any).id);
    expect(job.outputs[0]).toMatchObject({ format: "docx" });
    const pages = job.outputs[0].pages;
    expect(Number.isInteger(pages) && pages >= 1).toBe(true);
    const pdf = await waitForJob(svc.url, ((await (await render(invoice, { data: JSON.stringify(data), to: "pdf", async: "true" })).json()) as any).id);
    expect(pdf.outputs[0].pages).toBe(pages);
    const sync = await render(invoice, { data: JSON.stringify(data) });
    expect(sync.headers.get("X-SVC-Pages")).toBe(String(pages));
    await sync.arrayBuffer();
  });

  test("bad_request when data is not a JSON object", async () => {
    const res = await render(invoice, { data: "[1,2]" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.detail.errors[0].path).toBe("/data");
  });
});
