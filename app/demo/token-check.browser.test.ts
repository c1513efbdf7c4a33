// The demo's token checker (issue 25), in Debian's Chromium against the real gate in development
// mode: a pasted signed config tells which configured secret verifies it (by name; no secret's
// value ever reaches the page), what its payload holds, and every field that would be refused.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startChromium } from "../edsrv/testing/chromium";
import { EMBED_SECRET, embedToken } from "../embed/testing";
import { startTestService, type Harness } from "../testing/harness";
import { scaled } from "../testing/until";

const DOCBUILDER_SECRET = "docbuilder-jwt-secret-0123456789abcdef";
const CALLBACK_SECRET = "callback-secret-never-shown-to-a-page";

let gate: Harness;
let chrome: Awaited<ReturnType<typeof startChromium>>;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [gate, chrome] = await Promise.all([
    startTestService({
      SVC_DEV_MODE: "1",
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_EMBED_JWT_SECRET: EMBED_SECRET,
      SVC_DOCBUILDER_JWT_SECRET: DOCBUILDER_SECRET,
      SVC_EMBED_CALLBACK_SECRET: CALLBACK_SECRET,
    }),
    startChromium(),
  ]);
  browser = chrome.browser;
  page = await browser.newPage();
  await page.goto(`${gate.url}/svc/demo/token`);
}, scaled(120_000));

afterAll(async () => {
  await chrome?.close();
  await gate?.close();
});

const good = {
  document: { url: "https://files.example.com/a.docx", fileType: "docx", key: "doc-1-v1" },
  editor: { user: { id: "u1", name: "Lan" }, callbackUrl: "https://app.example.com/cb" },
};

async function check(text: string): Promise<any> {
  await page.fill("#token", text);
  await page.evaluate(() => ((window as any).tokenReport = null));
  await page.click("#check");
  await page.waitForFunction(() => (window as any).tokenReport !== null);
  return page.evaluate(() => (window as any).tokenReport);
}

const problemRows = () => page.$$eval("#problems li", (lis) => lis.map((li) => `${li.getAttribute("data-path")} ${li.getAttribute("data-code")}`));
const pageText = () => page.evaluate(() => document.body.innerText);

describe("token checker on the demo", () => {
  test("the demo's own signed config: verified by SVC_EMBED_JWT_SECRET, its payload shown, accepted", async () => {
    await page.click("#sample");
    await page.waitForFunction(() => (document.getElementById("token") as HTMLTextAreaElement).value.split(".").length === 3);
    const r = await check(await page.inputValue("#token"));
    expect(r.verdict).toBe("accepted");
    expect(await page.textContent("#verified-by")).toBe("SVC_EMBED_JWT_SECRET");
    expect(await page.textContent("#payload")).toContain('"fileType": "docx"');
    expect(await page.textContent("#verdict")).toContain("sẽ nhận");
  });

  test("rule: a token signed with another configured secret is named by that secret's setting, and refused as wrong_secret", async () => {
    const r = await check(await embedToken(good, { secret: DOCBUILDER_SECRET }));
    expect(r.signature.verified_by).toBe("SVC_DOCBUILDER_JWT_SECRET");
    expect(await page.textContent("#verified-by")).toBe("SVC_DOCBUILDER_JWT_SECRET");
    expect(r.error).toMatchObject({ code: "invalid_token", detail: { reason: "signature", cause: "wrong_secret" } });
    expect(await problemRows()).toContain("signature wrong_secret");
  });

  test("rule: a token no configured secret verifies says so and lists the secrets tried by name only", async () => {
    const r = await check(await embedToken(good, { secret: "some-other-secret-0123456789abcdefgh" }));
    expect(r.signature.verified_by).toBeNull();
    expect(r.signature.tried).toEqual(["SVC_EMBED_JWT_SECRET", "SVC_DOCBUILDER_JWT_SECRET", "SVC_EMBED_CALLBACK_SECRET"]);
    const text = await pageText();
    expect(text).toContain("Không khóa nào");
    for (const secret of [EMBED_SECRET, DOCBUILDER_SECRET, CALLBACK_SECRET]) expect(text).not.toContain(secret);
  });

  test("rule: an algorithm other than HS256 is named (header.alg), the gate's error says algorithm", async () => {
    const r = await check(await embedToken(good, { alg: "HS512" }));
    expect(await problemRows()).toContain("header.alg algorithm");
    expect(r.error.detail).toMatchObject({ reason: "signature", cause: "algorithm", alg: "HS512" });
  });

  test("rule: an expired token is told apart from a wrong secret (token_expired, seconds ago)", async () => {
    const r = await check(await embedToken(good, { expIn: -120 }));
    expect(r.signature.verified_by).toBe("SVC_EMBED_JWT_SECRET");
    expect(r.error.code).toBe("token_expired");
    expect(r.error.detail.expired_seconds_ago).toBeGreaterThanOrEqual(120);
    expect(await problemRows()).toContain("exp expired");
  });

  test("rule: every refused field is listed at once, with the SSRF rule of a private document.url", async () => {
    const bad = {
      document: { url: "http://10.0.0.7/a.docx", fileType: "DOCX", key: "bad key!" },
      editor: { mode: "write", callbackUrl: "http://192.168.1.5/cb" },
    };
    await check(await embedToken(bad));
    const rows = await problemRows();
    expect(rows).toContain("/document/key invalid_config");
    expect(rows).toContain("/editor/mode invalid_config");
    // fileType and URLs are judged once the config's shape is right: fix the shape, check again.
    const r = await check(await embedToken({ document: { ...bad.document, key: "ok-key" }, editor: { callbackUrl: bad.editor.callbackUrl } }));
    expect(await problemRows()).toEqual(expect.arrayContaining(["/document/fileType unsupported_file_type", "/document/url url_not_allowed", "/editor/callbackUrl url_not_allowed"]));
    expect(r.verdict).toBe("refused");
    expect(await pageText()).toContain("10.0.0.0/8 private");
  });

  test("rule: fields sent beside the token (a partly signed config) are named as outside the token", async () => {
    const token = await embedToken({ editor: good.editor });
    const r = await check(JSON.stringify({ token, document: good.document }));
    expect(await problemRows()).toEqual(expect.arrayContaining(["/document outside_token", "/document invalid_config"]));
    expect(r.error).toMatchObject({ code: "invalid_config", detail: { outside_token: ["document"] } });
  });

  test("rule: missing exp and text that is not a JWT are named", async () => {
    await check(await embedToken(good, { expIn: null }));
    expect(await problemRows()).toContain("exp missing_exp");
    const r = await check("not-a-token");
    expect(await problemRows()).toContain("token malformed");
    expect(r.error.detail).toMatchObject({ cause: "malformed" });
  });
});
