// Keystroke → pixels, the way a person feels it (`bun run bench:keys`): the editor page in Debian's
// Chromium against the real editing server, hello.docx, typing at the end of a paragraph.
//
// 1. Human pace, one key every 100 ms: for each key, from the browser's keydown to the first frame
//    after the canvas pixels at the caret changed (p50/p95). The page is watched without touching
//    its scheduling: the editor's canvas draws are observed, and the one animation frame asked for
//    after the change is the one that shows it.
// 2. The same keys measured by polling the canvas on every animation frame, the method of the
//    figures recorded before 2026-11-24 (docs/benchmarks-history.md): a page that renders every frame.
//    Chromium then runs the WebSocket's messages behind each frame's work, which adds 5-10 ms.
// 3. Full speed (Playwright's keyboard at its own pace, 60 × "x" on an empty line) and a fast
//    typist (one key every BENCH_FAST_MS, 60 ms): how many characters the painted text is behind
//    the caret, and behind the keys pressed, at every change of the screen (each canvas draw and
//    each caret move). "x" after "x" has one advance width, so the characters painted are counted
//    from the rightmost inked pixel of the line. "Behind the caret shown" (the #cursor element
//    against the pixels, what a person sees) is the editor's figure; "behind the engine's caret"
//    compares the pixels with the caret the engine last reported, which the page shows once the
//    text it follows is painted. At full speed Chromium runs no WebSocket message while the
//    automation's key events flood in, so "behind the keys" measures the browser there.
// Baseline in the same run: the same measurement of a keydown whose effect is drawn by the page
// itself (a local canvas fill at the caret), i.e. the browser's own input-to-frame cost.
// Knobs: BENCH_KEYS (40), BENCH_FULL_KEYS (60), BENCH_FAST_MS (60), BENCH_DEBUG (trace). Writes bench/out/keystroke-latest.json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { editorFrame, hostPageHtml, startChromium } from "../app/edsrv/testing/chromium";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { startEdsrvProcess } from "./edsrv-process";
import { machineQuiet, percentiles } from "./measure";

const ROOT = path.resolve(import.meta.dir, "..");
const KEYS = Number(process.env.BENCH_KEYS ?? 40);
const FULL_KEYS = Number(process.env.BENCH_FULL_KEYS ?? 60);
const FAST_MS = Number(process.env.BENCH_FAST_MS ?? 60);

const host = startWopiHost();
// The editing server in its own process, as in production (see edsrv-process.ts).
const ed = await startEdsrvProcess({ SVC_ONLINE_ALIASGROUP1: host.origin, SVC_EDSRV_IDLE_KITS: "1", SVC_EDSRV_AUTOSAVE_SECONDS: "0" });
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
await machineQuiet();

// In the page: every keydown on the editor notes the caret's box and the pixels there. `mode`:
// "draws" checks the boxes after each of the editor's canvas draws and takes the next frame;
// "frames" polls them on every animation frame; `local` makes the page paint the box itself.
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
  const kb = (w.kb = { waiting: [] as any[], done: [] as number[], local: false, mode: "draws", polling: false });
  const check = () => {
    const changed: any[] = [];
    kb.waiting = kb.waiting.filter((k: any) => (hash(k.box) === k.before ? true : (changed.push(k), false)));
    if (!changed.length) return;
    if (kb.mode === "frames") for (const k of changed) kb.done.push(performance.now() - k.t);
    else requestAnimationFrame(() => { for (const k of changed) kb.done.push(performance.now() - k.t); });
  };
  // The editor's own draws (tiles), seen as they happen.
  const draw = c.drawImage;
  (c as any).drawImage = function (...a: any[]) {
    const r = (draw as any).apply(c, a);
    if (kb.mode === "draws" && kb.waiting.length) check();
    return r;
  };
  document.getElementById("ime")!.addEventListener("keydown", (e) => {
    if (e.key.length !== 1 || !S.cursor) return;
    const box = boxAt(S.cursor);
    kb.waiting.push({ t: performance.now(), box, before: hash(box) });
    if (kb.local) {
      c.fillStyle = "#000";
      c.fillRect(box.x, box.y, 2, box.h);
      if (kb.mode === "draws") check();
    }
  }, true);
  const tick = () => {
    if (kb.mode !== "frames") return void (kb.polling = false);
    check();
    requestAnimationFrame(tick);
  };
  w.kbPoll = () => { if (!kb.polling) { kb.polling = true; requestAnimationFrame(tick); } };
});

async function humanPace(local: boolean, mode: "draws" | "frames"): Promise<number[]> {
  await machineQuiet();
  await frame.evaluate(([l, m]) => { Object.assign((window as any).kb, { local: l, mode: m, done: [], waiting: [] }); if (m === "frames") (window as any).kbPoll(); }, [local, mode] as const);
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.type(String.fromCharCode(97 + (i % 26)));
    await Bun.sleep(100);
  }
  await Bun.sleep(1000);
  return frame.evaluate(() => { (window as any).kb.mode = "draws"; return (window as any).kb.done as number[]; });
}

const baseline = percentiles(await humanPace(true, "draws"));
const baselineFrames = percentiles(await humanPace(true, "frames"));
await page.keyboard.press("Enter");
const human = percentiles(await humanPace(false, "draws"));
await page.keyboard.press("Enter");
const humanFrames = percentiles(await humanPace(false, "frames"));

