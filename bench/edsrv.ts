// Editing-server benchmark (`bun run bench/edsrv.ts`): the editor page in Debian's Chromium against
// the real editing server, kits pre-started, and a loopback WOPI host serving local files.
//   1. open: the host page's form POST → every tile of the first screen painted (hello.docx, one page),
//      each open on a warm pre-started kit, one after another in the same tab;
//   2. keystroke → updated tile: one character typed, until the first new tile pixels after it are drawn
//      (pushed or asked for; measured inside the page: WebSocket send → drawImage), ~50 keystrokes, p50/p95;
//   3. tiles per second while scrolling a long document screen by screen (each screen fully painted);
//   4. resident memory of an idle kit, of the kit with the document open, and per extra view.
// Knobs: BENCH_OPEN_REPS (8), BENCH_KEYS (50), BENCH_SCREENS (40), BENCH_VIEWS (3),
// BENCH_LONG_DOC (default /work/shared/corpus/docx/unstructured_handbook_872p.docx).
// Prints a summary and writes bench/out/edsrv-latest.json. Results go to docs/benchmarks.md by hand.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { createEdsrv } from "../app/edsrv/server";
import { editorFrame, hostPageHtml, startChromium } from "../app/edsrv/testing/chromium";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { percentiles, warmKits } from "./measure";

const ROOT = path.resolve(import.meta.dir, "..");
const OPEN_REPS = Number(process.env.BENCH_OPEN_REPS ?? 8);
const KEYS = Number(process.env.BENCH_KEYS ?? 50);
const SCREENS = Number(process.env.BENCH_SCREENS ?? 40);
const VIEWS = Number(process.env.BENCH_VIEWS ?? 3);
const LONG_DOC = process.env.BENCH_LONG_DOC ?? "/work/shared/corpus/docx/unstructured_handbook_872p.docx";

const f1 = (n: number) => n.toFixed(1);
const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
};

