// The editor page in Debian's Chromium (playwright-core): a host page frames ed.html with a form
// POST, does the postMessage handshake, the user types, the host sends Action_Save with Notify,
// and the WOPI host receives the typed text.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { createEdsrv, type Edsrv } from "./server";
import { startWopiHost } from "./testing/wopi-host";
import { hostPageHtml, startChromium } from "./testing/chromium";
import { docxText } from "../testing/office-files";

const FIX = path.resolve(import.meta.dir, "../../fixtures");
let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
let browser: Browser;
let chrome: Awaited<ReturnType<typeof startChromium>>;

beforeAll(async () => {
  host = startWopiHost();
  const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-br-")), SVC_ONLINE_ALIASGROUP1: host.origin });
  ed = await createEdsrv({ config, logger: memoryLogger("warn"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 1, autosaveSeconds: 0 });
  host.addToken("tok_browser_1", "u1", true, "Alice");
  chrome = await startChromium();
  browser = chrome.browser;
});
afterAll(async () => {
  await chrome?.close();
  await ed?.close();
  host?.stop();
});


test("a docx opens in the browser from tiles, typed text is saved through Action_Save and reaches the WOPI host", async () => {
  const src = host.addFile("b1", "hello.docx", readFileSync(path.join(FIX, "hello.docx")));
  host.pages.set("b1", hostPageHtml(ed.url, ed.hash, src, "tok_browser_1"));
  const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
  await page.goto(`${host.origin}/page/b1`);
  await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.Values?.Status === "Document_Loaded"));
  const frame = page.frames().find((f) => f.url().includes("/ed.html"))!;
  expect(frame.url()).not.toContain("tok_browser_1");
  await frame.waitForFunction(() => window.edState.tilesDrawn > 0);
  await frame.focus("#ime");
  await page.keyboard.type("Browser typed 77 ");
  await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified === true));
  await page.evaluate(() => (window as any).save());
  await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.MessageId === "Action_Save_Resp"));
  const resp = await page.evaluate(() => (window as any).msgs.find((m: any) => m.MessageId === "Action_Save_Resp").Values);
  expect(resp.success).toBe(true);
  const put = host.puts.find((p) => p.fileId === "b1" && p.status === 200)!;
  expect(docxText(put.bytes)).toContain("Browser typed 77");
  await page.close();
});
