// How many people can edit at once on this machine (`bun run bench:capacity`, issue 24): simulated
// people (bench/capacity-person.ts: the editor page's frames over the real document WebSocket, no
// browser) join through the real Caddy with the repository Caddyfile and the gate's check (a gate
// process, `bun app/main.ts`), to the editing server in its own process (`bun app/edsrv/main.ts`)
// with its kits, and type about 3 characters a second with jitter, moving their caret now and then.
//
// Steps of 1, 5, 10, 20, 40, 80 people on one document, on ten documents (people spread evenly) and
// on one document each, each held HOLD seconds (60) after everyone joined and 3 s of warm-up. Per
// step: keystroke → updated caret tile p50/p95/p99 (see capacity-person.ts), tiles per second, CPU
// (from /proc/<pid>/stat over the hold: kits, editing server, gate, Caddy; per person), resident
// memory of the kits, the editing server and the gate at the end of the hold, errors (error:/close:
// frames, sockets closed, keys with no updated tile within 2 s, joins that failed). It prints the
// largest step per layout with p95 ≤ 50 ms and no errors, people per core against Collabora's
// published 10 users per CPU thread, then the admission step: twice that many people on ten
// documents, the first half typing while the second half joins: what the joiners got (admitted for
// editing, read-only, or refused with which status) and what the people already typing felt.
//
// Options: --hold SECONDS (60), --steps 1,5,10 (default 1,5,10,20,40,80), --layouts one,ten,each,
// --cap N (the gate's SVC_GATE_CONNECTION_CAP; by default the bench runs under an enterprise
// licence of 5000 connections, so the cap never interferes), --no-admission, --admission-at N (the
// step the admission step doubles), --kps 3 (keys a second), --no-moves (characters only, no arrow
// keys: a diagnosis knob), --letters (random letters instead of English words: every word misspelled,
// the spell checker's worst case), --on-hold COMMAND (run during each hold, e.g. a profiler; see ON_HOLD).
// Writes bench/out/capacity-<date>.json and capacity-latest.json, and docs/img/capacity.svg.
// Loopback only; every process it starts is stopped at the end (or on SIGINT/SIGTERM).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AlignmentType, Document, LineRuleType, Packer, Paragraph, TextRun } from "docx";
import { decodePrivateKey, generateKeyPair, signToken } from "../app/editions/license";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { freePort, startCaddy, type RunningCaddy } from "../caddy/testing";
import { Person, SCREEN, type JoinResult } from "./capacity-person";
import { capacityPlot } from "./capacity-plot";
import { startEdsrvProcess, type EdsrvProcess } from "./edsrv-process";
import { until } from "../app/testing/until";
import { descendants, procStat, rssMb, TICK_MS } from "./proc";

const ROOT = path.resolve(import.meta.dir, "..");

// ---- options
function opt(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}
const HOLD_S = Number(opt("hold") ?? 60);
const STEPS = (opt("steps") ?? "1,5,10,20,40,80").split(",").map(Number).filter((n) => n > 0);
const LAYOUTS = (opt("layouts") ?? "one,ten,each").split(",") as Layout[];
const CAP = opt("cap");
const KPS = Number(opt("kps") ?? 3);
const ADMISSION = !process.argv.includes("--no-admission");
/** The capacity step the admission step doubles (default: the largest good ten-document step). */
const ADMISSION_AT = opt("admission-at");
/**
 * A command run at the start of every hold (e.g. `perf record -g -p $BENCH_KIT_PIDS -o …`), with
 * BENCH_KIT_PIDS / BENCH_EDSRV_PID / BENCH_GATE_PID / BENCH_CADDY_PID and BENCH_STEP in its
 * environment; sent SIGINT when the hold ends. A profiling knob (issue 24 item 2).
 */