const host = startWopiHost();
const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "edsrv-bench-")), SVC_ONLINE_ALIASGROUP1: host.origin, SVC_ENGINE_PROGRAM_DIR: process.env.SVC_ENGINE_PROGRAM_DIR });
const ed = await createEdsrv({ config, logger: memoryLogger("error"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 2, autosaveSeconds: 0 });
const chrome = await startChromium();
host.addToken("tok_bench", "u1", true, "Bench");
let seq = 0;

/**
 * Opens `file` (or, with `join`, the file of that id again: another view) in the editor framed by a
 * host page, in a new page of `ctx` or in `tab`; `quiet`: the page is not touched until it has painted.
 */
async function open(ctx: BrowserContext, file: string, o: { join?: string; tab?: Page; quiet?: boolean } = {}): Promise<{ page: Page; frame: Frame; id: string; src: string }> {
  const { join, tab, quiet = false } = o;
  const id = join ?? `b${++seq}`;
  const src = join ? `${host.origin}/wopi/files/${id}` : host.addFile(id, path.basename(file), readFileSync(file));
  const pageId = `p${++seq}`;
  host.pages.set(pageId, hostPageHtml(ed.url, ed.hash, src, "tok_bench"));
  const page = tab ?? (await ctx.newPage());
  await page.goto(`${host.origin}/page/${pageId}`);
  if (quiet) {
    // Nothing asked of the page until it has painted: Playwright's polling and its script injected
    // into each new document run on the renderer's main thread, in the path being measured. The
    // page keeps its own times; the view is watched from the server meanwhile.
    const viewAttached = () => [...ed.brokers.values()].some((b) => b.wopiSrc === src && b.sessions.size > 0);
    while (!viewAttached()) await Bun.sleep(10);
    await Bun.sleep(1500);
  }
  const frame = await editorFrame(page);
  return { page, frame, id, src };
}
const docGone = async (src: string) => {
  while ([...ed.brokers.values()].some((b) => b.wopiSrc === src)) await Bun.sleep(20);
};

const out: Record<string, unknown> = { date: new Date().toISOString(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30) };
const ctx = await chrome.browser.newContext({ viewport: { width: 1024, height: 720 } });

// 1. open → first screen painted
const hello = path.join(ROOT, "fixtures/hello.docx");
const opens: { request: number; hostSubmit: number }[] = [];
// One tab, as a person opens documents from a web application already open: a new tab costs
// Chromium's own tab interface (its renderer took about 1.2 s of CPU on each new tab here, 2 cores),
// which no editing server can save.
const tab = await ctx.newPage();
for (let i = 0; i < OPEN_REPS + 1; i++) {
  await warmKits(ed);
  const { page, frame, src } = await open(ctx, hello, { tab, quiet: true });
  const t = await frame.evaluate(() => ({ origin: performance.timeOrigin, paint: window.edState.firstPaintAt, marks: window.edState.marks, tiles: window.edState.tilesDrawn }));
  if (process.env.BENCH_DEBUG) console.log(JSON.stringify(t));
  const t0 = await page.evaluate(() => (window as any).t0);
  if (i > 0) opens.push({ request: t.paint - t.origin, hostSubmit: t.paint - t0 }); // the first open warms Chromium's caches
  await page.goto("about:blank"); // the editor closes its socket on pagehide
  await docGone(src);
}
await tab.close();
const openReq = percentiles(opens.map((o) => o.request)), openHost = percentiles(opens.map((o) => o.hostSubmit));
out.open = { fromEditorRequest: openReq, fromHostSubmit: openHost };
console.log(`open hello.docx → first screen painted: p50 ${f1(openReq.p50)} ms, p95 ${f1(openReq.p95)} ms, max ${f1(openReq.max)} ms (from the editor page request; from the host form submit p50 ${f1(openHost.p50)} ms)`);

// 2. keystroke → updated tile, and 4. memory
await warmKits(ed);
const idleKitRss = rssMb((ed.pool as unknown as { idle: { pid: number }[] }).idle[0]!.pid);
const first = await open(ctx, hello);
const broker = [...ed.brokers.values()].find((b) => b.wopiSrc === first.src)!;
const kitPid = broker.pid;
await Bun.sleep(500);
const docKitRss = rssMb(kitPid);
await first.frame.focus("#ime");
for (let i = 0; i < KEYS; i++) {
  const n = await first.frame.evaluate(() => window.edState.inputLatencies.length);
  await first.page.keyboard.type(String.fromCharCode(97 + (i % 26)));
  await first.frame.waitForFunction((k) => window.edState.inputLatencies.length > k && !window.edState.inputAt, n, { polling: "raf" });
  await Bun.sleep(30);
}
const lat = percentiles((await first.frame.evaluate(() => window.edState.inputLatencies)) as number[]);
out.keystroke = lat;
console.log(`keystroke → updated tile drawn (${lat.n} keys): p50 ${f1(lat.p50)} ms, p95 ${f1(lat.p95)} ms, max ${f1(lat.max)} ms`);

const extra: { page: Page }[] = [];
for (let i = 0; i < VIEWS; i++) {
  const c = await chrome.browser.newContext({ viewport: { width: 1024, height: 720 } });
  extra.push(await open(c, "", { join: first.id }));
}
await Bun.sleep(500);
const viewsRss = rssMb(kitPid);
const perView = (viewsRss - docKitRss) / VIEWS;
out.memory = { idleKitMb: idleKitRss, kitWithDocMb: docKitRss, perDocumentMb: docKitRss - idleKitRss, kitWithViewsMb: viewsRss, perExtraViewMb: perView, views: VIEWS + 1 };
console.log(`memory: idle kit ${f1(idleKitRss)} MB, kit with hello.docx open ${f1(docKitRss)} MB (+${f1(docKitRss - idleKitRss)} MB for the document), ${VIEWS} more views → ${f1(viewsRss)} MB (${f1(perView)} MB per view)`);
for (const e of extra) await e.page.context().close();
await first.page.close();
await docGone(first.src);

// 3. tiles per second while scrolling
if (existsSync(LONG_DOC)) {
  await warmKits(ed);
  const t0 = performance.now();
  const long = await open(ctx, LONG_DOC);
  const openMs = performance.now() - t0;
  const st = await long.frame.evaluate(() => window.edState.status);
  const r = await long.frame.evaluate(async (screens) => {
    const S = window.edState, vp = document.getElementById("viewport")!;
    const idle = () => new Promise<void>((res) => { const f = () => (S.tilesDrawn >= S.tilesRequested ? res() : requestAnimationFrame(f)); f(); });
    await idle();
    const d0 = S.tilesDrawn, t = performance.now(), per: number[] = [];
    for (let i = 0; i < screens; i++) {
      const s = performance.now();
      vp.scrollTop += vp.clientHeight;
      await new Promise((res) => requestAnimationFrame(res));
      await new Promise((res) => requestAnimationFrame(res));
      await idle();
      per.push(performance.now() - s);
    }
    return { tiles: S.tilesDrawn - d0, ms: performance.now() - t, per };
  }, SCREENS);
  const screen = percentiles(r.per);
  out.scroll = { doc: path.basename(LONG_DOC), heightTwips: st!.height, openMs, tiles: r.tiles, ms: r.ms, tilesPerSecond: (r.tiles / r.ms) * 1000, screen };
  console.log(`scroll ${path.basename(LONG_DOC)} (${Math.round(st!.height / 15)} px tall, opened in ${f1(openMs)} ms): ${r.tiles} tiles in ${f1(r.ms)} ms = ${f1((r.tiles / r.ms) * 1000)} tiles/s; a screen painted p50 ${f1(screen.p50)} ms, p95 ${f1(screen.p95)} ms`);
  await long.page.close();
} else console.log(`scroll: ${LONG_DOC} not found, skipped`);

await ctx.close();
await chrome.close();
await ed.close();
host.stop();
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/out/edsrv-latest.json"), JSON.stringify(out, null, 2));
process.exit(0);
