// Durability figures (`bun run bench:recovery`), over the real editing server and kits with a
// loopback WOPI host, protocol clients standing in for pages (no browser: the figures are the
// server's):
//
// 1. Kit SIGKILL with unsaved typing, 1-page document (fixtures/hello.docx): from the kill until
//    the page, reconnecting 250 ms after its socket closed (as ed.js does), has its view back and a
//    typed key has reached the engine ("types again"), and until the host holds a version with the
//    text typed before the kill. Baseline in the same run: a fresh open of the same document
//    (socket to status) and a cold one (the kit started for it).
// 2. The same on the 872-page handbook (BENCH_LONG_DOC), fewer runs.
// 3. Graceful stop of the editing server with 20 modified documents (SIGTERM, its own process):
//    seconds until it exits, and how many of the 20 the host holds.
// Knobs: BENCH_RUNS (10), BENCH_LONG_RUNS (3), BENCH_STOP_DOCS (20). Loopback only, bounded, stops by itself.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../caddy/testing";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { createEdsrv } from "../app/edsrv/server";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { TestSocket, docWsUrl } from "../app/edsrv/testing/ws-client";
import { docxText } from "../app/testing/office-files";
import { waitFor } from "../app/testing/until";
import { machineQuiet, percentiles } from "./measure";

const ROOT = path.resolve(import.meta.dir, "..");
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const LONG_RUNS = Math.max(1, Number(process.env.BENCH_LONG_RUNS ?? 3));
const STOP_DOCS = Number(process.env.BENCH_STOP_DOCS ?? 20);
const LONG_DOC = process.env.BENCH_LONG_DOC ?? path.resolve(ROOT, "../shared/corpus/docx/unstructured_handbook_872p.docx");
const HELLO = readFileSync(path.join(ROOT, "fixtures/hello.docx"));

const host = startWopiHost();
host.addToken("tok_bench", "u1", true, "Bench");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-recovery-"));
const ed = await createEdsrv({
  config: parseConfig({ SVC_DATA_DIR: dataDir, SVC_ONLINE_ALIASGROUP1: host.origin, SVC_ENGINE_PROGRAM_DIR: process.env.SVC_ENGINE_PROGRAM_DIR }),
  logger: memoryLogger("warn"),
  listen: { hostname: "127.0.0.1", port: 0 },
  idleKits: 2,
  autosaveSeconds: 0,
  idleSaveSeconds: 0,
});
const origin = `http://${new URL(ed.url).host}`;

async function open(src: string): Promise<TestSocket> {
  const s = new TestSocket(docWsUrl(ed.url, src, "tok_bench"), origin);
  await s.opened;
  s.send(`load url=${encodeURIComponent(src)}`);
  await s.waitText("status:");
  return s;
}
const idle = (n: number) => waitFor(() => (ed.pool as unknown as { idle: { pid: number }[] }).idle.filter((k) => k.pid !== 0).length >= n, `${n} idle kits started`, 120_000);

let seq = 0;
const debug = (m: string) => process.env.BENCH_DEBUG && console.log(`${new Date().toISOString().slice(11, 23)} ${m}`);
async function crashRun(bytes: Uint8Array, name: string) {
  const id = `r${++seq}`;
  const src = host.addFile(id, name, bytes);
  debug("waiting for idle kits");
  await idle(2); // a kit is free for the recovery, as on a machine that is not at its limit
  await machineQuiet();
  const t0 = performance.now();
  const page = await open(src);
  const openMs = performance.now() - t0;
  const typed = `Typed before the crash ${seq} `;
  page.send(`textinput text=${encodeURIComponent(typed)}`);
  await page.waitText("statechanged: .uno:ModifiedStatus=true");
  await Bun.sleep(300);
  debug("typed; killing the kit");
  const broker = [...ed.brokers.values()].find((b) => b.wopiSrc === src)!;
  const killedAt = performance.now();
  process.kill(broker.pid, "SIGKILL");
  const stored = host.waitPut((p) => p.fileId === id && p.status === 200).then(() => performance.now() - killedAt);
  await page.whenClosed();
  await Bun.sleep(250); // the page's first reconnect
  debug("reconnecting");
  const back = await open(src);
  debug("view back");
  // As a page does: its first screen is painted (a view that painted nothing hears of no invalidation),
  // then the key, until the engine reports what it changed.
  back.send("tilecombine part=0 width=256 height=256 tileposx=0 tileposy=0 tilewidth=3840 tileheight=3840");
  await back.wait((f) => typeof f !== "string");
  const n = back.frames.length;
  back.send("textinput text=x");
  await back.waitText("invalidatetiles:", n);
  const typesAgainMs = performance.now() - killedAt;
  debug("typed again");
  const storedMs = await Promise.race([stored, Bun.sleep(60_000).then(() => NaN)]);
  const put = host.puts.filter((p) => p.fileId === id && p.status === 200)[0];
  debug("stored");
  back.close();
  await waitFor(() => ![...ed.brokers.values()].some((b) => b.wopiSrc === src), "the crashed document closed", 30_000);
  const kept = !!put && docxText(put.bytes).includes(typed.trim());
  return { openMs, typesAgainMs, storedMs, kept };
}

