// DocBuilder conversion benchmark (`bun run bench`). One run measures, on the same small docx,
// xlsx and pptx to PDF:
//   1. `soffice --headless --convert-to pdf`, a new process per file (cold): the baseline;
//   2. the raw engine in this process, load + save + close: the floor (in turn with 3, one each);
//   3. POST /v1/convert end to end over HTTP on loopback (1 worker), the service a process of its
//      own as in production (its CPU measured apart from this bench's client);
//   4. a batch through 1 worker and through N workers, for throughput;
// and each worker's resident memory. It prints ratios against the baseline and the floor and
// writes bench/out/latest.json. Results go to docs/benchmarks.md by hand, with date and machine.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { BENCH_API_KEY as KEY, startBenchServiceProcess } from "./service";
import { LokOffice, engineProgramDir, fileUrl } from "../workers/lok";
import { LOAD_OPTIONS, writeProfileConfig } from "../workers/profile";
import { until } from "../app/testing/until";
import { cmdlineOf, cpuMs, descendants, rssMb } from "./proc";

const ROOT = path.resolve(import.meta.dir, "..");
const FILES = ["hello.docx", "hello.xlsx", "hello.pptx"].map((f) => path.join(ROOT, "fixtures", f));
const REPS = Number(process.env.BENCH_REPS ?? 20);
const COLD_REPS = Number(process.env.BENCH_COLD_REPS ?? 3);
const BATCH = Number(process.env.BENCH_BATCH ?? 60);
const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: q(0.5), p95: q(0.95), n: xs.length };
};
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const line = (s: string) => console.log(s);

async function coldSoffice(file: string): Promise<number[]> {
  const profile = path.join(work, "soffice-profile");
  const out = path.join(work, "soffice-out");
  mkdirSync(out, { recursive: true });
  // One untimed run creates the profile, so every timed run is a cold process on an existing profile.
  await execa(path.join(engineProgramDir(), "soffice"), [`-env:UserInstallation=${fileUrl(profile)}`, "--headless", "--convert-to", "pdf", "--outdir", out, file]);
  const times: number[] = [];
  for (let i = 0; i < COLD_REPS; i++) {
    const t = performance.now();
    await execa(path.join(engineProgramDir(), "soffice"), [`-env:UserInstallation=${fileUrl(profile)}`, "--headless", "--convert-to", "pdf", "--outdir", out, file]);
    times.push(performance.now() - t);
  }
  return times;
}

/** The raw engine in this process: one conversion of `file` timed, load + save + close. */
function rawEngine(): (file: string) => number {
  const profile = path.join(work, "raw-profile");
  mkdirSync(profile, { recursive: true });
  writeProfileConfig(profile);
  const office = new LokOffice(fileUrl(profile), engineProgramDir());
  const dir = path.join(work, "raw");
  mkdirSync(dir, { recursive: true });
  return (file) => {
    // The same work a worker does per job: a private copy, load, save, close.
    const input = path.join(dir, path.basename(file));
    copyFileSync(file, input);
    const t = performance.now();
    const doc = office.documentLoad(fileUrl(input), LOAD_OPTIONS);
    if (!doc) throw new Error(`load failed: ${file}`);
    doc.saveAs(fileUrl(path.join(dir, "out.pdf")), "pdf", "");
    doc.destroy();
    return performance.now() - t;
  };
}