// 3. A run of "x" on a new empty line, at full speed or one key every `delayMs`.
await frame.evaluate(() => {
  const w = window as any, S = w.edState, canvas = document.getElementById("canvas") as HTMLCanvasElement, c = canvas.getContext("2d")!;
  const v = () => (canvas as any)._v ?? { x: 0, y: 0 };
  let full: any = null;
  /** The rightmost inked pixel column of the line, right of where typing started. */
  const ink = () => {
    const { start } = full, x0 = Math.floor(start.x), width = Math.min(canvas.width - x0, 1000);
    const d = c.getImageData(x0, start.y + 2, width, Math.max(1, start.h - 4)).data;
    let right = -1;
    for (let y = 0; y < start.h - 4; y++) for (let x = width - 1; x > right; x--) if (d[(y * width + x) * 4]! < 128) { right = x; break; }
    return right < 0 ? start.x : x0 + right + 1;
  };
  // The caret as shown (the #cursor element, document px) and as the engine last reported it.
  const cursorEl = document.getElementById("cursor") as HTMLElement;
  const shownX = () => (cursorEl.hidden || !cursorEl.style.left ? full.start.x : parseFloat(cursorEl.style.left) - v().x);
  const sample = () => full && full.samples.push({ t: performance.now(), keys: full.keys, caretX: S.cursor ? S.cursor.x / 15 - v().x : full.start.x, shownX: shownX(), inkX: ink() });
  const draw = c.drawImage;
  (c as any).drawImage = function (...a: any[]) { const r = (draw as any).apply(c, a); sample(); return r; };
  let cursor = S.cursor;
  Object.defineProperty(S, "cursor", { get: () => cursor, set: (r) => { cursor = r; sample(); }, configurable: true });
  new MutationObserver(sample).observe(cursorEl, { attributes: true });
  document.getElementById("ime")!.addEventListener("keydown", (e) => { if (full && e.key === "x") full.keys++; }, true);
  w.startRun = () => {
    full = w.full = { start: { x: S.cursor.x / 15 - v().x, y: Math.round(S.cursor.y / 15 - v().y), h: Math.round(S.cursor.h / 15) }, keys: 0, samples: [] };
  };
});

async function run(delayMs: number) {
  await page.keyboard.press("Enter");
  await Bun.sleep(600);
  await machineQuiet();
  await frame.evaluate(() => (window as any).startRun());
  const t0 = performance.now();
  await page.keyboard.type("x".repeat(FULL_KEYS), { delay: delayMs });
  const typedMs = performance.now() - t0;
  await Bun.sleep(1500);
  const r = await frame.evaluate(() => {
    const w = window as any, f = w.full, S = w.edState, v = (document.getElementById("canvas") as any)._v ?? { x: 0, y: 0 };
    const adv = (S.cursor.x / 15 - v.x - f.start.x) / f.keys; // one "x"'s advance, from where the caret ended
    const chars = (px: number) => Math.max(0, Math.round((px - f.start.x) / adv));
    const behindCaret = f.samples.map((s: any) => chars(s.shownX) - chars(s.inkX));
    const behindEngine = f.samples.map((s: any) => chars(s.caretX) - chars(s.inkX));
    const behindKeys = f.samples.map((s: any) => s.keys - chars(s.inkX));
    const trace = f.samples.map((s: any) => [Math.round(s.t), s.keys, chars(s.caretX), chars(s.shownX), chars(s.inkX)]);
    w.full = null;
    return { trace, adv, keys: f.keys, samples: f.samples.length, behindCaret: Math.max(...behindCaret), behindEngine: Math.max(...behindEngine), behindKeys: Math.max(...behindKeys), finalChars: chars(f.samples.at(-1).inkX) };
  });
  return { ...r, typedMs, keysPerSecond: (r.keys / typedMs) * 1000 };
}
const full = await run(0);
const fast = await run(FAST_MS);

if (process.env.BENCH_DEBUG) console.log(JSON.stringify(full.trace));
const f1 = (n: number) => n.toFixed(1);
console.log(`human pace (1 key / 100 ms, ${human.n} keys): keydown → next frame after the pixels at the caret changed p50 ${f1(human.p50)} ms, p95 ${f1(human.p95)} ms, max ${f1(human.max)} ms`);
console.log(`  baseline (the page paints the caret box itself): p50 ${f1(baseline.p50)} ms, p95 ${f1(baseline.p95)} ms; the editor adds ×${(human.p50 / baseline.p50).toFixed(1)} at p50`);
console.log(`  polled on every animation frame (the earlier method): p50 ${f1(humanFrames.p50)} ms, p95 ${f1(humanFrames.p95)} ms (baseline p50 ${f1(baselineFrames.p50)}, p95 ${f1(baselineFrames.p95)})`);
for (const [name, r] of [["full speed", full], [`one key every ${FAST_MS} ms`, fast]] as const) {
  console.log(`${name} (${r.keys} keys in ${f1(r.typedMs)} ms, ${f1(r.keysPerSecond)} keys/s): painted text at most ${r.behindCaret} characters behind the caret shown, ${r.behindEngine} behind the engine's caret, ${r.behindKeys} behind the keys pressed (${r.samples} screen changes; ${r.finalChars} characters painted at the end)`);
}

await ctx.close();
await chrome.close();
await ed.close(); // the document's exit save, then the kits stop
host.stop();
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench/out/keystroke-latest.json"),
  JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, human, baseline, humanFrames, baselineFrames, fullSpeed: { ...full, trace: undefined }, fastTypist: { ...fast, trace: undefined } }, null, 2),
);
process.exit(0);
