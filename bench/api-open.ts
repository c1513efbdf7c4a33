// Opening an embedded document the way an integrator does (`bun run bench:api`): in Debian's
// Chromium, an application page loads api.js through the real Caddy and calls `new SVC.Editor`
// with a signed config; measured from that call to onDocumentLoaded and to the first screen painted
// (every tile of it), including session creation (the gate downloads hello.docx, one page, from a
// loopback file server), the editor page through the proxy and the gate check, CheckFileInfo and
// GetFile from the gate. Baseline, interleaved in the same run: the editor page framed directly by
// a host page with a form POST against the editing server and a loopback WOPI host (what
// bench:edsrv measures): the difference is what the embed layer adds. Each open starts on a warm
// pre-started kit. Knob: BENCH_OPEN_REPS (8 of each). Target (issue 11): p50 ≤ 800 ms.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sign } from "hono/jwt";
import type { BrowserContext } from "playwright-core";
import { parseConfig } from "../app/config";
import { createEdsrv } from "../app/edsrv/server";
import { editorFrame, hostPageHtml, startChromium } from "../app/edsrv/testing/chromium";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { memoryLogger } from "../app/log";
import { startService } from "../app/server";
import { freePort, startCaddy } from "../caddy/testing";
import { percentiles, warmKits } from "./measure";

const REPS = Number(process.env.BENCH_OPEN_REPS ?? 8);
const ROOT = path.resolve(import.meta.dir, "..");
const SECRET = "bench-api-open-secret-0123456789abcdef012";
const HELLO = readFileSync(path.join(ROOT, "fixtures/hello.docx"));
const ms = (x: ReturnType<typeof percentiles>) => `p50 ${x.p50.toFixed(0)} ms, p95 ${x.p95.toFixed(0)} ms`;