const ON_HOLD = opt("on-hold");
/** Without caret moves (arrow keys): only characters typed. A diagnosis knob. */
const MOVES = !process.argv.includes("--no-moves");
/** Random letters instead of words: every word misspelled, the spell checker's worst case. */
const LETTERS = process.argv.includes("--letters");
const TARGET_P95 = 50;
const KEY_DEADLINE_MS = 2000;
const COLLABORA_PER_THREAD = 10;
type Layout = "one" | "ten" | "each";
const LAYOUT_NAME: Record<Layout, string> = { one: "1 document", ten: "10 documents", each: "1 document per person" };
for (const l of LAYOUTS) if (!(l in LAYOUT_NAME)) throw new Error(`unknown layout ${l} (one, ten, each)`);
if (!Number.isFinite(HOLD_S) || HOLD_S < 1) throw new Error("--hold must be a number of seconds ≥ 1");

function memAvailableMb(): number {
  const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"));
  return m ? Number(m[1]) / 1024 : Infinity;
}

// ---- the processes
const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-capacity-"));
const host = startWopiHost();
const [gatePort, caddyPort] = [await freePort(), await freePort()];
const gateUrl = `http://127.0.0.1:${gatePort}`;
let ed: EdsrvProcess | null = null;
let gate: ReturnType<typeof Bun.spawn> | null = null;
let caddy: RunningCaddy | null = null;
const people = new Set<Person>();

let cleaning = false;
async function cleanup() {
  if (cleaning) return;
  cleaning = true;
  for (const p of people) p.close();
  await caddy?.stop().catch(() => {});
  if (gate) { gate.kill("SIGTERM"); await Promise.race([gate.exited, Bun.sleep(12_000)]); if (gate.exitCode === null) gate.kill("SIGKILL"); }
  if (ed) {
    const kits = descendants(ed.pid);
    await Promise.race([ed.close(), Bun.sleep(30_000)]);
    for (const k of kits) try { process.kill(k, "SIGKILL"); } catch { /* gone */ }
  }
  host.stop();
  rmSync(work, { recursive: true, force: true });
}
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void cleanup().then(() => process.exit(130)));
// Bounded in time whatever happens: the steps' own budget plus set-up and a margin.
const budgetMs = (STEPS.length * LAYOUTS.length + (ADMISSION ? 2 : 0)) * (HOLD_S * 1000 + 240_000) + 180_000;
const watchdog = setTimeout(() => { console.error(`bench:capacity: over its time budget (${Math.round(budgetMs / 60000)} min), stopping`); void cleanup().then(() => process.exit(3)); }, budgetMs);

// An enterprise licence signed here: the cap is the bench's --cap, not community's 50.
const keys = generateKeyPair();
const licence = signToken(
  { v: 1, prod: "svc-online", kind: "enterprise", conns: 5000, plan: "year", exp: "2099-12-31", feat: ["api_full"], key: "OOSY-BENCH-00000-00000-00000", iat: Math.floor(Date.now() / 1000) },
  decodePrivateKey(keys.privateKey),
);

