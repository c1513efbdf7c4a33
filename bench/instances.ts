// DocBuilder on several instances (`bun run bench:instances`, issue 36): the throughput of two
// DocBuilder-only instances behind real Caddy (the repository's Caddyfile: least_conn over the
// instances answering their health check) against one, in the same run, on this machine.
//
//   A. one instance, one worker, through Caddy: the baseline;
//   B. two instances, one worker each, through Caddy: what adding an instance gives;
//   C. one instance with two workers, through Caddy: the same engines in one process.
//
// Each batch converts BENCH_BATCH files (60; hello.docx, .xlsx and .pptx in turn, as `bun run
// bench`) to PDF keeping two requests in flight per worker. On one machine B and C share its cores:
// B ÷ A shows what a second instance gives where there are cores for it, and B ÷ C what running
// engines as instances costs against workers of one instance (the proxy's choice, two processes).

import os from "node:os";
import path from "node:path";
import { readFileSync } from "node:fs";
import { startCaddy } from "../caddy/testing";
import { instancePorts, startDocBuilderInstance, type DocBuilderInstance } from "../app/testing/docbuilder-instance";
import { AUTH } from "../app/testing/harness";

const ROOT = path.resolve(import.meta.dir, "..");
const FILES = ["hello.docx", "hello.xlsx", "hello.pptx"].map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(path.join(ROOT, "fixtures", f))) }));
const BATCH = Number(process.env.BENCH_BATCH ?? 60);

async function convert(base: string, file: { name: string; bytes: Uint8Array<ArrayBuffer> }): Promise<void> {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([file.bytes]), file.name);
  const res = await fetch(`${base}/v1/convert`, { method: "POST", headers: AUTH, body: fd });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${file.name}: ${res.status}`);
}

/** Converts `files` files keeping `inFlight` requests in flight; files per second. */
async function batch(base: string, inFlight: number, files = BATCH): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < files) await convert(base, FILES[next++ % FILES.length]!);
    }),
  );
  return files / ((performance.now() - t) / 1000);
}

/** Starts `instances` DocBuilder-only processes of `workers` workers each behind Caddy; files/s of a batch. */
async function measure(instances: number, workers: number): Promise<number> {
  const { prefix, ports } = await instancePorts(instances);
  const started: DocBuilderInstance[] = await Promise.all(ports.map((p, i) => startDocBuilderInstance(i + 1, p, workers)));
  const caddy = await startCaddy({
    app: `127.0.0.1:${ports[0]}`,
    edsrv: "127.0.0.1:9",
    docbuilders: ports.map((p) => `127.0.0.1:${p}`).join(" "),
    docbuilderOwner: `127.0.0.1:${prefix}{re.owner.tag}`,
  });
  try {
    // Warm every worker (their first conversions load LibreOffice's filters).
    await batch(caddy.url, instances * workers * 2, instances * workers * 3);
    return await batch(caddy.url, instances * workers * 2);
  } finally {
    await caddy.stop();
    await Promise.all(started.map((s) => s.stop()));
  }
}

const cores = os.availableParallelism();
console.log(`svc DocBuilder instances benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model.trim()} × ${cores}, bun ${Bun.version}, batch ${BATCH} files through Caddy`);
const a = await measure(1, 1);
console.log(`A. 1 instance × 1 worker:  ${a.toFixed(2)} files/s`);
const b = await measure(2, 1);
console.log(`B. 2 instances × 1 worker: ${b.toFixed(2)} files/s = ${(b / a).toFixed(2)}× A`);
const c = await measure(1, 2);
console.log(`C. 1 instance × 2 workers: ${c.toFixed(2)} files/s = ${(c / a).toFixed(2)}× A; B ÷ C = ${(b / c).toFixed(2)}`);
console.log(`per core (${cores} cores): ${(Math.max(b, c) / cores).toFixed(2)} files/s with every core converting`);
console.log(JSON.stringify({ a, b, c, cores, batch: BATCH }));
