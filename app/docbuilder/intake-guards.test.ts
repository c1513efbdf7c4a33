// What is refused at intake, before any work: zip bombs on every path a document comes in by
// (DocBuilder uploads and URLs, sync and async, templates, the embed gate's download), and URLs
// that are not usable, judged as URLs before anything is inferred from them. Real gate, real
// workers, a loopback file server.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { existsSync, readdirSync } from "node:fs";
import { AUTH, FIXTURES, enterpriseEnv, form } from "../testing/harness";
import { docxBomb, smallDocxHugeXml } from "../testing/zip-bomb";
import { embedToken, startEmbedStack, startSource, until, type EmbedStack } from "../embed/testing";
import { scaled } from "../testing/until";

let stack: EmbedStack;
let source: ReturnType<typeof startSource>;
let bombUrl: string;
let hugeXmlUrl: string;
const BOMB = docxBomb();
/** Issue 21 item 2: 50 KB, 15 MiB of XML; it took the engine minutes and 770 MB before. */
const HUGE_XML = smallDocxHugeXml();

beforeAll(async () => {
  source = startSource();
  bombUrl = source.add("/files/report.docx", BOMB);
  hugeXmlUrl = source.add("/files/minutes.docx", HUGE_XML);
  stack = await startEmbedStack({ env: { ...enterpriseEnv({ feat: ["api_full", "callback"] }) } });
}, scaled(120_000));
afterAll(async () => {
  await stack?.close();
  source?.stop();
});

const base = () => stack.gateUrl;
const post = (p: string, body: BodyInit, headers: Record<string, string> = {}) => fetch(`${base()}${p}`, { method: "POST", headers: { ...AUTH, ...headers }, body });
/** The pool once the previous test's job has let go of its worker (a worker closes its document after answering). */
const workersIdle = () => until(() => stack.gate.pool.status(), (s) => s.busy === 0, "workers idle before the request");
const json = (body: unknown) => [JSON.stringify(body), { "Content-Type": "application/json" }] as const;
const bombPart = (name = "report.docx") => ({ bytes: BOMB, name });

async function refused(res: Response) {
  const body = (await res.json()) as any;
  return { status: res.status, code: body.error?.code, reason: body.error?.detail?.reason, message: body.error?.message as string };
}

