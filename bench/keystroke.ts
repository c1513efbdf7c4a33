// Keystroke → pixels, the way a person feels it (`bun run bench:keys`): the editor page in Debian's
// Chromium against the real editing server, hello.docx, typing at the end of its first paragraph.
// Human pace: one key every 100 ms; for each key, from the browser's keydown to the first
//      animation frame where the canvas pixels at the caret changed (p50/p95);
// (Full speed, "never more than 3 characters behind the caret", is not measured yet: keys typed
// faster than the caret moves share one caret box, so this per-key test cannot count them.)
// Baseline in the same run: the same measurement of a keydown whose effect is drawn by the page
// itself (a local canvas fill at the caret), i.e. the browser's own input-to-frame cost.
// Knobs: BENCH_KEYS (40). Writes bench/out/keystroke-latest.json.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { createEdsrv } from "../app/edsrv/server";
import { editorFrame, hostPageHtml, startChromium } from "../app/edsrv/testing/chromium";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { percentiles } from "./measure";

const ROOT = path.resolve(import.meta.dir, "..");
const KEYS = Number(process.env.BENCH_KEYS ?? 40);

const host = startWopiHost();
const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "keys-bench-")), SVC_ONLINE_ALIASGROUP1: host.origin });
const ed = await createEdsrv({ config, logger: memoryLogger("error"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 1, autosaveSeconds: 0 });
const chrome = await startChromium();
host.addToken("tok_keys", "u1", true, "Bench");
const src = host.addFile("k1", "hello.docx", readFileSync(path.join(ROOT, "fixtures/hello.docx")));
host.pages.set("k1", hostPageHtml(ed.url, ed.hash, src, "tok_keys"));
const ctx = await chrome.browser.newContext({ viewport: { width: 1024, height: 720 } });
const page = await ctx.newPage();
await page.goto(`${host.origin}/page/k1`);
const frame = await editorFrame(page);
await frame.focus("#ime");
await page.keyboard.press("End");
await Bun.sleep(500);

// In the page: every keydown on the editor notes the caret's box and the pixels there; every
// animation frame checks the boxes still waiting. `local` makes the page paint the box itself.
await frame.evaluate(() => {
  const w = window as any, S = w.edState, canvas = document.getElementById("canvas") as HTMLCanvasElement, c = canvas.getContext("2d")!;
  const v = () => (canvas as any)._v ?? { x: 0, y: 0 };
  const boxAt = (r: any) => ({ x: Math.round(r.x / 15 - v().x), y: Math.round(r.y / 15 - v().y), w: 9, h: Math.max(4, Math.round(r.h / 15)) });
  const hash = (b: any) => {
    const d = c.getImageData(b.x, b.y, b.w, b.h).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i]! + (d[i + 1]! << 8) + (d[i + 2]! << 16)) | 0;
    return h;
  };
  w.kb = { waiting: [] as any[], done: [] as number[], local: false };
  document.getElementById("ime")!.addEventListener("keydown", (e) => {
    if (e.key.length !== 1 || !S.cursor) return;
    const box = boxAt(S.cursor);
    const k = { t: performance.now(), box, before: hash(box) };
    w.kb.waiting.push(k);
    if (w.kb.local) { c.fillStyle = "#000"; c.fillRect(box.x, box.y, 2, box.h); }
  }, true);
  const tick = () => {
    const now = performance.now();
    w.kb.waiting = w.kb.waiting.filter((k: any) => {
      if (hash(k.box) === k.before) return true;
      w.kb.done.push(now - k.t);
      return false;
    });
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});

async function humanPace(local: boolean): Promise<number[]> {
  await frame.evaluate((l) => Object.assign((window as any).kb, { local: l, done: [], waiting: [] }), local);
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.type(String.fromCharCode(97 + (i % 26)));
    await Bun.sleep(100);
  }
  await Bun.sleep(1000);
  return frame.evaluate(() => (window as any).kb.done as number[]);
}

const baseline = percentiles(await humanPace(true));
await page.keyboard.press("Enter");
const human = percentiles(await humanPace(false));

console.log(`human pace (1 key / 100 ms, ${human.n} keys): keydown → pixels at the caret p50 ${human.p50.toFixed(1)} ms, p95 ${human.p95.toFixed(1)} ms, max ${human.max.toFixed(1)} ms`);
console.log(`baseline (the page paints the caret box itself): p50 ${baseline.p50.toFixed(1)} ms, p95 ${baseline.p95.toFixed(1)} ms; the editor's round trip adds ×${(human.p50 / baseline.p50).toFixed(1)} at p50`);

await ctx.close();
// Let the document close (its exit save) before the server stops.
for (let i = 0; i < 100 && ed.brokers.size > 0; i++) await Bun.sleep(50);
await chrome.close();
await ed.close();
host.stop();
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/out/keystroke-latest.json"), JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, human, baseline }, null, 2));
process.exit(0);
