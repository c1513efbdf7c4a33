// Where an open's time goes (diagnostic, not a benchmark): the editor frame's navigation and
// resource timing and the page's own marks, for BENCH_OPEN_REPS opens of hello.docx.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { createEdsrv } from "../app/edsrv/server";
import { editorFrame, hostPageHtml, startChromium } from "../app/edsrv/testing/chromium";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { warmKits } from "./measure";

const ROOT = path.resolve(import.meta.dir, "..");
const REPS = Number(process.env.BENCH_OPEN_REPS ?? 6);
const FILE = process.env.BENCH_FILE ?? path.join(ROOT, "fixtures/hello.docx");
const host = startWopiHost();
const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "open-probe-")), SVC_ONLINE_ALIASGROUP1: host.origin });
const ed = await createEdsrv({ config, logger: memoryLogger("error"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 2, autosaveSeconds: 0 });
const chrome = await startChromium();
host.addToken("tok_bench", "u1", true, "Bench");
const ctx = await chrome.browser.newContext({ viewport: { width: 1024, height: 720 } });
for (let i = 0; i < REPS; i++) {
  await warmKits(ed);
  const src = host.addFile(`f${i}`, path.basename(FILE), readFileSync(FILE));
  host.pages.set(`p${i}`, hostPageHtml(ed.url, ed.hash, src, "tok_bench"));
  const page = await ctx.newPage();
  await page.goto(`${host.origin}/page/p${i}`);
  const frame = await editorFrame(page);
  const t = await frame.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const res = Object.fromEntries(performance.getEntriesByType("resource").map((r: any) => [r.name.split("/").pop()!.split("?")[0], Math.round(r.responseEnd)]));
    const S = window.edState;
    const marks = Object.fromEntries(Object.entries(S.marks).map(([k, v]) => [k, Math.round(v as number)]));
    return { htmlStart: Math.round(nav.responseStart), htmlEnd: Math.round(nav.responseEnd), dcl: Math.round(nav.domContentLoadedEventEnd), res, marks, paint: Math.round(S.firstPaintAt - performance.timeOrigin), tiles: S.tilesDrawn };
  });
  console.log(JSON.stringify(t));
  await page.close();
  while ([...ed.brokers.values()].some((b) => b.wopiSrc === src)) await Bun.sleep(20);
}
await ctx.close();
await chrome.close();
await ed.close();
host.stop();
process.exit(0);
