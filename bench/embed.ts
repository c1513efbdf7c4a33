// Embed gate benchmark (`bun run bench:embed`): on loopback, the real gate (in this process) with
// the real editing server's discovery (cached after the first session), a loopback file server as
// the integrator's storage, signed configs made before timing. Each figure is measured interleaved
// with its baseline in the same run:
//   1. session creation with a new key (download of a 100 kB docx + store + cap + discovery)
//      against a plain GET of the same file from the same server (the download's own floor);
//   2. session creation for a key already open (no download) against the same baseline;
//   3. PutFile of a 1 MB document answered, against a POST of the same bytes to a server that only
//      reads them (HTTP's floor) and against writing and flushing 1 MB to disk in-process (the
//      durability floor);
//   4. 200 concurrent sessions on 20 documents: every one created, one download per document.
// Targets (issue 10): session p95 ≤ 50 ms, PutFile p95 ≤ 30 ms, the 200 sessions without error.

import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { unzipSync, zipSync } from "fflate";
import { sign } from "hono/jwt";
import { parseConfig } from "../app/config";
import { createEdsrv } from "../app/edsrv/server";
import { memoryLogger } from "../app/log";
import { startService } from "../app/server";
import { decodePrivateKey, generateKeyPair, signToken } from "../app/editions/license";
import { freePort } from "../caddy/testing";

const N = Number(process.env.BENCH_N ?? 200);
const SECRET = "bench-embed-secret-0123456789abcdef0123";
const root = path.resolve(import.meta.dir, "..");

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5), p95: q(0.95), p99: q(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}
type Stats = ReturnType<typeof stats>;
const fmt = (x: Stats) => `p50 ${x.p50.toFixed(2)} ms, p95 ${x.p95.toFixed(2)} ms`;

/** hello.docx with an unreferenced incompressible part: a valid package of about `size` bytes. */
function docxOfSize(size: number): Uint8Array {
  const files = unzipSync(readFileSync(path.join(root, "fixtures/hello.docx")));
  const base = zipSync(files).byteLength;
  files["word/media/padding.bin"] = [new Uint8Array(randomBytes(Math.max(0, size - base - 200))), { level: 0 }] as never;
  return zipSync(files);
}

/** Runs the contenders in turn, N rounds after a warm-up. */
async function interleaved(contenders: ((i: number) => Promise<unknown>)[], rounds = N): Promise<Stats[]> {
  for (let i = 0; i < 10; i++) for (const fn of contenders) await fn(-1 - i);
  const xs: number[][] = contenders.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, fn] of contenders.entries()) {
      const t = performance.now();
      await fn(i);
      xs[k]!.push(performance.now() - t);
    }
  }
  return xs.map(stats);
}

const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-embed-"));
const doc100k = docxOfSize(100 * 1024);
const doc1m = docxOfSize(1024 * 1024);
let downloads = 0;
const source = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch() {
    downloads++;
    return new Response(doc100k as unknown as BodyInit);
  },
});
const sink = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    await req.arrayBuffer();
    return Response.json({ LastModifiedTime: "x" });
  },
});
const sourceUrl = `http://127.0.0.1:${source.port}/doc.docx`;

const [gatePort, edPort] = [await freePort(), await freePort()];
const gateUrl = `http://127.0.0.1:${gatePort}`;
const ed = await createEdsrv({
  config: parseConfig({ SVC_DATA_DIR: path.join(work, "ed"), SVC_ONLINE_ALIASGROUP1: gateUrl, SVC_EDSRV_ADMIN_PASSWORD: "bench" }),
  logger: memoryLogger("error"),
  listen: { hostname: "127.0.0.1", port: edPort },
  idleKits: 0,
});
// Enterprise with a large cap: every session here asks to edit, and none must be turned read-only.
const keys = generateKeyPair();
const license = signToken(
  { v: 1, prod: "svc-online", kind: "enterprise", conns: 1_000_000, plan: "year", exp: "2099-12-31", feat: ["api_full"], key: "OOSY-BENCH-00000-00000-00000", iat: Math.floor(Date.now() / 1000) },
  decodePrivateKey(keys.privateKey),
);
const config = parseConfig({
  SVC_LICENSE_PUBKEY: keys.publicKey,
  SVC_LICENSE_TOKEN: license,
  SVC_DATA_DIR: path.join(work, "gate"),
  SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
  SVC_PUBLIC_URL: gateUrl,
  SVC_DOCBUILDER_WORKERS: "1",
  SVC_LOG_LEVEL: "error",
  SVC_LICENSE_FILE: path.join(work, "license.token"),
  SVC_EDSRV_URL: ed.url,
  SVC_EDSRV_ADMIN_PASSWORD: "bench",
  SVC_EMBED_JWT_SECRET: SECRET,
  SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
});
const gate = await startService(config, memoryLogger("error"), { port: gatePort, hostname: "127.0.0.1" });

