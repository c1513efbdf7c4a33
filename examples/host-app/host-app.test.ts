// The examples/ host application end to end, started with its own command (`bun run example`'s),
// beside the real service behind the real Caddy, driven in Chromium: open a document from the
// app's list, type, save; the app receives the signed callback, keeps the version, lists it.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import type { Subprocess } from "bun";
import { freePort, startCaddy, type RunningCaddy } from "../../caddy/testing";
import { startChromium } from "../../app/edsrv/testing/chromium";
import { CALLBACK_SECRET, EMBED_SECRET, startEmbedStack, until, type EmbedStack } from "../../app/embed/testing";

const ROOT = path.resolve(import.meta.dir, "../..");
let stack: EmbedStack;
let caddy: RunningCaddy;
let appProc: Subprocess;
let appUrl: string;
let dataDir: string;
let chrome: Awaited<ReturnType<typeof startChromium>>;

beforeAll(async () => {
  const [caddyPort, appPort] = [await freePort(), await freePort()];
  appUrl = `http://127.0.0.1:${appPort}`;
  const caddyUrl = `http://127.0.0.1:${caddyPort}`;
  stack = await startEmbedStack({ idleKits: 1, env: { SVC_PUBLIC_URL: caddyUrl, SVC_EMBED_ALLOWED_ORIGINS: appUrl }, gate: { sampleIntervalMs: 200, embedClosedAfterMs: 1500 } });
  caddy = await startCaddy({ app: new URL(stack.gateUrl).host, edsrv: new URL(stack.ed.url).host, port: caddyPort });
  dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-host-app-"));
  // The same command as `bun run example`.
  appProc = Bun.spawn([process.execPath, path.join(ROOT, "examples/host-app/server.ts")], {
    env: { ...process.env, PORT: String(appPort), SVC_URL: caddyUrl, SVC_EMBED_JWT_SECRET: EMBED_SECRET, SVC_EMBED_CALLBACK_SECRET: CALLBACK_SECRET, DATA_DIR: dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
  await until(
    () => fetch(appUrl).then((r) => r.status, () => 0),
    (s) => s === 200,
    "the host app answers",
  );
  chrome = await startChromium();
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  appProc?.kill();
  await caddy?.stop();
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the host app opens a document in the editor, receives the signed save callback and keeps the version", async () => {
  const page = await chrome.browser.newPage({ viewport: { width: 1300, height: 850 } });
  await page.goto(appUrl);
  await page.click('a[href="/open/hello.docx"]');
  await page.waitForFunction(() => (window as any).log?.some((e: any) => e[0] === "onDocumentLoaded"), undefined, { timeout: 60_000 });
  const frame = page.frames().find((f) => f.url().includes("/ed.html"))!;
  await frame.waitForFunction(() => (window as any).edState.firstPaintAt > 0);
  await frame.focus("#ime");
  await page.keyboard.type("Host app typed ");
  await page.waitForFunction(() => (window as any).log.some((e: any) => e[0] === "onModified" && e[1].modified));
  await page.click("#save");
  await page.waitForFunction(() => (window as any).log.some((e: any) => e[0] === "onSaved"));
  expect(await page.evaluate(() => (window as any).log.filter((e: any) => e[0] === "onError"))).toEqual([]);
  // The app's callback receiver kept version 1 (downloaded from the signed link).
  const list = await until(
    () => fetch(appUrl).then((r) => r.text()),
    (html) => html.includes("v1 ("),
    "the version listed",
  );
  const href = /href="(\/versions\/hello\.docx\/[^"]+)"/.exec(list)![1]!;
  const kept = new Uint8Array(await (await fetch(appUrl + href)).arrayBuffer());
  expect(strFromU8(unzipSync(kept)["word/document.xml"]!).replace(/<[^>]+>/g, "")).toContain("Host app typed Hello from svc");
  // The document's current content is the saved one.
  expect(new Uint8Array(await (await fetch(`${appUrl}/files/hello.docx`)).arrayBuffer())).toEqual(kept);
  await page.close();
}, 90_000);