function report(label: string, runs: Awaited<ReturnType<typeof crashRun>>[]) {
  const p = (xs: number[]) => percentiles(xs.filter(Number.isFinite));
  const open = p(runs.map((r) => r.openMs)), again = p(runs.map((r) => r.typesAgainMs)), stored = p(runs.map((r) => r.storedMs));
  console.log(`\n${label} (${runs.length} runs)`);
  console.log(`  fresh open (baseline)          p50 ${open.p50.toFixed(0)} ms  p95 ${open.p95.toFixed(0)} ms`);
  console.log(`  kill → types again             p50 ${again.p50.toFixed(0)} ms  p95 ${again.p95.toFixed(0)} ms  (${(again.p50 / open.p50).toFixed(1)}× a fresh open)`);
  console.log(`  kill → host holds the version  p50 ${stored.p50.toFixed(0)} ms  p95 ${stored.p95.toFixed(0)} ms`);
  console.log(`  versions with the typed text   ${runs.filter((r) => r.kept).length} of ${runs.length}`);
  return { open, again, stored };
}

const small = [];
for (let i = 0; i < RUNS; i++) small.push(await crashRun(HELLO, "hello.docx"));
const smallFig = report("Kit SIGKILL, hello.docx", small);
const long = [];
for (let i = 0; i < LONG_RUNS; i++) long.push(await crashRun(readFileSync(LONG_DOC), "handbook.docx"));
const longFig = report(`Kit SIGKILL, ${path.basename(LONG_DOC)}`, long);
await ed.close();

// 3. Graceful stop of the editing server, its own process, with STOP_DOCS modified documents.
const stopDir = mkdtempSync(path.join(os.tmpdir(), "bench-stop-"));
const port = await freePort();
const proc = Bun.spawn([process.execPath, path.join(ROOT, "app/edsrv/main.ts")], {
  env: { ...process.env, SVC_DATA_DIR: stopDir, SVC_EDSRV_LISTEN: `127.0.0.1:${port}`, SVC_ONLINE_ALIASGROUP1: host.origin, SVC_EDSRV_IDLE_KITS: "2", SVC_EDSRV_AUTOSAVE_SECONDS: "0", SVC_EDSRV_IDLE_SAVE_SECONDS: "0", SVC_LOG_LEVEL: "warn" },
  stdout: "ignore",
  stderr: "inherit",
});
const stopUrl = `http://127.0.0.1:${port}`;
for (let i = 0; i < 600; i++) {
  if (await fetch(`${stopUrl}/hosting/capabilities`).then((r) => r.ok, () => false)) break;
  await Bun.sleep(100);
}
const stopIds: string[] = [];
for (let i = 0; i < STOP_DOCS; i++) {
  const id = `s${i}`;
  stopIds.push(id);
  const src = host.addFile(id, `${id}.docx`, HELLO);
  const s = new TestSocket(docWsUrl(stopUrl, src, "tok_bench"), stopUrl);
  await s.opened;
  s.send(`load url=${encodeURIComponent(src)}`);
  await s.waitText("status:");
  s.send(`textinput text=${encodeURIComponent(`Unsaved ${id} `)}`);
  await s.waitText("statechanged: .uno:ModifiedStatus=true");
}
await machineQuiet();
const s0 = performance.now();
proc.kill("SIGTERM");
const code = await proc.exited;
const stopMs = performance.now() - s0;
const held = stopIds.filter((id) => host.puts.some((p) => p.fileId === id && p.status === 200)).length;
console.log(`\nGraceful stop (SIGTERM) with ${STOP_DOCS} modified documents: exited (code ${code}) after ${(stopMs / 1000).toFixed(2)} s; the host holds ${held} of ${STOP_DOCS}`);

host.stop();
rmSync(dataDir, { recursive: true, force: true });
rmSync(stopDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    small: { open_p50: smallFig.open.p50, again_p50: smallFig.again.p50, again_p95: smallFig.again.p95, stored_p50: smallFig.stored.p50, stored_p95: smallFig.stored.p95 },
    long: { open_p50: longFig.open.p50, again_p50: longFig.again.p50, stored_p50: longFig.stored.p50 },
    stop: { docs: STOP_DOCS, ms: Math.round(stopMs), held },
  }),
);
process.exit(0);