const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-api-"));
const wopiHost = startWopiHost();
wopiHost.addToken("tok_bench", "u1", true, "Bench");
const source = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(HELLO) });
const [gatePort, edPort, caddyPort, appPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
const gateUrl = `http://127.0.0.1:${gatePort}`;
const caddyUrl = `http://127.0.0.1:${caddyPort}`;
const appOrigin = `http://127.0.0.1:${appPort}`;

const ed = await createEdsrv({
  config: parseConfig({ SVC_DATA_DIR: path.join(work, "ed"), SVC_ONLINE_ALIASGROUP1: gateUrl, SVC_ONLINE_ALIASGROUP2: wopiHost.origin, SVC_EDSRV_ADMIN_PASSWORD: "bench", SVC_EMBED_ALLOWED_ORIGINS: appOrigin }),
  logger: memoryLogger("error"),
  listen: { hostname: "127.0.0.1", port: edPort },
  idleKits: 2,
  autosaveSeconds: 0,
});
const gate = await startService(
  parseConfig({
    SVC_DATA_DIR: path.join(work, "gate"),
    SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
    SVC_PUBLIC_URL: caddyUrl,
    SVC_DOCBUILDER_WORKERS: "1",
    SVC_LOG_LEVEL: "error",
    SVC_LICENSE_FILE: path.join(work, "license.token"),
    SVC_EDSRV_URL: ed.url,
    SVC_EDSRV_ADMIN_PASSWORD: "bench",
    SVC_EMBED_JWT_SECRET: SECRET,
    SVC_EMBED_ALLOWED_ORIGINS: appOrigin,
    SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
  }),
  memoryLogger("error"),
  { port: gatePort, hostname: "127.0.0.1" },
);
const caddy = await startCaddy({ app: `127.0.0.1:${gatePort}`, edsrv: `127.0.0.1:${edPort}`, port: caddyPort });

// The integrator's page: the config is signed by its backend before the page loads (not timed);
// t0 is taken right before `new SVC.Editor`.
const pages = new Map<string, string>();
const app = Bun.serve({
  hostname: "127.0.0.1",
  port: appPort,
  fetch(req) {
    const html = pages.get(new URL(req.url).pathname);
    return html ? new Response(html, { headers: { "Content-Type": "text/html" } }) : new Response("nf", { status: 404 });
  },
});
const apiPage = (token: string) => `<!doctype html><body style="margin:0"><div id="ed" style="width:1024px;height:720px"></div>
<script src="${caddyUrl}/svc/api.js"></script>
<script>
window.loadedAt = 0;
window.t0 = performance.timeOrigin + performance.now();
new SVC.Editor("ed", { token: ${JSON.stringify(token)}, events: { onDocumentLoaded: () => { window.loadedAt = performance.timeOrigin + performance.now(); } } });
</script></body>`;

const chrome = await startChromium();
const ctx: BrowserContext = await chrome.browser.newContext({ viewport: { width: 1100, height: 800 } });
let seq = 0;

const allClosed = async () => {
  while (ed.brokers.size) await Bun.sleep(20);
};

async function viaApi(): Promise<{ loaded: number; painted: number }> {
  const key = `bench-open-${Date.now()}-${++seq}`;
  const token = await sign(
    { document: { url: `http://127.0.0.1:${source.port}/hello.docx`, fileType: "docx", key }, editor: { user: { id: "u1", name: "Bench" } }, exp: Math.floor(Date.now() / 1000) + 600 },
    SECRET,
    "HS256",
  );
  pages.set(`/p${seq}`, apiPage(token));
  const page = await ctx.newPage();
  await page.goto(`${appOrigin}/p${seq}`);
  await page.waitForFunction(() => (window as any).loadedAt > 0, undefined, { timeout: 60_000, polling: 25 });
  const frame = page.frames().find((f) => f.url().includes("/ed.html"))!;
  await frame.waitForFunction(() => window.edState.firstPaintAt > 0, undefined, { timeout: 60_000, polling: 25 });
  const t = await page.evaluate(() => ({ t0: (window as any).t0, loaded: (window as any).loadedAt }));
  const paint = await frame.evaluate(() => window.edState.firstPaintAt as number); // epoch ms
  if (process.env.BENCH_DEBUG) {
    const f = await frame.evaluate(() => ({ origin: performance.timeOrigin, marks: window.edState.marks }));
    const marks = Object.fromEntries(Object.entries(f.marks as Record<string, number>).map(([k, v]) => [k, Math.round(f.origin + v - t.t0)]));
    console.log(JSON.stringify({ frameRequest: Math.round(f.origin - t.t0), ...marks, loaded: Math.round(t.loaded - t.t0), painted: Math.round(paint - t.t0) }));
  }
  await page.close();
  return { loaded: t.loaded - t.t0, painted: paint - t.t0 };
}

async function direct(): Promise<{ loaded: number; painted: number }> {
  const id = `d${++seq}`;
  const src = wopiHost.addFile(id, "hello.docx", HELLO);
  wopiHost.pages.set(id, hostPageHtml(ed.url, ed.hash, src, "tok_bench"));
  const page = await ctx.newPage();
  await page.goto(`${wopiHost.origin}/page/${id}`);
  const frame = await editorFrame(page);
  const t0 = await page.evaluate(() => (window as any).t0);
  const loaded = await page.evaluate(() => {
    const m = (window as any).msgs.find((x: any) => x.Values?.Status === "Document_Loaded");
    return m ? m.SendTime : 0;
  });
  const paint = await frame.evaluate(() => window.edState.firstPaintAt as number); // epoch ms
  await page.close();
  return { loaded: loaded - t0, painted: paint - t0 };
}

// One warm-up of each (first Chromium frame, first discovery read), then REPS interleaved.
const a: { loaded: number; painted: number }[] = [];
const b: { loaded: number; painted: number }[] = [];
for (let i = -1; i < REPS; i++) {
  await allClosed();
  await warmKits(ed);
  const x = await viaApi();
  await allClosed();
  await warmKits(ed);
  const y = await direct();
  if (i >= 0) {
    a.push(x);
    b.push(y);
  }
}

const apiLoaded = percentiles(a.map((x) => x.loaded));
const apiPainted = percentiles(a.map((x) => x.painted));
const dLoaded = percentiles(b.map((x) => x.loaded));
const dPainted = percentiles(b.map((x) => x.painted));
console.log(`open through api.js (new SVC.Editor → onDocumentLoaded): ${ms(apiLoaded)}; → first screen painted: ${ms(apiPainted)}`);
console.log(`baseline, editor page framed directly (form POST → Document_Loaded): ${ms(dLoaded)}; → first screen painted: ${ms(dPainted)}`);
console.log(`the embed layer adds p50 ${(apiPainted.p50 - dPainted.p50).toFixed(0)} ms to the first screen (${(apiPainted.p50 / dPainted.p50).toFixed(2)}×)`);
console.log(`target p50 ≤ 800 ms (to the document loaded, session creation included): ${apiLoaded.p50 <= 800 ? "met" : "NOT met"}`);
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/out/api-open.json"), JSON.stringify({ date: new Date().toISOString(), reps: REPS, api: { loaded: apiLoaded, painted: apiPainted }, direct: { loaded: dLoaded, painted: dPainted } }, null, 2));

await chrome.close();
await caddy.stop();
app.stop(true);
source.stop(true);
wopiHost.stop();
await gate.stop(2000);
await ed.close();
rmSync(work, { recursive: true, force: true });
process.exit(0);