/** Editing server, gate, Caddy; on any failure everything started so far is stopped. */
async function start(): Promise<string> {
  ed = await startEdsrvProcess({
    SVC_ONLINE_ALIASGROUP1: gateUrl,
    SVC_ONLINE_ALIASGROUP2: host.origin,
    SVC_EDSRV_ADMIN_PASSWORD: "bench-capacity",
    SVC_EDSRV_IDLE_KITS: "2",
    SVC_EDSRV_AUTOSAVE_SECONDS: "0",
  });
  gate = Bun.spawn([process.execPath, path.join(ROOT, "app/main.ts")], {
    env: {
      ...process.env,
      SVC_DATA_DIR: path.join(work, "gate"),
      SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
      SVC_PUBLIC_URL: `http://127.0.0.1:${caddyPort}`,
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_LOG_LEVEL: "error",
      SVC_LICENSE_PUBKEY: keys.publicKey,
      SVC_LICENSE_TOKEN: licence,
      SVC_LICENSE_FILE: path.join(work, "license.token"),
      SVC_EDSRV_URL: ed.url,
      SVC_EDSRV_ADMIN_PASSWORD: "bench-capacity",
      // The admission step measures the operator's shedding setting (off by default, outside v1).
      SVC_GATE_REFUSE_WHEN_SATURATED: ADMISSION ? "1" : "0",
      SVC_ONLINE_ALIASGROUP1: gateUrl,
      SVC_ONLINE_ALIASGROUP2: host.origin,
      SVC_DEV_MODE: "0",
      ...(CAP ? { SVC_GATE_CONNECTION_CAP: CAP } : {}),
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  // A gate that exits is not waited for the full minute.
  const started = gate;
  await until(async () => started.exitCode !== null || (await fetch(`${gateUrl}/svc/openapi.json`).then((r) => r.ok, () => false)), (done) => done, "the gate answering or exited", 60_000, 100);
  if (started.exitCode !== null) throw new Error("the gate did not start");
  caddy = await startCaddy({ app: `127.0.0.1:${gatePort}`, edsrv: new URL(ed.url).host, port: caddyPort });
  const found = /\/browser\/([^/]+)\//.exec(await fetch(`${caddy.url}/hosting/discovery`).then((r) => r.text()))?.[1];
  if (!found) throw new Error("no editor URL in the discovery through the proxy");
  return found;
}
let hash: string;
try {
  hash = await start();
} catch (e) {
  await cleanup();
  throw e;
}

// The document: 60 short lines at an exact 18 pt pitch (capacity-person.ts clicks on its own line).
const DOC = new Uint8Array(
  await Packer.toBuffer(
    new Document({
      sections: [{ children: Array.from({ length: 60 }, (_, i) => new Paragraph({ alignment: AlignmentType.LEFT, spacing: { line: 360, lineRule: LineRuleType.EXACT, before: 0, after: 0 }, children: [new TextRun({ text: `Line ${i + 1}: `, size: 22 })] })) }],
    }),
  ),
);
const LINES_ON_SCREEN = Math.floor((SCREEN.h - 1440) / 360) - 1;

// ---- one step
interface Percentiles { n: number; p50: number; p95: number; p99: number; max: number }
function pct(xs: number[]): Percentiles {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]! : NaN);
  return { n: s.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s.length ? s[s.length - 1]! : NaN };
}
interface Cpu { kits: number; edsrv: number; gate: number; caddy: number }
function cpuTicks(): { byPid: Map<number, number>; kitPids: number[] } {
  const byPid = new Map<number, number>();
  const kitPids = ed ? descendants(ed.pid) : [];
  for (const pid of [ed!.pid, gate!.pid, caddy!.pid, ...kitPids]) byPid.set(pid, procStat(pid)?.ticks ?? 0);
  return { byPid, kitPids };
}
function cpuDelta(a: ReturnType<typeof cpuTicks>, b: ReturnType<typeof cpuTicks>, ms: number): Cpu {
  const d = (pid: number) => (((b.byPid.get(pid) ?? 0) - (a.byPid.get(pid) ?? 0)) * TICK_MS) / ms; // cores
  // A kit that started during the hold counts from its start; one that ended is lost (none should).
  const kits = b.kitPids.reduce((s, p) => s + (((b.byPid.get(p) ?? 0) - (a.byPid.get(p) ?? 0)) * TICK_MS) / ms, 0);
  return { kits, edsrv: d(ed!.pid), gate: d(gate!.pid), caddy: d(caddy!.pid) };
}

interface StepResult {
  layout: Layout | "admission";
  people: number;
  documents: number;
  joined: number;
  joinMs: Percentiles;
  refused: { status?: number; detail?: string; perm?: string }[];
  readOnly: number;
  keys: number;
  /** The measured window (wall ms). */
  holdMs: number;
  latency: Percentiles;
  tilesPerSecond: number;
  tileKBPerSecond: number;
  /** Share of the tiles received that were pushed, and tilecombine requests a second. */
  pushedShare: number;
  requestsPerSecond: number;
  /** Tile frames a second by kind: unchanged (header only), delta (changed rows), whole. */
  tileKinds: { same: number; deltas: number; whole: number };
  cpuCores: Cpu & { total: number };
  cpuPerPersonPercent: number;
  rssMb: { kits: number; kitCount: number; edsrv: number; gate: number; perPersonKits: number; kitsAtJoin?: number; edsrvAtJoin?: number };
  errors: { frames: number; timeouts: number; sample: string[] };
  skipped?: string;
  phases?: Record<string, unknown>;
}

let stepSeq = 0;
let rngState = 42;
const rand = () => ((rngState = (Math.imul(rngState, 1103515245) + 12345) >>> 0) / 2 ** 32);

function makeDocs(n: number): string[] {
  const s = ++stepSeq;
  return Array.from({ length: n }, (_, j) => host.addFile(`s${s}d${j}`, "bench.docx", DOC));
}
function makePeople(n: number, docs: string[], offset = 0): Person[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    const token = `tok_cap_${stepSeq}_${i}`;
    host.addToken(token, `u${i}`, true, `Person ${i}`);
    const p = new Person(caddy!.url, hash, docs[i % docs.length]!, token, Math.floor(i / docs.length) % LINES_ON_SCREEN, rand);
    people.add(p);
    return p;
  });
}
/** Joins with at most `parallel` opens under way (each new document takes a kit that then starts another). */
async function joinAll(ps: Person[], parallel = 4): Promise<JoinResult[]> {
  const results: JoinResult[] = new Array(ps.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(parallel, ps.length) }, async () => {
    while (next < ps.length) {
      const i = next++;
      results[i] = await ps[i]!.join().catch((e) => ({ ok: false, detail: String(e), ms: 0 }));
    }
  }));
  return results;
}
/** Types for `ms` with measuring on; returns the window's CPU. */
async function measure(ps: Person[], ms: number): Promise<Cpu & { total: number; ms: number }> {
  for (const p of ps) { p.measuring = true; }
  const a = cpuTicks(), t0 = performance.now();
  const hook = ON_HOLD
    ? Bun.spawn(["sh", "-c", ON_HOLD], {
        env: { ...process.env, BENCH_KIT_PIDS: a.kitPids.join(","), BENCH_EDSRV_PID: String(ed!.pid), BENCH_GATE_PID: String(gate!.pid), BENCH_CADDY_PID: String(caddy!.pid), BENCH_STEP: `${stepSeq}-${ps.length}` },
        stdout: "inherit",
        stderr: "inherit",
      })
    : null;
  const expiry = setInterval(() => { for (const p of ps) p.expire(KEY_DEADLINE_MS); }, 250);
  await Bun.sleep(ms);
  const b = cpuTicks(), wall = performance.now() - t0;
  clearInterval(expiry);
  if (hook) { hook.kill("SIGINT"); await Promise.race([hook.exited, Bun.sleep(20_000)]); if (hook.exitCode === null) hook.kill("SIGKILL"); }
  for (const p of ps) p.measuring = false;
  const c = cpuDelta(a, b, wall);
  return { ...c, total: c.kits + c.edsrv + c.gate + c.caddy, ms: wall };
}
/** Resident memory of every kit (every process under the editing server). */
const kitsRssMb = (kitPids = descendants(ed!.pid)) => kitPids.reduce((s, p) => s + rssMb(p), 0);
/** Kits and editing server 1 s after everyone joined, before anyone typed. */
const rssAtJoin = (r: StepResult) => r.rssMb.kitsAtJoin! + r.rssMb.edsrvAtJoin!;