async function convertOverHttp(base: string, file: string): Promise<number> {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([readFileSync(file)]), path.basename(file));
  const t = performance.now();
  const res = await fetch(`${base}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: fd });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`convert ${file}: ${res.status}`);
  return performance.now() - t;
}

interface BatchResult {
  filesPerSecond: number;
  /** CPU per file in the workers, in the service process and in this process (the HTTP client). */
  workerCpuMsPerFile: number;
  serviceCpuMsPerFile: number;
  mainCpuMsPerFile: number;
  /** Busy cores on average during the batch (workers + service + this process). */
  coresBusy: number;
}

/** The service's DocBuilder workers: its descendants running workers/worker-main.ts. */
const workersOf = (pid: number) => descendants(pid).filter((p) => cmdlineOf(p).includes("worker-main"));

/**
 * The service as it runs in production, a process of its own (`bun app/main.ts`): its thread is
 * not shared with this bench's HTTP client or its floor engine, and its CPU is measured apart.
 */
async function withService<T>(workers: number, fn: (base: string, pids: () => number[], servicePid: number) => Promise<T>): Promise<T> {
  const svc = await startBenchServiceProcess(path.join(work, `svc-${workers}`), workers);
  try {
    await until(() => workersOf(svc.pid).length, (n) => n >= workers, "the service's workers", 60_000, 50);
    return await fn(svc.url, () => workersOf(svc.pid), svc.pid);
  } finally {
    await svc.stop();
  }
}

/** Converts BATCH files (the three fixtures in turn) keeping `concurrency` requests in flight. */
async function batch(base: string, concurrency: number, pids: number[], servicePid: number): Promise<BatchResult> {
  let next = 0;
  const workersBefore = pids.reduce((a, p) => a + cpuMs(p), 0);
  const serviceBefore = cpuMs(servicePid);
  const mainBefore = process.cpuUsage();
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < BATCH) {
        const file = FILES[next++ % FILES.length]!;
        await convertOverHttp(base, file);
      }
    }),
  );
  const wallMs = performance.now() - t;
  const workerCpu = pids.reduce((a, p) => a + cpuMs(p), 0) - workersBefore;
  const serviceCpu = cpuMs(servicePid) - serviceBefore;
  const main = process.cpuUsage(mainBefore);
  const mainCpu = (main.user + main.system) / 1000;
  return {
    filesPerSecond: BATCH / (wallMs / 1000),
    workerCpuMsPerFile: workerCpu / BATCH,
    serviceCpuMsPerFile: serviceCpu / BATCH,
    mainCpuMsPerFile: mainCpu / BATCH,
    coresBusy: (workerCpu + serviceCpu + mainCpu) / wallMs,
  };
}

const cores = os.availableParallelism();
const nWorkers = Math.min(cores, 4);
line(`svc DocBuilder benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${cores}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, bun ${Bun.version}`);
line(`reps: ${REPS} warm, ${COLD_REPS} cold, batch ${BATCH} files\n`);

const cold: Record<string, number[]> = {};
for (const f of FILES) cold[path.basename(f)] = await coldSoffice(f);
const floorOnce = rawEngine();

// The floor and the service in turn, one conversion each: both see the machine as it is at that
// moment (its speed drifts by a fifth within minutes, which measuring one after the other put in
// the ratio).
const raw: Record<string, number[]> = {};
const e2e: Record<string, number[]> = {};
let single!: BatchResult;
let rss1: number[] = [];
await withService(1, async (base, pids, servicePid) => {
  for (const f of FILES) {
    for (let i = 0; i < 3; i++) {
      floorOnce(f);
      await convertOverHttp(base, f);
    }
    const name = path.basename(f);
    raw[name] = [];
    e2e[name] = [];
    for (let i = 0; i < REPS; i++) {
      raw[name].push(floorOnce(f));
      e2e[name].push(await convertOverHttp(base, f));
    }
  }
  single = await batch(base, 2, pids(), servicePid);
  rss1 = pids().map(rssMb);
});

let multi!: BatchResult;
let rssN: number[] = [];
await withService(nWorkers, async (base, pids, servicePid) => {
  for (const f of FILES) for (let i = 0; i < 2 * nWorkers; i++) await convertOverHttp(base, f);
  multi = await batch(base, nWorkers * 2, pids(), servicePid);
  rssN = pids().map(rssMb);
});

line("| file | soffice cold (mean) | engine floor (mean) | HTTP end to end (mean / p95) | e2e ÷ floor | soffice ÷ e2e |");
line("|---|---|---|---|---|---|");
const rows: Record<string, unknown>[] = [];
for (const f of FILES.map((x) => path.basename(x))) {
  const c = stats(cold[f]!);
  const r = stats(raw[f]!);
  const e = stats(e2e[f]!);
  rows.push({ file: f, cold: c, floor: r, e2e: e, e2e_over_floor: e.mean / r.mean, cold_over_e2e: c.mean / e.mean });
  line(`| ${f} | ${fmt(c.mean)} | ${fmt(r.mean)} | ${fmt(e.mean)} / ${fmt(e.p95)} | ${(e.mean / r.mean).toFixed(2)}× | ${(c.mean / e.mean).toFixed(1)}× |`);
}
// Issue 47: two workers at least 1.85× one on this mix (0.925 of a core's share each).
const target = 0.925 * Math.min(nWorkers, cores) * single.filesPerSecond;
const ratio = multi.filesPerSecond / single.filesPerSecond;
line(`\nthroughput, 1 worker: ${single.filesPerSecond.toFixed(2)} files/s; ${nWorkers} workers: ${multi.filesPerSecond.toFixed(2)} files/s = ${ratio.toFixed(2)}× (target ≥ ${(target / single.filesPerSecond).toFixed(2)}×: ${multi.filesPerSecond >= target ? "met" : "NOT met"})`);
for (const [name, b] of [["1 worker", single], [`${nWorkers} workers`, multi]] as const) {
  line(`  ${name}: CPU per file ${b.workerCpuMsPerFile.toFixed(1)} ms in workers + ${b.serviceCpuMsPerFile.toFixed(1)} ms in the service + ${b.mainCpuMsPerFile.toFixed(1)} ms in the client; ${b.coresBusy.toFixed(2)} cores busy on average`);
}
line(`worker resident memory after the batch: 1 worker ${rss1.map((m) => m.toFixed(0) + " MB").join(", ")}; ${nWorkers} workers ${rssN.map((m) => m.toFixed(0) + " MB").join(", ")}`);

mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench/out/latest.json"),
  JSON.stringify({ date: new Date().toISOString(), cores, rows, throughput: { single, multi, workers: nWorkers, target }, rss: { single: rss1, multi: rssN } }, null, 2),
);
rmSync(work, { recursive: true, force: true });
process.exit(0);