const exp = Math.floor(Date.now() / 1000) + 3600;
const token = (key: string, user = "u1") =>
  sign({ document: { url: sourceUrl, fileType: "docx", key }, editor: { mode: "edit", user: { id: user, name: `User ${user}` } }, exp }, SECRET, "HS256");
async function create(tok: string): Promise<any> {
  const res = await fetch(`${gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: tok }) });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
const baselineGet = async () => new Uint8Array(await (await fetch(sourceUrl)).arrayBuffer());

// Tokens are signed before timing: the integrator's backend signs, the gate only verifies.
const newKeyTokens = await Promise.all(Array.from({ length: N + 10 }, (_, i) => token(`bench-new-${i}`)));
const sameKeyTokens = await Promise.all(Array.from({ length: N + 10 }, (_, i) => token("bench-shared", `s${i}`)));
const tokenAt = (list: string[], i: number) => list[i < 0 ? N + (-1 - i) : i]!;

console.log(`embed benchmark: N=${N}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "cpu"}, Bun ${Bun.version}`);
const [newKey, getBase1] = await interleaved([(i) => create(tokenAt(newKeyTokens, i)), baselineGet]);
console.log(`session, new key (100 kB download):   ${fmt(newKey!)}   | baseline GET of the file: ${fmt(getBase1!)}   | ratio p50 ${(newKey!.p50 / getBase1!.p50).toFixed(1)}×`);
const [sameKey, getBase2] = await interleaved([(i) => create(tokenAt(sameKeyTokens, i)), baselineGet]);
console.log(`session, key already open:           ${fmt(sameKey!)}   | baseline GET of the file: ${fmt(getBase2!)}`);

// PutFile: one edit session writing version after version.
const s = await create(await token("bench-put"));
const wopi = `${gateUrl}/svc/wopi/files/${s.doc_id}/contents?access_token=${s.form.access_token}`;
const put = async () => {
  const res = await fetch(wopi, { method: "POST", headers: { "X-WOPI-Override": "PUT", "Content-Type": "application/octet-stream" }, body: doc1m as unknown as BodyInit });
  if (res.status !== 200) throw new Error(`PutFile ${res.status}`);
  await res.arrayBuffer();
};
const postFloor = async () => (await fetch(`http://127.0.0.1:${sink.port}/`, { method: "POST", body: doc1m as unknown as BodyInit })).arrayBuffer();
const flushFile = path.join(work, "flush.bin");
const diskFloor = async () => {
  const fd = openSync(flushFile, "w");
  let off = 0;
  while (off < doc1m.byteLength) off += writeSync(fd, doc1m, off);
  fsyncSync(fd);
  closeSync(fd);
};
const [putStats, postStats, diskStats] = await interleaved([put, postFloor, diskFloor]);
console.log(`PutFile 1 MB answered:               ${fmt(putStats!)}   | POST 1 MB to a reader: ${fmt(postStats!)}   | write+fsync 1 MB: ${fmt(diskStats!)}`);

// 200 concurrent sessions on 20 documents.
const before = downloads;
const burst = await Promise.all(Array.from({ length: 200 }, (_, i) => token(`bench-burst-${i % 20}`, `b${i}`)));
const t0 = performance.now();
const results = await Promise.allSettled(burst.map((t) => create(t)));
const burstMs = performance.now() - t0;
const ok = results.filter((r) => r.status === "fulfilled").length;
const docs = new Set(results.flatMap((r) => (r.status === "fulfilled" ? [r.value.doc_id] : []))).size;
console.log(`200 concurrent sessions on 20 documents: ${ok}/200 created in ${burstMs.toFixed(0)} ms, ${docs} documents, ${downloads - before} downloads`);
const rssMb = Math.round(process.memoryUsage().rss / 1048576);
console.log(`process RSS after the run: ${rssMb} MB (gate + benchmark client in one process)`);

const out = {
  date: new Date().toISOString(),
  n: N,
  cpus: os.cpus().length,
  bun: Bun.version,
  session_new_key: newKey,
  session_same_key: sameKey,
  baseline_get_100k: getBase1,
  putfile_1mb: putStats,
  post_1mb_floor: postStats,
  fsync_1mb_floor: diskStats,
  burst: { ok, ms: burstMs, documents: docs, downloads: downloads - before },
  rss_mb: rssMb,
  targets: { session_p95_50ms: newKey!.p95 <= 50, putfile_p95_30ms: putStats!.p95 <= 30, burst_all_created: ok === 200 },
};
const outDir = path.join(root, "bench/out");
Bun.spawnSync(["mkdir", "-p", outDir]);
writeFileSync(path.join(outDir, "embed.json"), JSON.stringify(out, null, 2));
console.log(`targets: session p95 ≤ 50 ms: ${out.targets.session_p95_50ms ? "met" : "NOT met"}; PutFile p95 ≤ 30 ms: ${out.targets.putfile_p95_30ms ? "met" : "NOT met"}; 200 sessions: ${out.targets.burst_all_created ? "met" : "NOT met"}`);

await gate.stop(2000);
await ed.close();
source.stop(true);
sink.stop(true);
rmSync(work, { recursive: true, force: true });
process.exit(0);
