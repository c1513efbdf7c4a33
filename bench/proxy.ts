// Proxy benchmark (`bun run bench:proxy`): what the inner proxy adds, and what the gate check adds
// to a WebSocket open, on loopback. Real Caddy with the repository Caddyfile, the real gate, and a
// small echoing upstream in place of the editing server (so only the proxy and the check are
// measured, not document loading). Every baseline is measured in this run, interleaved with what it
// is compared to (one request of each in turn), so drift on a shared machine hits both alike:
//   1. GET of an unchecked editing-server path: direct to the upstream vs through Caddy;
//   2. a WebSocket open + first echo through Caddy with the repository Caddyfile vs through a
//      second Caddy whose Caddyfile differs only by the removed gate check: the difference is what
//      the check costs a WebSocket open (Caddy's own WebSocket proxying is in both);
//   3. the same WebSocket open direct to the upstream (what Caddy costs at all);
//   4. the gate's /svc/auth decision over HTTP on its own listener (what the check costs the gate);
//   5. the decision itself in-process under load (2,000 sampled documents × 5 editing views and
//      10,000 admitted sessions tracked) against the same decision on an empty counter.

import os from "node:os";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { startService } from "../app/server";
import { ManualClock } from "../app/clock";
import { Admission } from "../app/gate/admission";
import { ConnectionCounter } from "../app/gate/counting";
import { CADDYFILE, startCaddy, startRecorder, tryWebSocket } from "../caddy/testing";

const N = Number(process.env.BENCH_N ?? 1000);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5), p99: q(0.99), max: s[s.length - 1]! };
}
type Stats = ReturnType<typeof stats>;
const fmt = (x: Stats) => `p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms`;

/** Runs the contenders in turn, N rounds after a warm-up, and returns each one's latency figures. */
async function interleaved(contenders: (() => Promise<unknown>)[]): Promise<Stats[]> {
  for (let i = 0; i < 20; i++) for (const fn of contenders) await fn(); // connections, JIT
  const xs: number[][] = contenders.map(() => []);
  for (let i = 0; i < N; i++) {
    for (const [k, fn] of contenders.entries()) {
      const t = performance.now();
      await fn();
      xs[k]!.push(performance.now() - t);
    }
  }
  return xs.map(stats);
}

const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-proxy-"));
const rec = startRecorder({ keep: false });
const config = parseConfig({
  SVC_DATA_DIR: work,
  SVC_DOCBUILDER_WORKERS: "1",
  SVC_LOG_LEVEL: "error",
  SVC_LICENSE_FILE: path.join(work, "license.token"),
  SVC_EDSRV_URL: `http://${rec.addr}`,
  SVC_EDSRV_ADMIN_PASSWORD: "bench",
});
const gate = await startService(config, memoryLogger("error"), { port: 0, hostname: "127.0.0.1" });

// The baseline proxy: the repository Caddyfile without the WebSocket gate check, nothing else changed.
const CHECK = "\t\t\timport gate_check ws\n";
const repoCaddyfile = readFileSync(CADDYFILE, "utf8");
if (!repoCaddyfile.includes(CHECK)) throw new Error("the Caddyfile no longer has the WebSocket gate check this benchmark removes for its baseline");
const uncheckedFile = path.join(work, "Caddyfile.nocheck");
writeFileSync(uncheckedFile, repoCaddyfile.replace(CHECK, ""));

const app = new URL(gate.url).host;
const [checked, unchecked] = await Promise.all([startCaddy({ app, edsrv: rec.addr }), startCaddy({ app, edsrv: rec.addr, caddyfile: uncheckedFile })]);

const wopiSrc = "http://127.0.0.1:8081/svc/wopi/files/doc_0123456789abcdef0123456789abcdef";
const docPart = encodeURIComponent(`${wopiSrc}?access_token=tok_bench_0123456789abcdef&access_token_ttl=0`);
const wsPath = `/ed/${docPart}/ws?WOPISrc=${encodeURIComponent(wopiSrc)}&compat=/ws`;
const direct = `http://${rec.addr}`;

async function ws(base: string) {
  const r = await tryWebSocket(base.replace(/^http/, "ws") + wsPath);
  if (!r.opened) throw new Error(`WebSocket refused at ${base}`);
}
const get = (base: string) => () => fetch(`${base}/hosting/capabilities`).then((r) => r.text());