function summarise(layout: StepResult["layout"], ps: Person[], docs: number, joins: JoinResult[], cpu: Cpu & { total: number; ms: number }): StepResult {
  const kitPids = descendants(ed!.pid);
  const kitsMb = kitsRssMb(kitPids);
  const lat = ps.flatMap((p) => p.stats.latencies);
  const tiles = ps.reduce((s, p) => s + p.stats.tiles, 0), bytes = ps.reduce((s, p) => s + p.stats.tileBytes, 0);
  const errs = ps.flatMap((p) => p.stats.errors);
  const joined = joins.filter((j) => j.ok);
  return {
    layout,
    people: ps.length,
    documents: docs,
    joined: joined.length,
    joinMs: pct(joined.map((j) => j.ms)),
    refused: joins.filter((j) => !j.ok).map((j) => ({ status: j.status, detail: j.detail?.slice(0, 200) })),
    readOnly: joined.filter((j) => j.perm !== "edit").length,
    keys: ps.reduce((s, p) => s + p.stats.keys, 0),
    holdMs: cpu.ms,
    latency: pct(lat),
    tilesPerSecond: tiles / (cpu.ms / 1000),
    tileKBPerSecond: bytes / 1024 / (cpu.ms / 1000),
    pushedShare: ps.reduce((s, p) => s + p.stats.pushed, 0) / Math.max(1, tiles),
    requestsPerSecond: ps.reduce((s, p) => s + p.stats.requests, 0) / (cpu.ms / 1000),
    tileKinds: { same: ps.reduce((s, p) => s + p.stats.same, 0) / (cpu.ms / 1000), deltas: ps.reduce((s, p) => s + p.stats.deltas, 0) / (cpu.ms / 1000), whole: ps.reduce((s, p) => s + p.stats.whole, 0) / (cpu.ms / 1000) },
    cpuCores: { kits: cpu.kits, edsrv: cpu.edsrv, gate: cpu.gate, caddy: cpu.caddy, total: cpu.total },
    cpuPerPersonPercent: (cpu.total / Math.max(1, joined.length)) * 100,
    rssMb: { kits: kitsMb, kitCount: kitPids.length, edsrv: rssMb(ed!.pid), gate: rssMb(gate!.pid), perPersonKits: kitsMb / Math.max(1, joined.length) },
    errors: { frames: errs.length, timeouts: ps.reduce((s, p) => s + p.stats.timeouts, 0), sample: [...new Set(errs)].slice(0, 5) },
  };
}
/** Everyone leaves; until the documents are closed (only idle kits left) and the kits' exit saves are done. */
async function leave(ps: Person[]) {
  for (const p of ps) { p.close(); people.delete(p); }
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    const kits = descendants(ed!.pid).filter((p) => procStat(p)?.comm.startsWith("bun") ?? false);
    if (kits.length <= 2) break;
    await Bun.sleep(250);
  }
  // A document typed into past what one engine runs keeps working through the input people sent
  // (none of it is dropped) after they left: the next step starts once the editing server and its
  // kits are quiet (under a tenth of a core over a second), or says it did not.
  const t0 = Date.now(), quietBy = t0 + 300_000;
  const busyTicks = () => [ed!.pid, ...descendants(ed!.pid)].reduce((s, pid) => s + (procStat(pid)?.ticks ?? 0), 0);
  for (;;) {
    const before = busyTicks();
    await Bun.sleep(1000);
    if (busyTicks() - before < 0.1 * (1000 / TICK_MS)) break;
    if (Date.now() > quietBy) { console.error("  (the editing server was still busy 300 s after everyone left; the next step starts anyway)"); break; }
  }
  if (Date.now() - t0 > 5000) console.error(`  (the editing server worked ${((Date.now() - t0) / 1000).toFixed(0)} s more after everyone left: input sent before leaving)`);
  await Bun.sleep(1000);
}
const docsFor = (layout: Layout, n: number) => (layout === "one" ? 1 : layout === "ten" ? Math.min(10, n) : n);

