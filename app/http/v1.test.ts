// DocBuilder over real HTTP with real office-engine workers.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../clock";
import { zipSync, strToU8 } from "fflate";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ID_PATTERNS } from "../ids";
import { AUTH, CORPUS, FIXTURES, form, sha256, startTestService, waitForJob, type Harness } from "../testing/harness";
import { scaled } from "../testing/until";

let svc: Harness;
let base: string;
// Community allows 10 counted requests a minute: each test starts in a fresh minute.
const clock = new ManualClock(Date.UTC(2026, 10, 22, 1, 0, 0));

// A 2 MB cap makes both size rules testable with small fixtures.
beforeAll(async () => {
  svc = await startTestService({ SVC_DOCBUILDER_MAX_FILE_MB: "2", SVC_FETCH_ALLOW_HOSTS: "127.0.0.1/32" }, { clock });
  base = svc.url;
}, scaled(120_000));
afterAll(() => svc?.close());
beforeEach(() => clock.advance(60_000));

const post = (p: string, body: FormData | string, headers: Record<string, string> = {}) =>
  fetch(`${base}${p}`, { method: "POST", body, headers: { ...AUTH, ...headers } });
const json = (x: unknown) => JSON.stringify(x);
const fixture = (name: string) => ({ path: path.join(FIXTURES, name), name });
const corpus = (rel: string) => ({ path: path.join(CORPUS, rel), name: path.basename(rel) });

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string; detail: Record<string, unknown>; request_id: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(res.headers.get("X-SVC-Request-Id")!);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error;
}

/** A valid .docx made in memory whose text is `paragraphs` repetitions of a line. */
/**
 * A docx of many paragraphs of words drawn at random from a small vocabulary: text that compresses
 * like prose (about 10:1), not like one sentence repeated (which the intake refuses as a bomb).
 */
/**
 * A workbook of `rows` rows of four words, zipped small: its CSV is large. A spreadsheet rather
 * than a long text document, because Calc reads it without laying out pages (a 2.6 MB docx took
 * LibreOffice 15 s of layout; this takes a fraction of it).
 */
