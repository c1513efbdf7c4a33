// Where the service's own time goes on small conversions (issue 47): the service as its own
// process under Bun's CPU profiler, BENCH_N conversions of hello.docx to PDF one after another,
// then the profile (markdown, grep-friendly) in bench/out/profile/. The service's CPU per file
// is printed from /proc, apart from this client's.
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BENCH_API_KEY as KEY, startBenchServiceProcess } from "./service";

const N = Number(process.env.BENCH_N ?? 300);
// Conversions before the measured ones: JavaScriptCore compiles the request path's hot code in
// tiers over the first few hundred requests (its JIT thread took 0.8 ms per file over the first
// 300, ~0.2 after 600), and a running service is past that.
const WARM = Number(process.env.BENCH_WARM ?? 300);
const FILE = path.join(import.meta.dir, "../fixtures", process.env.BENCH_FILE ?? "hello.docx");
const outDir = path.join(import.meta.dir, "out/profile");
mkdirSync(outDir, { recursive: true });
const profile = process.env.BENCH_PROFILE !== "0";
const svc = await startBenchServiceProcess(mkdtempSync(path.join(os.tmpdir(), "svc-prof-")), 1, profile ? [process.env.BENCH_PROFILE_FORMAT === "json" ? "--cpu-prof" : "--cpu-prof-md", `--cpu-prof-dir=${outDir}`, "--cpu-prof-interval=200"] : []);
const bytes = readFileSync(FILE);
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const convert = async () => {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([bytes]), path.basename(FILE));
  const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: fd });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`convert: ${res.status}`);
};
for (let i = 0; i < WARM; i++) await convert();
const before = cpuMs(svc.pid);
const t = performance.now();
for (let i = 0; i < N; i++) await convert();
const wall = performance.now() - t;
const used = cpuMs(svc.pid) - before;
console.log(`${path.basename(FILE)}: ${(wall / N).toFixed(1)} ms per file end to end; the service process's own CPU ${(used / N).toFixed(2)} ms per file (its main thread and helpers, not the worker; after ${WARM} conversions to warm up)`);
await svc.stop();
if (profile) console.log(`profile: ${outDir}`);
