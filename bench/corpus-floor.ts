// Conversions at the engine's floor on every corpus file (`bun run bench:corpus`, issue 24 item 4).
// For each readable file of ../shared/corpus (encrypted, empty and corrupt ones left out), in one run:
//   - the floor: LibreOfficeKit in this process, a private copy + load + save + close (as bench/run.ts);
//   - end to end: POST /v1/convert over HTTP on loopback, one worker (enterprise: no rate limit);
// to PDF (large files to txt / csv / odp, as the corpus test does), medians of BENCH_CORPUS_REPS runs
// after one warm-up each, and the ratio end to end ÷ floor per file. A file's floor and end to end
// runs follow each other, so both see the machine in the same state; the median, not the mean, so
// that one pause of the machine (a collection, another process) does not decide a small file's
// ratio (means are in the JSON too). Files past BENCH_CORPUS_MAX_MS on the floor are measured once.
// Writes bench/out/corpus-floor-latest.json.
// Knobs: BENCH_CORPUS_REPS (5), BENCH_CORPUS_FILTER (a substring of the path), BENCH_CORPUS_MAX_MS (3000).

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BENCH_API_KEY as KEY, startBenchService } from "./service";
import { LokOffice, fileUrl } from "../workers/lok";
import { LOAD_OPTIONS, writeProfileConfig } from "../workers/profile";
import { formatOf } from "../workers/formats";

const ROOT = path.resolve(import.meta.dir, "..");
const CORPUS = path.resolve(ROOT, "../shared/corpus");
const REPS = Number(process.env.BENCH_CORPUS_REPS ?? 5);
const FILTER = process.env.BENCH_CORPUS_FILTER ?? "";
const MAX_MS = Number(process.env.BENCH_CORPUS_MAX_MS ?? 3000);
const work = mkdtempSync(path.join(os.tmpdir(), "svc-corpus-bench-"));

interface Entry { rel: string; format: string; bytes: number; notes: string }
const entries: Entry[] = readFileSync(path.join(CORPUS, "MANIFEST.tsv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((l) => l.split("\t"))
  .map((c) => ({ rel: c[0]!, format: c[1]!, bytes: Number(c[2]), notes: (c[8] ?? "").toLowerCase() }))
  .filter((e) => e.bytes > 1 && !/^(encrypted|corrupt|mislabeled)/.test(e.notes) && !e.notes.includes("0 bytes") && formatOf(e.format))
  .filter((e) => e.rel.includes(FILTER));

/** The corpus test's target: PDF, or a cheaper format for large files. */
function targetOf(e: Entry): string {
  const family = formatOf(e.format)!.family;
  const large = e.bytes > 1_000_000 || /many pages|large|300 worksheets/.test(e.notes);
  if (family === "text") return large ? "txt" : "pdf";
  if (family === "spreadsheet") return large ? "csv" : "pdf";
  return large ? "odp" : "pdf";
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function floorOf(office: LokOffice, e: Entry, reps: number): number[] {
  const dir = path.join(work, "floor");
  mkdirSync(dir, { recursive: true });
  const once = () => {
    const input = path.join(dir, path.basename(e.rel));
    copyFileSync(path.join(CORPUS, e.rel), input);
    const t = performance.now();
    const doc = office.documentLoad(fileUrl(input), LOAD_OPTIONS);
    if (!doc) throw new Error(`load failed: ${e.rel}`);
    const to = targetOf(e);
    doc.saveAs(fileUrl(path.join(dir, `out.${to}`)), to, to === "txt" ? "UTF8" : "");
    doc.destroy();
    return performance.now() - t;
  };
  once();
  return Array.from({ length: reps }, once);
}

async function endToEnd(base: string, e: Entry, reps: number): Promise<number[]> {
  const bytes = readFileSync(path.join(CORPUS, e.rel));
  const once = async () => {
    const fd = new FormData();
    fd.append("to", targetOf(e));
    fd.append("file", new Blob([bytes]), path.basename(e.rel));
    const t = performance.now();
    const res = await fetch(`${base}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: fd });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${e.rel}: ${res.status}`);
    return performance.now() - t;
  };
  await once();
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) xs.push(await once());
  return xs;
}

console.log(`svc corpus floor benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}`);
console.log(`${entries.length} files, ${REPS} runs each after a warm-up (one run past ${MAX_MS} ms), the floor and end to end of a file one after the other\n`);

const profile = path.join(work, "raw-profile");
mkdirSync(profile, { recursive: true });
writeProfileConfig(profile);
const office = new LokOffice(fileUrl(profile));
const svc = await startBenchService(path.join(work, "svc"), 1);
const rows: { file: string; to: string; floorMs: number; e2eMs: number; ratio: number; floorMeanMs: number; e2eMeanMs: number }[] = [];
try {
  for (const e of entries) {
    let floor: number[];
    try {
      const first = floorOf(office, e, 1);
      floor = mean(first) > MAX_MS ? first : floorOf(office, e, REPS);
    } catch (err) {
      console.log(`  floor: ${e.rel} left out (${(err as Error).message})`);
      continue;
    }
    try {
      const e2e = await endToEnd(svc.url, e, mean(floor) > MAX_MS ? 1 : REPS);
      rows.push({ file: e.rel, to: targetOf(e), floorMs: median(floor), e2eMs: median(e2e), ratio: median(e2e) / median(floor), floorMeanMs: mean(floor), e2eMeanMs: mean(e2e) });
    } catch (err) {
      console.log(`  end to end: ${e.rel} left out (${(err as Error).message})`);
    }
  }
} finally {
  await svc.stop(5000);
  rmSync(work, { recursive: true, force: true });
}

console.log("| file | to | floor (median) | end to end (median) | e2e ÷ floor |");
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.file} | ${r.to} | ${r.floorMs.toFixed(1)} ms | ${r.e2eMs.toFixed(1)} ms | ${r.ratio.toFixed(2)}× |`);
const over = rows.filter((r) => r.ratio > 1.1);
console.log(`\n${rows.length} files; within 1.10× of the floor: ${rows.length - over.length}; over: ${over.map((r) => `${r.file} ${r.ratio.toFixed(2)}×`).join(", ") || "none"}`);
mkdirSync(path.join(ROOT, "bench/out"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/out/corpus-floor-latest.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
process.exit(0);