function bigSheetXlsx(rows: number): Uint8Array {
  const words = ["quick", "brown", "fox", "jumps", "over", "lazy", "dog", "again", "river", "stone", "light", "green", "house", "paper", "music", "table"];
  const word = () => words[Math.floor(Math.random() * words.length)]!;
  const cell = (col: string, r: number) => `<c r="${col}${r}" t="inlineStr"><is><t>${word()} ${word()}</t></is></c>`;
  const body = Array.from({ length: rows }, (_, i) => `<row r="${i + 1}">${["A", "B", "C", "D"].map((c) => cell(c, i + 1)).join("")}</row>`).join("");
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ),
    "_rels/.rels": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ),
    "xl/workbook.xml": strToU8(`<?xml version="1.0" encoding="UTF-8"?><workbook ${ns}><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    "xl/worksheets/sheet1.xml": strToU8(`<?xml version="1.0" encoding="UTF-8"?><worksheet ${ns}><sheetData>${body}</sheetData></worksheet>`),
  });
}

describe("status and plumbing", () => {
  test("GET /v1/status needs no authentication and reports the engine actually running", async () => {
    const res = await fetch(`${base}/v1/status`);
    expect(res.status).toBe(200);
    const s = (await res.json()) as any;
    expect(s).toMatchObject({ version: "1.5.0", api: "v1", edition: "community", dev_mode: false });
    expect(s.core.name).toMatch(/LibreOffice/);
    expect(s.core.version).toMatch(/^\d+\.\d+/);
    // LibreOffice 25.2 or newer from Debian's bookworm-backports, named with its package and folder.
    const [major, minor] = s.core.version.split(".").map(Number);
    expect(major > 25 || (major === 25 && minor >= 2)).toBe(true);
    expect(s.core.source).toMatch(/^debian:libreoffice-core 4:2\d\.\d+\.\S+ \(\/usr\/lib\/libreoffice\/program\)$/);
    expect(s.workers).toMatchObject({ total: 2, restarts: 0 });
    expect(s.workers.idle + s.workers.busy).toBe(2);
    expect(s.queue).toEqual({ queued: 0, running: expect.any(Number) });
    expect(Number.isInteger(s.uptime_seconds)).toBe(true);
  });

  test("every response carries X-SVC-Request-Id of the form req_ + 16 hex", async () => {
    for (const res of [await fetch(`${base}/v1/status`), await fetch(`${base}/v1/limits`), await fetch(`${base}/nowhere`)]) {
      expect(res.headers.get("X-SVC-Request-Id")).toMatch(ID_PATTERNS.request);
    }
  });

  test("an unknown path gives 404 not_found with the spec's error body", async () => {
    await expectError(await fetch(`${base}/v1/nothing-here`, { headers: AUTH }), 404, "not_found");
    await expectError(await fetch(`${base}/elsewhere`), 404, "not_found");
  });

  test("a wrong method gives 405 bad_request with detail.method", async () => {
    const err = await expectError(await fetch(`${base}/v1/convert`, { headers: AUTH }), 405, "bad_request");
    expect(err.detail.method).toBe("GET");
  });

  test("work endpoints require authentication: 401 unauthorized with detail.reason", async () => {
    const err = await expectError(await fetch(`${base}/v1/convert`, { method: "POST" }), 401, "unauthorized");
    expect(err.detail.reason).toBe("missing");
    const bad = await expectError(await fetch(`${base}/v1/limits`, { headers: { Authorization: "Bearer svc_wrong_key_0000000000000000" } }), 401, "unauthorized");
    expect(bad.detail.reason).toBe("invalid");
  });

  test("GET /v1/limits gives the community figures resolved after lower-only settings", async () => {
    const l = (await (await fetch(`${base}/v1/limits`, { headers: AUTH })).json()) as any;
    expect(l.edition).toBe("community");
    expect(l.limits).toMatchObject({ rate_per_minute: 10, rate_per_day: 200, parallel_jobs: 1, max_queued_jobs: 10, max_file_mb: 2, result_ttl_minutes: 15 });
    expect(l.allowed_endpoints).toHaveLength(10);
    expect(l.usage).toMatchObject({ running_jobs: expect.any(Number), queued_jobs: 0 });
  });

  test("GET /v1/formats lists sources by family and the targets each reaches", async () => {
    const f = (await (await fetch(`${base}/v1/formats`, { headers: AUTH })).json()) as any;
    expect(f.families.text.sources).toContain("docx");
    expect(f.families.spreadsheet.targets).toEqual(expect.arrayContaining(["xlsx", "ods", "csv", "pdf"]));
    expect(f.families.presentation.targets).not.toContain("docx");
  });

  test("template/render is refused on community with forbidden_feature", async () => {
    const err = await expectError(await post("/v1/template/render", json({})), 403, "forbidden_feature");
    expect(err.detail).toEqual({ feature: "template/render", edition: "community" });
  });
});

describe("POST /v1/convert", () => {
  test("synchronous docx to pdf returns the file with Content-Type and Content-Disposition", async () => {
    const res = await post("/v1/convert", form(fixture("hello.docx"), { to: "pdf" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect(res.headers.get("Content-Disposition")).toContain('filename="hello.pdf"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    // The same result stays downloadable as a job output until it expires.
    const job = (await (await fetch(`${base}/v1/jobs/${res.headers.get("X-SVC-Job-Id")}`, { headers: AUTH })).json()) as any;
    expect(job).toMatchObject({ kind: "convert", status: "done", error: null });
    expect(job.id).toMatch(ID_PATTERNS.job);
    expect(job.outputs[0]).toMatchObject({ format: "pdf", content_type: "application/pdf", filename: "hello.pdf", size: bytes.length, sha256: await sha256(bytes) });
    expect(job.outputs[0].file_id).toMatch(ID_PATTERNS.file);
    expect(job.outputs[0].pages).toBeGreaterThanOrEqual(1);
  });

  test("conversion within the spreadsheet and presentation families", async () => {
    const ods = await post("/v1/convert", form(fixture("hello.xlsx"), { to: "ods" }));
    expect(ods.status).toBe(200);
    expect(ods.headers.get("Content-Type")).toBe("application/vnd.oasis.opendocument.spreadsheet");
    const pdf = await post("/v1/convert", form(fixture("hello.pptx"), { to: "pdf" }));
    expect(pdf.status).toBe(200);
    expect(new TextDecoder().decode(new Uint8Array(await pdf.arrayBuffer()).slice(0, 4))).toBe("%PDF");
  });

  test("CSV converts to a spreadsheet without hanging on the import dialog", async () => {
    const res = await post("/v1/convert", form(corpus("csv/made_vietnamese_prices.csv"), { to: "xlsx" }));
    expect(res.status).toBe(200);
    const back = await post("/v1/convert", form({ bytes: new Uint8Array(await res.arrayBuffer()), name: "prices.xlsx" }, { to: "csv" }));
    expect(back.status).toBe(200);
    expect(await back.text()).toContain("Đơn giá");
  });

  test("unsupported_format for a target in another family, with detail.from and detail.to", async () => {
    const err = await expectError(await post("/v1/convert", form(fixture("hello.docx"), { to: "xlsx" })), 415, "unsupported_format");
    expect(err.detail).toEqual({ from: "docx", to: "xlsx" });
  });

  test("unsupported_format for an unknown source format or a name without extension and no from", async () => {
    const unknown = await expectError(await post("/v1/convert", form({ bytes: new Uint8Array([1, 2, 3]), name: "x.bin" }, { to: "pdf" })), 415, "unsupported_format");
    expect(unknown.detail).toEqual({ from: "bin", to: "pdf" });
    const noExt = await expectError(await post("/v1/convert", form({ path: path.join(FIXTURES, "hello.docx"), name: "hello" }, { to: "pdf" })), 415, "unsupported_format");
    expect(noExt.detail).toEqual({ from: null, to: "pdf" });
  });

  test("from names the source format when the file name has no extension", async () => {
    const res = await post("/v1/convert", form({ path: path.join(FIXTURES, "hello.docx"), name: "hello" }, { to: "odt", from: "docx" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toContain("hello.odt");
  });

  test("a family mismatch found by the engine is unsupported_format too (spreadsheet named .docx)", async () => {
    const err = await expectError(await post("/v1/convert", form({ path: path.join(FIXTURES, "hello.xlsx"), name: "sheet.docx" }, { to: "odt" })), 415, "unsupported_format");
    expect(err.detail).toEqual({ from: "docx", to: "odt" });
  });

  test("bad_request with detail.errors for a missing target, a bad option, or no source", async () => {
    const noTo = await expectError(await post("/v1/convert", form(fixture("hello.docx"))), 400, "bad_request");
    expect((noTo.detail.errors as any[])[0].path).toBe("/to");
    const badOpt = await expectError(await post("/v1/convert", form(fixture("hello.docx"), { to: "pdf", options: json({ pasword: "x" }) })), 400, "bad_request");
    expect((badOpt.detail.errors as any[])[0].path).toBe("/options/pasword");
    const none = await expectError(await post("/v1/convert", json({ to: "pdf" }), { "Content-Type": "application/json" }), 400, "bad_request");
    expect((none.detail.errors as any[])[0].message).toContain("neither file nor url");
    const malformed = await expectError(await post("/v1/convert", "{nope", { "Content-Type": "application/json" }), 400, "bad_request");
    expect(malformed.message).toContain("JSON");
  });

  test("bad_request always with detail.errors: an unsupported Content-Type, a missing multipart body, a malformed one, two files", async () => {
    const errorsOf = async (res: Response) => (await expectError(res, 400, "bad_request")).detail.errors as { path: string; message: string }[];
    expect((await errorsOf(await post("/v1/convert", "to=pdf", { "Content-Type": "text/plain" })))[0]).toMatchObject({ path: "" });
    expect((await errorsOf(await post("/v1/convert", "", { "Content-Type": "multipart/form-data; boundary=x" })))[0]).toMatchObject({ path: "" });
    const two = new FormData();
    two.append("to", "pdf");
    two.append("file", new Blob([readFileSync(path.join(FIXTURES, "hello.docx"))]), "a.docx");
    two.append("file", new Blob([readFileSync(path.join(FIXTURES, "hello.docx"))]), "b.docx");
    expect((await errorsOf(await post("/v1/convert", two)))[0]).toMatchObject({ path: "/file" });
  });

  test("file_too_large with detail.limit_mb for an input over max_file_mb", async () => {
    const err = await expectError(await post("/v1/convert", form(corpus("txt/unstructured_war_and_peace_1225p.txt"), { to: "pdf" })), 413, "file_too_large");
    expect(err.detail.limit_mb).toBe(2);
  });

  test("file_too_large for an output over max_file_mb", async () => {
    const xlsx = bigSheetXlsx(60_000); // ~2.9 MB of CSV, well under the 2 MB input limit zipped
    expect(xlsx.length).toBeLessThan(2_000_000);
    const err = await expectError(await post("/v1/convert", form({ bytes: xlsx, name: "big.xlsx" }, { to: "csv" })), 413, "file_too_large");
    expect(err.detail.limit_mb).toBe(2);
  });

  test("password_required without a password or with a wrong one; the right one converts", async () => {
    const file = corpus("docx/msoffcrypto_example_password.docx");
    await expectError(await post("/v1/convert", form(file, { to: "pdf" })), 422, "password_required");
    await expectError(await post("/v1/convert", form(file, { to: "pdf", options: json({ password: "wrong" }) })), 422, "password_required");
    const ok = await post("/v1/convert", form(file, { to: "pdf", options: json({ password: "Password1234_" }) }));
    expect(ok.status).toBe(200);
  });

  test("corrupt_source for a file the engine cannot open, and for an empty file", async () => {
    await expectError(await post("/v1/convert", form(corpus("odt/tika_not_a_zip.odt"), { to: "pdf" })), 422, "corrupt_source");
    await expectError(await post("/v1/convert", form(corpus("odt/collabora_empty_0bytes.odt"), { to: "pdf" })), 422, "corrupt_source");
  });

  test("asynchronous mode returns the job, which finishes with a downloadable output", async () => {
    const res = await post("/v1/convert", form(fixture("hello.docx"), { to: "odt", async: "true" }));
    expect(res.status).toBe(202);
    const job = (await res.json()) as any;
    expect(job).toMatchObject({ kind: "convert", outputs: [], error: null });
    expect(["queued", "running"]).toContain(job.status);
    expect(res.headers.get("Location")).toBe(`/v1/jobs/${job.id}`);
    const done = await waitForJob(base, job.id);
    expect(done.status).toBe("done");
    for (const k of ["created_at", "started_at", "finished_at", "expires_at"]) expect(Date.parse(done[k])).toBeGreaterThan(0);
    const out = done.outputs[0];
    const file = await fetch(`${base}/v1/files/${out.file_id}`, { headers: AUTH });
    expect(file.status).toBe(200);
    expect(await sha256(await file.arrayBuffer())).toBe(out.sha256);
    // Downloading needs the Authorization header.
    expect((await fetch(`${base}/v1/files/${out.file_id}`)).status).toBe(401);
  });

  test("a failed asynchronous job reports its error in the job object", async () => {
    // Not a zip (a broken zip is refused at intake): the engine is what fails, inside the job.
    const res = await post("/v1/convert", form({ bytes: new Uint8Array([1, 2, 3]), name: "broken.docx" }, { to: "pdf", async: "true" }));
    expect(res.status).toBe(202);
    const done = await waitForJob(base, ((await res.json()) as any).id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("corrupt_source");
  });

  test("callback_url is a forbidden feature on community", async () => {
    const err = await expectError(await post("/v1/convert", form(fixture("hello.docx"), { to: "pdf", async: "true", callback_url: "https://example.test/cb" })), 403, "forbidden_feature");
    expect(err.detail).toEqual({ feature: "callback", edition: "community" });
  });

  test("gone (410) for a job and its file after result_ttl_minutes", async () => {
    const res = await post("/v1/convert", form(fixture("hello.docx"), { to: "odt", async: "true" }));
    const done = await waitForJob(base, ((await res.json()) as any).id);
    const fileId = done.outputs[0].file_id;
    clock.advance(14 * 60_000); // community keeps results 15 minutes after the job finished
    expect((await fetch(`${base}/v1/jobs/${done.id}`, { headers: AUTH })).status).toBe(200);
    expect((await fetch(`${base}/v1/files/${fileId}`, { headers: AUTH })).status).toBe(200);
    clock.advance(61_000);
    await expectError(await fetch(`${base}/v1/jobs/${done.id}`, { headers: AUTH }), 410, "gone");
    await expectError(await fetch(`${base}/v1/files/${fileId}`, { headers: AUTH }), 410, "gone");
  });

  test("unknown job and file ids give 404 not_found", async () => {
    await expectError(await fetch(`${base}/v1/jobs/job_000000000000000000000000`, { headers: AUTH }), 404, "not_found");
    await expectError(await fetch(`${base}/v1/files/file_000000000000000000000000`, { headers: AUTH }), 404, "not_found");
  });
});

describe("URL sources", () => {
  let files: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    files = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const p = new URL(req.url).pathname;
        if (p === "/hello.docx") return new Response(Bun.file(path.join(FIXTURES, "hello.docx")));
        return new Response("no", { status: 404 });
      },
    });
  });
  afterAll(() => files.stop(true));

  test("a JSON url source is downloaded and converted", async () => {
    const res = await post("/v1/convert", json({ url: `http://127.0.0.1:${files.port}/hello.docx`, to: "pdf" }), { "Content-Type": "application/json" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toContain("hello.pdf");
  });

  test("url_not_allowed for private, metadata and non-http addresses", async () => {
    for (const url of ["http://10.1.2.3/a.docx", "http://169.254.169.254/latest/a.docx", "file:///etc/passwd.docx", "http://[::ffff:192.168.0.1]/a.docx"]) {
      await expectError(await post("/v1/convert", json({ url, to: "pdf" }), { "Content-Type": "application/json" }), 422, "url_not_allowed");
    }
  });

  test("download_failed when the source does not answer 200", async () => {
    const err = await expectError(await post("/v1/convert", json({ url: `http://127.0.0.1:${files.port}/missing.docx`, to: "pdf" }), { "Content-Type": "application/json" }), 422, "download_failed");
    expect(JSON.stringify(err.detail)).toContain("404");
  });
});

