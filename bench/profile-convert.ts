// Where the service's own time goes on small conversions (issue 47): the service as its own
// process, BENCH_N conversions of hello.docx to PDF one after another, its CPU per file read from
// /proc apart from this client's, per thread (Bun's main thread, JavaScriptCore's JIT and heap
// helpers, the allocator's scavenger) with the main thread's context switches (each one a wake-up,
// which on a virtual machine costs tens of microseconds of system time).
//
//   BENCH_PROFILE=1           the service under Bun's CPU profiler (markdown in bench/out/profile/;
//                             BENCH_PROFILE_FORMAT=json for a .cpuprofile)
//   BENCH_BASELINE=/a/checkout the same measure on another checkout's service in the same run
//
// Every run also measures Bun's own floor for the same exchange (bench/floor-service.ts: upload,
// a pipe to a worker and back, hash, file answer, nothing else). The services answer in turn, so
// that all see the same machine (this machine's speed drifts by a fifth within minutes).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../caddy/testing";
import { BENCH_API_KEY as KEY, startBenchServiceProcess } from "./service";

const N = Number(process.env.BENCH_N ?? 300);
// Conversions before the measured ones: JavaScriptCore compiles the request path's hot code in
// tiers over the first few hundred requests (its JIT thread took 0.8 ms per file over the first
// 300, ~0.2 after 600), and a running service is past that.
const WARM = Number(process.env.BENCH_WARM ?? 300);
const FILE = path.join(import.meta.dir, "../fixtures", process.env.BENCH_FILE ?? "hello.docx");
const outDir = path.join(import.meta.dir, "out/profile");
mkdirSync(outDir, { recursive: true });
const profile = process.env.BENCH_PROFILE === "1";
const profilerArgs = profile ? [process.env.BENCH_PROFILE_FORMAT === "json" ? "--cpu-prof" : "--cpu-prof-md", `--cpu-prof-dir=${outDir}`, "--cpu-prof-interval=200"] : [];
const baselineTree = process.env.BENCH_BASELINE;

const bytes = readFileSync(FILE);

/** CPU (ms) and context switches of each thread of a process, by thread name ("Bun Pool 3" → "Bun Pool #"). */
function threadUsage(pid: number): Map<string, { user: number; system: number; switches: number }> {
  const byName = new Map<string, { user: number; system: number; switches: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[0-9]+$/, "#");
      const f = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      const switches = Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)![1]) + Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)![1]);
      const u = byName.get(name) ?? { user: 0, system: 0, switches: 0 };
      // utime and stime are in clock ticks of 10 ms.
      byName.set(name, { user: u.user + Number(f[11]) * 10, system: u.system + Number(f[12]) * 10, switches: u.switches + switches });
    } catch {
      // a thread that ended meanwhile
    }
  }
  return byName;
}

function form(): FormData {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([bytes]), path.basename(FILE));
  return fd;
}

type Service = Awaited<ReturnType<typeof startBenchServiceProcess>> & { name: string };
const services: Service[] = [{ name: "this checkout", ...(await startBenchServiceProcess(mkdtempSync(path.join(os.tmpdir(), "svc-prof-")), 1, profilerArgs)) }];
if (baselineTree) services.push({ name: `baseline ${baselineTree}`, ...(await startBenchServiceProcess(mkdtempSync(path.join(os.tmpdir(), "svc-prof-base-")), 1, profilerArgs, path.join(baselineTree, "app/main.ts"))) });

/** Bun's own floor for the same exchange (bench/floor-service.ts), answering with svc's output. */
async function startFloorService(reply: Uint8Array): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-prof-floor-"));
  writeFileSync(path.join(dir, "reply.pdf"), reply);
  const port = await freePort();
  const child = Bun.spawn([process.execPath, path.join(import.meta.dir, "floor-service.ts"), String(port), dir, path.join(dir, "reply.pdf")], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  if (!new TextDecoder().decode(value).includes("ready")) throw new Error("the floor service did not start");
  return { name: "Bun's floor (bench/floor-service.ts)", url: `http://127.0.0.1:${port}`, pid: child.pid, stop: async () => void child.kill() };
}

/** One conversion: its time end to end and the file answered. */
async function convert(svc: Service): Promise<{ ms: number; output: Uint8Array }> {
  const t = performance.now();
  const res = await fetch(`${svc.url}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` }, body: form() });
  const output = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`convert: ${res.status}`);
  return { ms: performance.now() - t, output };
}

services.push(await startFloorService((await convert(services[0]!)).output));
for (let i = 0; i < WARM; i++) for (const svc of services) await convert(svc);
const before = services.map((s) => threadUsage(s.pid));
const wall = services.map(() => 0);
for (let i = 0; i < N; i++) for (const [k, svc] of services.entries()) wall[k]! += (await convert(svc)).ms;
const after = services.map((s) => threadUsage(s.pid));

const totals: number[] = [];
for (const [k, svc] of services.entries()) {
  let total = 0;
  const rows: string[] = [];
  for (const [name, a] of after[k]!) {
    const b = before[k]!.get(name) ?? { user: 0, system: 0, switches: 0 };
    const user = (a.user - b.user) / N;
    const system = (a.system - b.system) / N;
    total += user + system;
    if (user + system >= 0.01 || name === "bun.exe") rows.push(`  ${name}: ${user.toFixed(2)} user + ${system.toFixed(2)} system ms, ${((a.switches - b.switches) / N).toFixed(1)} context switches per file`);
  }
  totals.push(total);
  console.log(`${svc.name}: ${path.basename(FILE)} ${(wall[k]! / N).toFixed(1)} ms per file end to end; the service process's own CPU ${total.toFixed(2)} ms per file (after ${WARM} conversions to warm up)`);
  for (const r of rows) console.log(r);
}
const floor = totals[totals.length - 1]!;
if (baselineTree) console.log(`CPU per file, this checkout ÷ baseline: ${(totals[0]! / totals[1]!).toFixed(2)}×`);
console.log(`CPU per file, this checkout ÷ Bun's floor: ${(totals[0]! / floor).toFixed(2)}× (${(totals[0]! - floor).toFixed(2)} ms more)`);
await Promise.all(services.map((s) => s.stop()));
if (profile) console.log(`profile: ${outDir}`);