describe("zip bombs are refused at intake, before the engine sees them", () => {
  const cases: [string, () => Promise<Response>][] = [
    ["convert, upload", () => post("/v1/convert", form(bombPart(), { to: "pdf" }))],
    ["convert, upload, async", () => post("/v1/convert", form(bombPart(), { to: "pdf", async: "true" }))],
    ["convert, url, async with callback", () => post("/v1/convert", ...json({ url: bombUrl, to: "pdf", async: true, callback_url: "http://127.0.0.1:9/cb" }))],
    ["convert, renamed to .rtf", () => post("/v1/convert", form(bombPart("report.rtf"), { to: "pdf" }))],
    ["extract/text", () => post("/v1/extract/text", form(bombPart()))],
    ["extract/meta, url", () => post("/v1/extract/meta", ...json({ url: bombUrl }))],
    ["extract/thumbnail", () => post("/v1/extract/thumbnail", form(bombPart()))],
    ["template/render", () => post("/v1/template/render", form(bombPart(), { data: "{}" }))],
    ["template/render, async", () => post("/v1/template/render", form(bombPart(), { data: "{}", async: "true", to: "pdf" }))],
  ];
  for (const [name, send] of cases) {
    test(`${name}: 422 corrupt_source (zip_ratio), no job, no worker touched`, async () => {
      const before = await workersIdle();
      const r = await refused(await send());
      expect(r).toMatchObject({ status: 422, code: "corrupt_source", reason: "zip_ratio" });
      expect(r.message).toContain("word/document.xml");
      const after = stack.gate.pool.status();
      expect({ busy: after.busy, restarts: after.restarts }).toEqual({ busy: 0, restarts: before.restarts });
      expect(stack.gate.pool.queueStats()).toEqual({ queued: 0, running: 0 });
    });
  }

  test("template/render: a template whose parts inflate past what they declare is refused before the filler inflates it in this process", async () => {
    const liar = docxBomb({ pieces: 256, declaredSize: 200_000 });
    const r = await refused(await post("/v1/template/render", form({ bytes: liar, name: "t.docx" }, { data: "{}", async: "true" })));
    expect(r).toMatchObject({ status: 422, code: "corrupt_source", reason: "zip_size_mismatch" });
  });

  test("no job directory is left behind by the refusals", () => {
    expect(stack.gate.logLines.filter((l) => l.includes('"job_queued"'))).toEqual([]);
    expect(readdirSync(path.join(stack.dataDir, "jobs"))).toEqual([]);
  });

  test("embed: a session whose document.url gives a bomb is refused (422 corrupt_source on document.url) and nothing is stored", async () => {
    const config = {
      document: { url: bombUrl, title: "report.docx", fileType: "docx", key: `bomb-${Date.now()}` },
      editor: { mode: "edit", lang: "en", user: { id: "u1", name: "Lan" } },
    };
    const r = await stack.create({ token: await embedToken(config) });
    expect({ status: r.status, code: r.body.error.code, reason: r.body.error.detail.reason, field: r.body.error.detail.field }).toEqual({
      status: 422,
      code: "corrupt_source",
      reason: "zip_ratio",
      field: "document.url",
    });
    expect(existsSync(path.join(stack.dataDir, "embed", "files"))).toBe(false);
    expect(readdirSync(path.join(stack.dataDir, "embed", "tmp"))).toEqual([]);
  });

  test("a real document still goes through (the guard is not in the way)", async () => {
    const res = await post("/v1/convert", form({ path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" }, { to: "txt" }));
    expect(res.status).toBe(200);
  });
});

describe("a small docx with huge XML is refused before anyone waits (issue 21 item 2)", () => {
  const part = () => ({ bytes: HUGE_XML, name: "minutes.docx" });
  const cases: [string, () => Promise<Response>][] = [
    ["convert, upload", () => post("/v1/convert", form(part(), { to: "pdf" }))],
    ["convert, url, async", () => post("/v1/convert", ...json({ url: hugeXmlUrl, to: "pdf", async: true }))],
    ["extract/text", () => post("/v1/extract/text", form(part()))],
  ];
  for (const [name, send] of cases) {
    test(`${name}: a 50 KB docx with 15 MiB of XML gets 422 corrupt_source (xml_ratio), no worker touched`, async () => {
      expect(HUGE_XML.length).toBeLessThan(60 * 1024);
      const before = await workersIdle();
      const res = await send();
      const body = (await res.json()) as any;
      expect({ status: res.status, code: body.error.code, reason: body.error.detail.reason, part: body.error.detail.part, limit_ratio: body.error.detail.limit_ratio }).toEqual({
        status: 422,
        code: "corrupt_source",
        reason: "xml_ratio",
        part: "word/document.xml",
        limit_ratio: 200,
      });
      expect(body.error.message).toContain("tối đa 200:1");
      const after = stack.gate.pool.status();
      expect({ busy: after.busy, restarts: after.restarts }).toEqual({ busy: 0, restarts: before.restarts });
    });
  }

  test("embed: a session whose document.url gives a 50 KB docx with 15 MiB of XML is refused at creation (422 corrupt_source, xml_ratio)", async () => {
    const config = {
      document: { url: hugeXmlUrl, title: "minutes.docx", fileType: "docx", key: `huge-xml-${Date.now()}` },
      editor: { mode: "edit", lang: "en", user: { id: "u1", name: "Lan" } },
    };
    const r = await stack.create({ token: await embedToken(config) });
    expect({ status: r.status, code: r.body.error.code, reason: r.body.error.detail.reason, field: r.body.error.detail.field }).toEqual({
      status: 422,
      code: "corrupt_source",
      reason: "xml_ratio",
      field: "document.url",
    });
  });
});

describe("an unusable URL is refused as a URL before anything is inferred from it", () => {
  const BAD = ["file:///etc/passwd", "file:///etc/shadow.bak", "ftp://files.example/a", "not a url", "http://169.254.169.254/latest/meta-data"];

  test("convert: file:///etc/passwd to txt is 422 url_not_allowed, not 415 from its missing extension", async () => {
    for (const url of BAD) {
      for (const to of ["txt", "pdf"]) {
        expect({ url, ...(await refused(await post("/v1/convert", ...json({ url, to })))) }).toMatchObject({ url, status: 422, code: "url_not_allowed" });
      }
      expect(await refused(await post("/v1/convert", ...json({ url, to: "pdf", async: true })))).toMatchObject({ status: 422, code: "url_not_allowed" });
      expect(await refused(await post("/v1/convert", form(null, { url, to: "txt" })))).toMatchObject({ status: 422, code: "url_not_allowed" });
    }
  });

  test("extract: every kind refuses the URL as a URL", async () => {
    for (const url of BAD) {
      for (const what of ["text", "meta", "thumbnail"]) {
        expect(await refused(await post(`/v1/extract/${what}`, ...json({ url })))).toMatchObject({ status: 422, code: "url_not_allowed" });
      }
    }
  });

  test("template/render refuses the URL as a URL", async () => {
    for (const url of BAD) {
      expect(await refused(await post("/v1/template/render", ...json({ url, data: {} })))).toMatchObject({ status: 422, code: "url_not_allowed" });
    }
  });

  test("callback_url of convert, build and template jobs is judged by the same URL rules", async () => {
    const script = { type: "document", content: [{ type: "paragraph", text: "x" }] };
    for (const cb of BAD) {
      const fixture = { path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" };
      expect(await refused(await post("/v1/convert", form(fixture, { to: "pdf", async: "true", callback_url: cb })))).toMatchObject({ status: 422, code: "url_not_allowed" });
      expect(await refused(await post("/v1/build", ...json({ script, async: true, callback_url: cb })))).toMatchObject({ status: 422, code: "url_not_allowed" });
      expect(await refused(await post("/v1/template/render", form(fixture, { data: "{}", async: "true", callback_url: cb })))).toMatchObject({ status: 422, code: "url_not_allowed" });
    }
  });

  test("embed: document.url and editor.callbackUrl that are not http(s) URLs are refused on those fields, before any download", async () => {
    const hits = source.hits.length;
    for (const [field, over] of [
      ["/document/url", { document: { url: "file:///etc/passwd" } }],
      ["/editor/callbackUrl", { editor: { callbackUrl: "file:///etc/passwd" } }],
    ] as const) {
      const config = {
        document: { url: bombUrl, title: "a.docx", fileType: "docx", key: `url-${Date.now()}`, ...(over as any).document },
        editor: { mode: "edit", lang: "en", user: { id: "u1", name: "Lan" }, ...(over as any).editor },
      };
      const r = await stack.create({ token: await embedToken(config) });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_config");
      expect(r.body.error.detail.errors.map((e: any) => e.path)).toEqual([field]);
    }
    expect(source.hits.length).toBe(hits);
  });
});