async function runStep(layout: Layout, n: number): Promise<StepResult> {
  const nDocs = docsFor(layout, n);
  // A kit with a document open takes 150-250 MB: refuse a step the machine cannot hold.
  const needMb = nDocs * 250 + n * 10;
  if (needMb > memAvailableMb() * 0.8) {
    return { ...emptyResult(layout, n, nDocs), skipped: `needs about ${needMb} MB, ${Math.round(memAvailableMb())} MB available` };
  }
  const docs = makeDocs(nDocs);
  const ps = makePeople(n, docs);
  const joins = await joinAll(ps);
  const admitted = ps.filter((_, i) => joins[i]!.ok);
  // Memory with every view open and its first screen painted, before anyone types: what a person
  // costs as such, apart from what their typing adds to the document over the hold.
  await Bun.sleep(1000);
  const atJoin = { kits: kitsRssMb(), edsrv: rssMb(ed!.pid) };
  for (const p of admitted) p.startTyping(KPS, MOVES, LETTERS);
  await Bun.sleep(3000); // warm-up: the first keys of every view
  const cpu = await measure(admitted, HOLD_S * 1000);
  for (const p of ps) p.stop();
  await Bun.sleep(KEY_DEADLINE_MS);
  for (const p of ps) p.expire(0, KEY_DEADLINE_MS);
  const r = summarise(layout, ps, nDocs, joins, cpu);
  r.rssMb.kitsAtJoin = atJoin.kits;
  r.rssMb.edsrvAtJoin = atJoin.edsrv;
  await leave(ps);
  return r;
}
function emptyResult(layout: StepResult["layout"], n: number, docs: number): StepResult {
  const z = pct([]);
  return { layout, people: n, documents: docs, joined: 0, joinMs: z, refused: [], readOnly: 0, keys: 0, holdMs: 0, latency: z, tilesPerSecond: 0, tileKBPerSecond: 0, pushedShare: 0, requestsPerSecond: 0, tileKinds: { same: 0, deltas: 0, whole: 0 }, cpuCores: { kits: 0, edsrv: 0, gate: 0, caddy: 0, total: 0 }, cpuPerPersonPercent: 0, rssMb: { kits: 0, kitCount: 0, edsrv: 0, gate: 0, perPersonKits: 0 }, errors: { frames: 0, timeouts: 0, sample: [] } };
}

