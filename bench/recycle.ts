// A steady stream of small conversions through the service (`bun run bench:recycle`): BENCH_N
// (600) hello.docx → PDF one after another on one worker, which SVC_DOCBUILDER_WORKER_MAX_JOBS'
// default (200) recycles twice. Prints the mean, median, p99 and worst request, and each request
// that took over three times the median, with its number: a request that waited for a worker's
// recycle or an engine's first load shows there.
//
//   BENCH_BASELINE=/a/checkout   the same stream through another checkout's service, in turn,
//                                request by request (the machine's drift is the same for both)
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BENCH_API_KEY as KEY, startBenchServiceProcess } from "./service";

const N = Number(process.env.BENCH_N ?? 600);
const bytes = readFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"));
const baselineTree = process.env.BENCH_BASELINE;

function form(): FormData {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([bytes]), "hello.docx");
  return fd;
}

const services = [{ name: "this checkout", ...(await startBenchServiceProcess(mkdtempSync(path.join(os.tmpdir(), "svc-recycle-")), 1)) }];
if (baselineTree) services.push({ name: `baseline ${baselineTree}`, ...(await startBenchServiceProcess(mkdtempSync(path.join(os.tmpdir(), "svc-recycle-base-")), 1, [], path.join(baselineTree, "app/main.ts"))) });

const times = services.map(() => [] as number[]);
for (let i = 0; i < N; i++) {
  for (const [k, svc] of services.entries()) {
    const t = performance.now();
    const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: form() });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${svc.name}: ${res.status}`);
    times[k]!.push(performance.now() - t);
  }
}

console.log(`svc recycle benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, ${N} × hello.docx → PDF, one worker recycled every 200\n`);
const means: number[] = [];
for (const [k, svc] of services.entries()) {
  const xs = times[k]!;
  const sorted = [...xs].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1]!;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  means.push(mean);
  const slow = xs.map((ms, i) => ({ ms, i })).filter((r) => r.ms > 3 * median);
  console.log(`${svc.name}: mean ${mean.toFixed(1)} ms, median ${median.toFixed(1)}, p99 ${sorted[Math.floor(0.99 * sorted.length)]!.toFixed(1)}, worst ${sorted[sorted.length - 1]!.toFixed(0)} ms`);
  console.log(`  over 3× the median: ${slow.length ? slow.map((r) => `#${r.i + 1} ${r.ms.toFixed(0)} ms`).join(", ") : "none"}`);
}
if (baselineTree) console.log(`mean, this checkout ÷ baseline: ${(means[0]! / means[1]!).toFixed(3)}×`);
await Promise.all(services.map((s) => s.stop()));
process.exit(0);