console.log(`svc proxy benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}, Caddy ${Bun.spawnSync(["caddy", "version"]).stdout.toString().split(" ")[0]!.trim()}, ${N} rounds, sequential\n`);
const [getDirect, getProxied] = await interleaved([get(direct), get(checked.url)]);
const [wsDirect, wsUnchecked, wsChecked] = await interleaved([() => ws(direct), () => ws(unchecked.url), () => ws(checked.url)]);
const [auth] = await interleaved([
  () => fetch(`${gate.url}/svc/auth`, { headers: { "X-Original-URI": wsPath, "X-Original-Method": "GET", "X-SVC-Stage": "ws" } }).then((r) => r.arrayBuffer()),
]);
if (gate.counter.snapshot().pending === 0) throw new Error("the gate never admitted a session: the check did not run");

// 5. The decision under load, in-process: what /svc/auth costs once many sessions are tracked.
const wsUriOf = (doc: number, session: number) => {
  const src = `http://files.example:8080/wopi/files/${doc}`;
  return `/ed/${encodeURIComponent(`${src}?access_token=tok_${session}&access_token_ttl=0`)}/ws?WOPISrc=${encodeURIComponent(src)}&compat=/ws`;
};
function admissionWith(sampledDocs: number, viewsPerDoc: number) {
  const clock = new ManualClock(Date.now());
  const counter = new ConnectionCounter({ clock, limit: () => 1_000_000 });
  counter.applySample(
    Array.from({ length: sampledDocs }, (_, d) => ({ docKey: `http://files.example:8080/wopi/files/${d}`, editSessions: Array.from({ length: viewsPerDoc }, (_, v) => `${d}/${v}`), readonly: 0 })),
  );
  return { counter, admission: new Admission({ counter, clock, edition: () => "enterprise", wopiAllowedHosts: [] }) };
}
const DOCS = 2000;
const TRACKED = 10_000;
const loaded = admissionWith(DOCS, 5);
for (let i = 0; i < TRACKED; i++) await loaded.admission.decide("ws", wsUriOf(i % (2 * DOCS), i)); // half on sampled documents, half on new ones
const empty = admissionWith(0, 0);
let next = TRACKED;
const [decideLoaded, decideEmpty] = await interleaved([
  () => loaded.admission.decide("ws", wsUriOf(next % (2 * DOCS), next++)),
  () => empty.admission.decide("ws", wsUriOf(0, next++)),
]);
if (loaded.counter.snapshot().pending < TRACKED) throw new Error("the loaded counter lost its pending sessions");

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
console.log(`GET, unchecked path:        direct ${fmt(getDirect!)}; through Caddy ${fmt(getProxied!)} (p50 ${ratio(getProxied!.p50, getDirect!.p50)})`);
console.log(`WebSocket open + echo:      direct ${fmt(wsDirect!)}`);
console.log(`                            through Caddy, check removed ${fmt(wsUnchecked!)}`);
console.log(`                            through Caddy, with the check ${fmt(wsChecked!)} (p50 ${ratio(wsChecked!.p50, wsUnchecked!.p50)}, p99 ${ratio(wsChecked!.p99, wsUnchecked!.p99)} the unchecked open)`);
console.log(`gate /svc/auth decision:    ${fmt(auth!)} (HTTP on the gate's own listener)`);
console.log(`decision in-process:        ${DOCS} documents × 5 editing views sampled and ${TRACKED}+ sessions tracked ${fmt(decideLoaded!)}; empty counter ${fmt(decideEmpty!)} (p50 ${ratio(decideLoaded!.p50, decideEmpty!.p50)})`);
const addsP50 = wsChecked!.p50 - wsUnchecked!.p50;
const addsP99 = wsChecked!.p99 - wsUnchecked!.p99;
console.log(`the gate check adds p50 ${addsP50.toFixed(2)} ms, p99 ${addsP99.toFixed(2)} ms to a WebSocket open (target: under 2 ms at p99: ${addsP99 < 2 ? "met" : "NOT met"})`);

await Promise.all([checked.stop(), unchecked.stop()]);
await gate.stop(2000);
rec.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