/**
 * Admission under load: `cap` people on ten documents type for half the hold; then `cap` more join
 * while they type, and everyone admitted types for the other half. What the joiners got, and the
 * first group's latency before and after.
 */
async function runAdmission(cap: number): Promise<StepResult> {
  const n = 2 * cap, nDocs = docsFor("ten", n);
  const docs = makeDocs(nDocs);
  const first = makePeople(cap, docs);
  const firstJoins = await joinAll(first);
  const a = first.filter((_, i) => firstJoins[i]!.ok);
  for (const p of a) p.startTyping(KPS, MOVES, LETTERS);
  await Bun.sleep(3000);
  const half = Math.max(5, Math.round(HOLD_S / 2)) * 1000;
  const cpuBefore = await measure(a, half);
  const before = pct(a.flatMap((p) => p.stats.latencies));
  const beforeTimeouts = a.reduce((s, p) => s + p.stats.timeouts, 0);
  for (const p of a) p.resetStats();
  // The joiners, while the first group types: the first group's keys during the joins are measured too.
  for (const p of a) p.measuring = true;
  const tj = performance.now();
  const second = makePeople(cap, docs, cap);
  const secondJoins = await joinAll(second);
  const joinWindowMs = performance.now() - tj;
  for (const p of a) { p.expire(KEY_DEADLINE_MS); p.measuring = false; }
  const during = pct(a.flatMap((p) => p.stats.latencies));
  for (const p of a) p.resetStats();
  const b = second.filter((_, i) => secondJoins[i]!.ok);
  for (const p of b) p.startTyping(KPS, MOVES, LETTERS);
  await Bun.sleep(3000);
  const all = [...a, ...b];
  const cpuAfter = await measure(all, half);
  for (const p of all) p.stop();
  await Bun.sleep(KEY_DEADLINE_MS);
  for (const p of all) p.expire(0, KEY_DEADLINE_MS);
  const r = summarise("admission", [...first, ...second], nDocs, [...firstJoins, ...secondJoins], cpuAfter);
  const outcome = (j: JoinResult) => (j.ok ? `admitted ${j.perm}` : `refused ${j.status ?? ""} ${(j.detail ?? "").replace(/\s+/g, " ").slice(0, 120)}`.trim());
  const tally: Record<string, number> = {};
  for (const j of secondJoins) tally[outcome(j)] = (tally[outcome(j)] ?? 0) + 1;
  r.phases = {
    capacityStep: cap,
    before: { latency: before, timeouts: beforeTimeouts, cpuCores: cpuBefore.total },
    duringJoins: { latency: during, ms: joinWindowMs },
    after: { firstGroup: pct(a.flatMap((p) => p.stats.latencies)), newGroup: pct(b.flatMap((p) => p.stats.latencies)), cpuCores: cpuAfter.total },
    joiners: tally,
    joinMs: pct(secondJoins.filter((j) => j.ok).map((j) => j.ms)),
  };
  await leave([...first, ...second]);
  return r;
}

