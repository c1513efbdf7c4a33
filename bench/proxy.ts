// Proxy benchmark (`bun run bench:proxy`): what the inner proxy adds, and what the gate check adds
// to a WebSocket open, on loopback. Real Caddy with the repository Caddyfile, the real gate, and a
// small echoing upstream in place of the editing server (so only the proxy and the check are
// measured, not document loading). Each figure is measured in this run:
//   1. GET of an unchecked editing-server path: direct to the upstream vs through Caddy;
//   2. a WebSocket open + first echo: direct vs through Caddy, where the gate check runs;
//   3. the gate's /svc/auth decision over HTTP on its own listener (what the check costs the gate).
// The check's own cost is (2 through − 2 direct) − (1 through − 1 direct): what a checked open adds
// beyond proxying.

import os from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { parseConfig } from "../app/config";
import { memoryLogger } from "../app/log";
import { startService } from "../app/server";
import { startCaddy, startRecorder, tryWebSocket } from "../caddy/testing";

const N = Number(process.env.BENCH_N ?? 300);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5), p99: q(0.99), mean: xs.reduce((a, b) => a + b, 0) / xs.length };
}
const fmt = (x: { p50: number; p99: number }) => `p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms`;

async function measure(fn: () => Promise<unknown>): Promise<ReturnType<typeof stats>> {
  for (let i = 0; i < 20; i++) await fn(); // warm-up: connections, JIT
  const xs: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return stats(xs);
}

const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-proxy-"));
const rec = startRecorder();
const config = parseConfig({
  SVC_DATA_DIR: work,
  SVC_DOCBUILDER_WORKERS: "1",
  SVC_LOG_LEVEL: "error",
  SVC_LICENSE_FILE: path.join(work, "license.token"),
  SVC_EDSRV_URL: `http://${rec.addr}`,
  SVC_EDSRV_ADMIN_PASSWORD: "bench",
});
const gate = await startService(config, memoryLogger("error"), { port: 0, hostname: "127.0.0.1" });
const caddy = await startCaddy({ app: new URL(gate.url).host, edsrv: rec.addr });

const wopiSrc = "http://127.0.0.1:8081/svc/wopi/files/doc_0123456789abcdef0123456789abcdef";
const docPart = encodeURIComponent(`${wopiSrc}?access_token=tok_bench_0123456789abcdef&access_token_ttl=0`);
const wsPath = `/ed/${docPart}/ws?WOPISrc=${encodeURIComponent(wopiSrc)}&compat=/ws`;

const direct = `http://${rec.addr}`;
const proxied = caddy.url;

async function ws(base: string) {
  const r = await tryWebSocket(base.replace(/^http/, "ws") + wsPath);
  if (!r.opened) throw new Error(`WebSocket refused at ${base}`);
}

console.log(`svc proxy benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}, ${N} requests each, sequential\n`);
const getDirect = await measure(() => fetch(`${direct}/hosting/capabilities`).then((r) => r.text()));
const getProxied = await measure(() => fetch(`${proxied}/hosting/capabilities`).then((r) => r.text()));
const wsDirect = await measure(() => ws(direct));
const wsProxied = await measure(() => ws(proxied));
const authDirect = await measure(() =>
  fetch(`${gate.url}/svc/auth`, { headers: { "X-Original-URI": wsPath, "X-Original-Method": "GET", "X-SVC-Stage": "ws" } }).then((r) => r.arrayBuffer()),
);

console.log(`GET, unchecked path:       direct ${fmt(getDirect)}; through Caddy ${fmt(getProxied)}; proxy adds p50 ${(getProxied.p50 - getDirect.p50).toFixed(2)} ms`);
console.log(`WebSocket open + echo:     direct ${fmt(wsDirect)}; through Caddy with the gate check ${fmt(wsProxied)}`);
console.log(`gate /svc/auth decision:   ${fmt(authDirect)} (HTTP on the gate's own listener)`);
const checkP50 = wsProxied.p50 - wsDirect.p50 - (getProxied.p50 - getDirect.p50);
const checkP99 = wsProxied.p99 - wsDirect.p99 - (getProxied.p99 - getDirect.p99);
console.log(`the gate check adds about p50 ${checkP50.toFixed(2)} ms, p99 ${checkP99.toFixed(2)} ms to a WebSocket open (target: under 2 ms at p99)`);

await caddy.stop();
await gate.stop(2000);
rec.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