describe("POST /v1/extract", () => {
  test("text gives the document's text and page count", async () => {
    const res = await post("/v1/extract/text", form(fixture("hello.docx")));
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.text).toContain("zebra");
    expect(body.text).toContain("Xin chào thế giới");
    expect(body.pages).toBe(1);
    expect(body.family).toBe("text");
  });

  test("meta gives title, author, dates, pages and words", async () => {
    const body = (await (await post("/v1/extract/meta", form(corpus("docx/onlyoffice_sample.docx")))).json()) as any;
    expect(body).toHaveProperty("title");
    expect(body).toHaveProperty("author");
    expect(body.pages).toBeGreaterThanOrEqual(1);
    expect(body.family).toBe("text");
  });

  test("thumbnail gives a PNG of the first page at the asked width", async () => {
    const res = await post("/v1/extract/thumbnail", form(fixture("hello.pptx"), { width: "200" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(new DataView(png.buffer).getUint32(16)).toBe(200); // IHDR width
  });

  test("extraction takes a password and answers password_required without it", async () => {
    const file = corpus("odt/odftoolkit_encrypted_pwd_hello.odt");
    await expectError(await post("/v1/extract/text", form(file)), 422, "password_required");
    const ok = await post("/v1/extract/text", form(file, { password: "hello" }));
    expect(ok.status).toBe(200);
  });
});

describe("rate limits", () => {
  const badConvert = () => post("/v1/convert", json({ to: "pdf" }), { "Content-Type": "application/json" });

  test("counted requests carry X-RateLimit headers, daily ones included on community", async () => {
    const res = await badConvert();
    expect(res.status).toBe(400);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("10");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("9");
    expect(Number(res.headers.get("X-RateLimit-Reset"))).toBe(Math.floor(clock.now() / 60_000) * 60 + 60);
    expect(res.headers.get("X-RateLimit-Limit-Day")).toBe("200");
    expect(Number(res.headers.get("X-RateLimit-Remaining-Day"))).toBeLessThan(200);
  });

  test("rate_limited with detail.window minute and Retry-After past the per-minute limit", async () => {
    for (let i = 0; i < 10; i++) expect((await badConvert()).status).toBe(400);
    const res = await badConvert();
    const err = await expectError(res, 429, "rate_limited");
    expect(err.detail.window).toBe("minute");
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
  });

  test("X-RateLimit-Remaining on a request refused with 403 shows what remains after it is given back", async () => {
    const res = await post("/v1/convert", form(fixture("hello.docx"), { to: "pdf", async: "true", callback_url: "https://example.test/cb" }));
    await expectError(res, 403, "forbidden_feature");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("10");
  });

  test("a community POST /v1/template/render is 403 forbidden_feature even once the minute's requests are spent, never 429", async () => {
    for (let i = 0; i < 10; i++) expect((await badConvert()).status).toBe(400);
    expect((await badConvert()).status).toBe(429);
    await expectError(await post("/v1/template/render", json({})), 403, "forbidden_feature");
  });

  test("GET requests and requests refused with 401 or 403 are not counted", async () => {
    for (let i = 0; i < 12; i++) await fetch(`${base}/v1/limits`, { headers: AUTH });
    for (let i = 0; i < 12; i++) await fetch(`${base}/v1/convert`, { method: "POST", headers: { Authorization: "Bearer svc_wrong_key_0000000000000000" } });
    for (let i = 0; i < 12; i++) await post("/v1/template/render", json({}));
    const usage = ((await (await fetch(`${base}/v1/limits`, { headers: AUTH })).json()) as any).usage;
    expect(usage.minute.used).toBe(0);
    expect(usage.minute.remaining).toBe(10);
    expect((await badConvert()).headers.get("X-RateLimit-Remaining")).toBe("9");
  });
});

describe("logs", () => {
  test("log lines carry the request id and never the API key or document text", async () => {
    const res = await post("/v1/extract/text", form(fixture("hello.docx")));
    const rid = res.headers.get("X-SVC-Request-Id")!;
    await res.text();
    const lines = svc.logLines.filter((l) => l.includes(rid));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const all = svc.logLines.join("\n");
    expect(all).not.toContain("svc_test_0123456789abcdef0123");
    expect(all).not.toContain("zebra");
  });
});