// ---- the run
const cores = os.availableParallelism();
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "–");
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "–");
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim() || "unknown";
const [load1] = os.loadavg();
console.log(`svc capacity benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${cores}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, bun ${Bun.version}, commit ${commit}, load average ${f1(load1!)}`);
console.log(`hold ${HOLD_S} s per step, ${KPS} keys/s per person (${LETTERS ? "random letters" : "English words"}), through Caddy + gate check; steps ${STEPS.join(", ")} on ${LAYOUTS.map((l) => LAYOUT_NAME[l]).join(", ")}\n`);
console.log("| layout | people | docs | joined | keys | key → tile p50 / p95 / p99 ms | tiles/s | CPU cores (kits+edsrv+gate+caddy) | CPU per person | RSS kits / edsrv / gate MB | errors |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
const results: StepResult[] = [];
const row = (r: StepResult) => {
  if (r.skipped) return console.log(`| ${r.layout} | ${r.people} | ${r.documents} | skipped: ${r.skipped} |`);
  const c = r.cpuCores;
  console.log(
    `| ${r.layout === "admission" ? "admission" : LAYOUT_NAME[r.layout]} | ${r.people} | ${r.documents} | ${r.joined}${r.readOnly ? ` (${r.readOnly} read-only)` : ""} | ${r.keys} | ${f1(r.latency.p50)} / ${f1(r.latency.p95)} / ${f1(r.latency.p99)} | ${f0(r.tilesPerSecond)} (${f0(r.tileKinds.same)} same, ${f0(r.tileKinds.deltas)} delta, ${f0(r.tileKinds.whole)} whole; ${f0(r.pushedShare * 100)} % pushed) | ${c.total.toFixed(2)} (${c.kits.toFixed(2)}+${c.edsrv.toFixed(2)}+${c.gate.toFixed(2)}+${c.caddy.toFixed(2)}) | ${f1(r.cpuPerPersonPercent)} % | ${f0(r.rssMb.kits)} (${r.rssMb.kitCount} kits) / ${f0(r.rssMb.edsrv)} / ${f0(r.rssMb.gate)} | ${r.errors.frames + r.errors.timeouts + r.refused.length}${r.errors.timeouts ? ` (${r.errors.timeouts} keys without tile)` : ""} |`,
  );
};
try {
  for (const layout of LAYOUTS) {
    for (const n of STEPS) {
      const r = await runStep(layout, n);
      results.push(r);
      row(r);
    }
  }
  // Keys without a tile are in the latencies at the 2 s deadline, so they weigh on p95 as they should.
  const good = (r: StepResult) => !r.skipped && r.joined === r.people && r.latency.n > 0 && r.latency.p95 <= TARGET_P95 && r.errors.frames === 0;
  const capacity: Record<string, number> = {};
  console.log("");
  for (const layout of LAYOUTS) {
    const ok = results.filter((r) => r.layout === layout && good(r)).map((r) => r.people);
    const best = ok.length ? Math.max(...ok) : 0;
    capacity[layout] = best;
    console.log(`${LAYOUT_NAME[layout]}: largest step with keystroke → tile p95 ≤ ${TARGET_P95} ms, everyone admitted, no error frame: ${best || "none"} people = ${f1(best / cores)} per core, ${f1(best / cores / COLLABORA_PER_THREAD)}× Collabora's ${COLLABORA_PER_THREAD} per CPU thread`);
  }
  // Memory a person costs: between consecutive steps of a layout, the kits' and editing server's
  // growth at join (views open, first screens painted) per added person; and over each hold, what
  // a minute of one person's typing added (the text, its layout, undo).
  console.log("");
  for (const layout of LAYOUTS) {
    const steps = results.filter((r) => r.layout === layout && !r.skipped && r.rssMb.kitsAtJoin !== undefined);
    const perView: string[] = [], perMinute: string[] = [];
    for (let i = 0; i < steps.length; i++) {
      const r = steps[i]!, q = steps[i - 1];
      if (q && q.documents === r.documents) perView.push(`${q.people}→${r.people}: ${f1((rssAtJoin(r) - rssAtJoin(q)) / (r.people - q.people))}`);
      perMinute.push(`${r.people}: ${f1((r.rssMb.kits + r.rssMb.edsrv - rssAtJoin(r)) / r.joined / (r.holdMs / 60_000))}`);
    }
    // The slope over every step with the same documents open (least squares): one pair of steps
    // moves by a megabyte a person with when the collector last ran.
    const same = steps.filter((r) => r.documents === steps[steps.length - 1]?.documents);
    let fit = "";
    if (same.length >= 3) {
      const xs = same.map((r) => r.people), ys = same.map(rssAtJoin);
      const mx = xs.reduce((a, b) => a + b, 0) / xs.length, my = ys.reduce((a, b) => a + b, 0) / ys.length;
      const slope = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
      fit = ` (fit over ${xs.join(", ")} people: ${f1(slope)})`;
    }
    console.log(`${LAYOUT_NAME[layout]}: memory per added person at join (kits + editing server, MB): ${perView.join(", ") || "–"}${fit}; added by a minute of one person's typing: ${perMinute.join(", ")}`);
  }
  let admission: StepResult | null = null;
  if (ADMISSION) {
    const cap = ADMISSION_AT ? Number(ADMISSION_AT) : Math.max(1, capacity.ten ?? capacity[LAYOUTS[0]!] ?? 1);
    admission = await runAdmission(cap);
    results.push(admission);
    console.log(`\nadmission at 2× the capacity step (${cap} people typing on ${admission.documents} documents, ${cap} more joining):`);
    row(admission);
    const ph = admission.phases as any;
    console.log(`  joiners got: ${Object.entries(ph.joiners).map(([k, v]) => `${v} × ${k}`).join("; ")}`);
    console.log(`  the first ${cap}: key → tile p95 ${f1(ph.before.latency.p95)} ms before, ${f1(ph.duringJoins.latency.p95)} ms while the others joined (${f1(ph.duringJoins.ms / 1000)} s), ${f1(ph.after.firstGroup.p95)} ms after (the newcomers ${f1(ph.after.newGroup.p95)} ms)`);
  }
  const out = { date: new Date().toISOString(), commit, machine: { cpu: os.cpus()[0]?.model, cores, memGiB: Math.round(os.totalmem() / 2 ** 30), loadAverageAtStart: load1 }, options: { moves: MOVES, letters: LETTERS, holdSeconds: HOLD_S, steps: STEPS, layouts: LAYOUTS, keysPerSecond: KPS, cap: CAP ?? null, targetP95Ms: TARGET_P95 }, capacity, peoplePerCore: Object.fromEntries(Object.entries(capacity).map(([k, v]) => [k, v / cores])), results };
  mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
  const json = JSON.stringify(out, null, 2);
  writeFileSync(path.join(ROOT, `bench/out/capacity-${out.date.replace(/[:.]/g, "-")}.json`), json);
  writeFileSync(path.join(ROOT, "bench/out/capacity-latest.json"), json);
  mkdirSync(path.join(ROOT, "docs/img"), { recursive: true });
  writeFileSync(path.join(ROOT, "docs/img/capacity.svg"), capacityPlot(results.filter((r) => r.layout !== "admission" && !r.skipped), { date: out.date, commit, cores, targetMs: TARGET_P95, names: LAYOUT_NAME }));
  console.log("\nwrote bench/out/capacity-latest.json and docs/img/capacity.svg");
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
process.exit(0);
