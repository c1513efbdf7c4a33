// Conversions at the engine's floor on every corpus file (`bun run bench:corpus`, issue 24 item 4).
// For each readable file of ../shared/corpus (encrypted, empty and corrupt ones left out), in one run:
//   - the floor: LibreOfficeKit's load + save + close of a private copy, in a process of its own
//     started as a DocBuilder worker is (bench/corpus-floor-engine.ts: same engine start, profile,
//     confinement), so that the floor and the worker differ only in what the service adds;
//   - end to end: POST /v1/convert over HTTP on loopback to the service in its own process
//     (`bun app/main.ts`, as in production), one worker (enterprise: no rate limit);
// to PDF (large files to txt / csv / odp, as the corpus test does), after one warm-up of each,
// BENCH_CORPUS_REPS pairs of runs, a floor run and an end-to-end run in turn, so that both see the
// machine in the same state and the two engines convert the same files in the same order; the
// ratio of medians end to end ÷ floor per file (means are in the JSON too), and end to end ÷ the
// floor's load + save alone (the service answers once the output is saved and closes the document
// after the answer, so that is the least an answer can take). Files past
// BENCH_CORPUS_MAX_MS on the floor are measured in three pairs, files under
// BENCH_CORPUS_SHORT_MS in BENCH_CORPUS_SHORT_REPS.
// Writes bench/out/corpus-floor-latest.json.
// Knobs: BENCH_CORPUS_REPS (7), BENCH_CORPUS_FILTER (substrings of the path, comma-separated),
// BENCH_CORPUS_MAX_MS (3000), BENCH_CORPUS_SHORT_MS (300), BENCH_CORPUS_SHORT_REPS (15),
// BENCH_CORPUS_RAW=1 (print every run's milliseconds).

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { execa } from "execa";
import { BENCH_API_KEY as KEY, startBenchServiceProcess } from "./service";
import { percentiles } from "./measure";
import { formatOf } from "../workers/formats";
import { parseConfig } from "../app/config";

const ROOT = path.resolve(import.meta.dir, "..");
const CORPUS = path.resolve(ROOT, "../shared/corpus");
const REPS = Number(process.env.BENCH_CORPUS_REPS ?? 7);
const FILTERS = (process.env.BENCH_CORPUS_FILTER ?? "").split(",");
const MAX_MS = Number(process.env.BENCH_CORPUS_MAX_MS ?? 3000);
/** Pairs for a file past MAX_MS: three, as one run of a 4-second file moved by 15 % from run to run. */
const LONG_REPS = Math.min(REPS, 3);
/**
 * Pairs for a file under SHORT_MS: a small file's single runs spread by ±15 % on 2 cores (a
 * one-page docx: 48–97 ms in one run of 15), so 7 pairs put a different one of them past 1.10× in
 * each run (1.11–1.14×, each within 1.00× when measured again with 15 pairs); they cost little.
 */
const SHORT_MS = Number(process.env.BENCH_CORPUS_SHORT_MS ?? 300);
const SHORT_REPS = Math.max(REPS, Number(process.env.BENCH_CORPUS_SHORT_REPS ?? 15));
const work = mkdtempSync(path.join(os.tmpdir(), "svc-corpus-bench-"));

