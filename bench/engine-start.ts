// How long an office engine takes to start (`bun run bench:engine-start`): LibreOfficeKit's init
// (libreofficekit_hook_2) in a process of its own, as a kit or a worker starts it (same profile
// settings, same environment), with a fresh profile ("cold": a new kit, a worker's first start, a
// recovery) and with the profile of an earlier start ("warm": a worker restarted on its slot).
// BENCH_STARTS (6) of each, alternated. The engine is SVC_ENGINE_PROGRAM_DIR's (Debian's by default).
// Writes bench/out/engine-start-latest.json.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { engineProgramDir } from "../workers/lok";

const N = Number(process.env.BENCH_STARTS ?? 6);
const work = mkdtempSync(path.join(os.tmpdir(), "svc-engine-start-"));
const CHILD = `
import { LokOffice, engineProgramDir, fileUrl } from ${JSON.stringify(path.resolve(import.meta.dir, "../workers/lok"))};
import { engineEnvironment, writeProfileConfig } from ${JSON.stringify(path.resolve(import.meta.dir, "../workers/profile"))};
import { mkdirSync } from "node:fs";
const profile = process.argv[2];
mkdirSync(profile + "/tmp", { recursive: true });
writeProfileConfig(profile);
const t0 = performance.now();
const office = new LokOffice(fileUrl(profile), engineProgramDir(), engineEnvironment(profile, profile + "/tmp", { spelling: false }));
const ms = performance.now() - t0;
const vi = JSON.parse(office.getVersionInfo() ?? "{}");
console.log(JSON.stringify({ ms, version: String(vi.ProductVersion ?? "") + String(vi.ProductExtension ?? "") }));
process.exit(0);
`;
const child = path.join(work, "child.ts");
writeFileSync(child, CHILD);

async function start(profile: string): Promise<{ ms: number; wallMs: number; version: string }> {
  const t0 = performance.now();
  const p = Bun.spawn([process.execPath, child, profile], { stdout: "pipe", stderr: "ignore", env: { ...process.env } });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const r = JSON.parse(out.trim().split("\n").pop()!);
  return { ...r, wallMs: performance.now() - t0 };
}

const cold: number[] = [], warm: number[] = [], coldWall: number[] = [], warmWall: number[] = [];
let version = "";
for (let i = 0; i < N; i++) {
  const profile = path.join(work, `p${i}`);
  mkdirSync(profile);
  const c = await start(profile);
  const w = await start(profile);
  cold.push(c.ms); coldWall.push(c.wallMs); warm.push(w.ms); warmWall.push(w.wallMs);
  version = c.version;
  rmSync(profile, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
const result = {
  engine: `LibreOffice ${version} (${engineProgramDir()})`,
  starts: N,
  cold_init_ms: { median: Math.round(median(cold)), range: range(cold) },
  warm_init_ms: { median: Math.round(median(warm)), range: range(warm) },
  cold_process_ms: { median: Math.round(median(coldWall)), range: range(coldWall) },
  warm_process_ms: { median: Math.round(median(warmWall)), range: range(warmWall) },
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(path.join(import.meta.dir, "out"), { recursive: true });
writeFileSync(path.join(import.meta.dir, "out", "engine-start-latest.json"), JSON.stringify(result, null, 2));
rmSync(work, { recursive: true, force: true });