interface Entry { rel: string; format: string; bytes: number; notes: string }
const entries: Entry[] = readFileSync(path.join(CORPUS, "MANIFEST.tsv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((l) => l.split("\t"))
  .map((c) => ({ rel: c[0]!, format: c[1]!, bytes: Number(c[2]), notes: (c[8] ?? "").toLowerCase() }))
  .filter((e) => e.bytes > 1 && !/^(encrypted|corrupt|mislabeled)/.test(e.notes) && !e.notes.includes("0 bytes") && formatOf(e.format))
  .filter((e) => FILTERS.some((f) => e.rel.includes(f)));

/** The corpus test's target: PDF, or a cheaper format for large files. */
function targetOf(e: Entry): string {
  const family = formatOf(e.format)!.family;
  const large = e.bytes > 1_000_000 || /many pages|large|300 worksheets/.test(e.notes);
  if (family === "text") return large ? "txt" : "pdf";
  if (family === "spreadsheet") return large ? "csv" : "pdf";
  return large ? "odp" : "pdf";
}

type FloorReply = { ms?: number; savedMs?: number; error?: string; ready?: boolean };
/** One floor run: load + save + close, and load + save alone. */
type FloorRun = { ms: number; savedMs: number };

/**
 * The floor engine's process: one request at a time, its reply the engine's milliseconds. It is
 * replaced after as many requests as a worker is (SVC_DOCBUILDER_WORKER_MAX_JOBS' default): an
 * engine gets slower over hundreds of documents, and without this the floor of the run's later
 * files was up to 1.6× a freshly recycled worker's time.
 */
async function startFloorEngine(maxJobs: number): Promise<{ once: (e: Entry) => Promise<FloorRun>; stop: () => void }> {
  const dir = path.join(work, "floor");
  const profile = path.join(work, "floor-profile");
  mkdirSync(dir, { recursive: true });
  mkdirSync(profile, { recursive: true });
  let child: ReturnType<typeof execa>;
  let replies: ((r: FloorReply) => void)[] = [];
  let jobs = 0;
  const next = () => new Promise<FloorReply>((resolve) => replies.push(resolve));
  const start = async () => {
    replies = [];
    child = execa(process.execPath, [path.join(import.meta.dir, "corpus-floor-engine.ts")], {
      stdio: ["pipe", "ignore", "ignore", "pipe"],
      env: { FLOOR_PROFILE_DIR: profile, SVC_ENGINE_READABLE: dir },
      extendEnv: true,
      cwd: profile,
      reject: false,
      buffer: false,
    });
    createInterface({ input: child.stdio[3] as Readable }).on("line", (l) => replies.shift()?.(JSON.parse(l)));
    await next();
    jobs = 0;
  };
  await start();
  return {
    once: async (e) => {
      if (jobs >= maxJobs) {
        child.kill("SIGKILL");
        await start();
      }
      const input = path.join(dir, path.basename(e.rel).replace(/[^A-Za-z0-9._-]/g, "_"));
      copyFileSync(path.join(CORPUS, e.rel), input);
      const reply = next();
      (child.stdio[0] as Writable).write(JSON.stringify({ input, output: path.join(dir, `out.${targetOf(e)}`), to: targetOf(e) }) + "\n");
      const r = await reply;
      if (r.ms === undefined || r.savedMs === undefined) throw new Error(r.error ?? "no reply");
      jobs++; // as the worker counts: a file the floor cannot load never reaches the service
      return { ms: r.ms, savedMs: r.savedMs };
    },
    stop: () => child.kill("SIGKILL"),
  };
}

async function endToEndOnce(base: string, e: Entry, bytes: Blob): Promise<number> {
  const fd = new FormData();
  fd.append("to", targetOf(e));
  fd.append("file", bytes, path.basename(e.rel));
  const t = performance.now();
  const res = await fetch(`${base}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: fd });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${e.rel}: ${res.status}`);
  return performance.now() - t;
}

console.log(`svc corpus floor benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}`);
console.log(`${entries.length} files; after a warm-up of each, ${REPS} pairs of a floor run (its own engine process) and an end-to-end run in turn (${SHORT_REPS} under ${SHORT_MS} ms, three past ${MAX_MS} ms)\n`);

const floorEngine = await startFloorEngine(parseConfig({}).docbuilder.workerMaxJobs);
const svc = await startBenchServiceProcess(path.join(work, "svc"), 1);
const rows: { file: string; to: string; floorMs: number; savedMs: number; e2eMs: number; ratio: number; ratioToSaved: number; floorMeanMs: number; e2eMeanMs: number }[] = [];
try {
  for (const e of entries) {
    const bytes = new Blob([readFileSync(path.join(CORPUS, e.rel))]);
    const floor: number[] = [], saved: number[] = [], e2e: number[] = [];
    try {
      const warm = await floorEngine.once(e);
      await endToEndOnce(svc.url, e, bytes);
      const reps = warm.ms > MAX_MS ? LONG_REPS : warm.ms < SHORT_MS ? SHORT_REPS : REPS;
      for (let i = 0; i < reps; i++) {
        const f = await floorEngine.once(e);
        floor.push(f.ms);
        saved.push(f.savedMs);
        e2e.push(await endToEndOnce(svc.url, e, bytes));
      }
    } catch (err) {
      console.log(`  ${e.rel} left out (${(err as Error).message})`);
      continue;
    }
    if (process.env.BENCH_CORPUS_RAW) console.log(`  ${e.rel}: floor ${floor.map((x) => x.toFixed(0)).join(" ")} | e2e ${e2e.map((x) => x.toFixed(0)).join(" ")}`);
    // The nearest-rank p50: the median for odd counts of runs (7, 3), the lower middle one for even.
    const f = percentiles(floor), s = percentiles(saved), x = percentiles(e2e);
    rows.push({ file: e.rel, to: targetOf(e), floorMs: f.p50, savedMs: s.p50, e2eMs: x.p50, ratio: x.p50 / f.p50, ratioToSaved: x.p50 / s.p50, floorMeanMs: f.mean, e2eMeanMs: x.mean });
  }
} finally {
  floorEngine.stop();
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
}

console.log("| file | to | floor: load + save + close (median) | of it load + save | end to end (median) | e2e ÷ floor | e2e ÷ load + save |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.file} | ${r.to} | ${r.floorMs.toFixed(1)} ms | ${r.savedMs.toFixed(1)} ms | ${r.e2eMs.toFixed(1)} ms | ${r.ratio.toFixed(2)}× | ${r.ratioToSaved.toFixed(2)}× |`);
const over = rows.filter((r) => r.ratio > 1.1), overSaved = rows.filter((r) => r.ratioToSaved > 1.1);
console.log(`\n${rows.length} files; within 1.10× of the floor: ${rows.length - over.length}; over: ${over.map((r) => `${r.file} ${r.ratio.toFixed(2)}×`).join(", ") || "none"}`);
console.log(`within 1.10× of the floor's load + save alone: ${rows.length - overSaved.length}; over: ${overSaved.map((r) => `${r.file} ${r.ratioToSaved.toFixed(2)}×`).join(", ") || "none"}`);
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/out/corpus-floor-latest.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
process.exit(0);
