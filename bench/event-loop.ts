// How long the event loop of the gate+DocBuilder process waits while DocBuilder works in that
// process (`bun run bench:event-loop`): a 1,000-row template filled, a 10-page report built, and
// the zip guard judging the corpus's largest XML (59 MB in a 2.2 MB ods), each run here on the
// event loop (the baseline: how 1.5.0 ran them) and as the service runs them, on a thread of their
// own (app/thread-calls.ts). For each: the time it takes and the longest the loop waited meanwhile
// (a timer ticking every millisecond), medians of BENCH_REPS (7) after ten warm-ups.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildOffThread, renderOffThread, startBuildThread } from "../app/docbuilder/build-thread";
import { buildNative, prepareScript } from "../app/svcscript";
import { renderTemplate } from "../app/templates/render";
import { checkPart, checkPartOffThread } from "../app/zip-part-check";
import { zipEntries } from "../app/zip-guard";
import { INVOICE_DATA, INVOICE_TEMPLATE, reportScript } from "./build-documents";

const REPS = Number(process.env.BENCH_REPS ?? 7);
const ROOT = path.resolve(import.meta.dir, "..");

const invoice = new Uint8Array(readFileSync(INVOICE_TEMPLATE));
const report = prepareScript({ ...reportScript(), outputs: ["docx"] }, 20_000);

// The ods's content.xml, as the guard finds it in the package.
const odsFile = path.resolve(ROOT, "../shared/corpus/ods/lo_large_data_formula_chart.ods");
const ods = readFileSync(odsFile);
const content = (await zipEntries(odsFile))!.find((e) => e.name === "content.xml")!;
const at = content.localOffset;
const start = at + 30 + ods.readUInt16LE(at + 26) + ods.readUInt16LE(at + 28);
const raw = ods.subarray(start, start + content.compressedSize);

/** The work's time and the longest gap between two ticks of a 1 ms timer while it ran. */
async function measured(work: () => Promise<unknown> | unknown): Promise<{ ms: number; gap: number }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  await Bun.sleep(5);
  last = performance.now();
  gap = 0;
  const t = performance.now();
  await work();
  const ms = performance.now() - t;
  await Bun.sleep(3); // a tick pending at the end counts the wait up to it
  clearInterval(timer);
  return { ms, gap: Math.max(gap, performance.now() - last - 3) };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await startBuildThread();
console.log(`svc event-loop benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}, ${REPS} reps\n`);
console.log("| work | on the event loop: time / longest wait | on its thread: time / longest wait |");
console.log("|---|---|---|");
const cases: [string, () => unknown, () => Promise<unknown>][] = [
  // The loop's own longest wait on this machine, for reference: nothing to do but wait 100 ms.
  ["nothing (100 ms asleep)", () => Bun.sleep(100), () => Bun.sleep(100)],
  ["1,000-row template filled", () => renderTemplate(invoice, INVOICE_DATA, { missing: "empty" }), () => renderOffThread(invoice, INVOICE_DATA, { missing: "empty" })],
  ["10-page report built (docx)", () => buildNative(report), () => buildOffThread(report)],
  ["zip guard: 59 MB content.xml of a 2.2 MB ods", () => checkPart(raw, content.uncompressedSize, "content.xml", true), () => checkPartOffThread(raw, content.uncompressedSize, "content.xml", true)],
];
for (const [name, here, there] of cases) {
  const runs = { here: [] as { ms: number; gap: number }[], there: [] as { ms: number; gap: number }[] };
  // Each thread compiles its own code: both warmed alike before measuring.
  for (let i = 0; i < 10; i++) {
    await here();
    await there();
  }
  for (let i = 0; i < REPS; i++) {
    runs.here.push(await measured(here));
    runs.there.push(await measured(there));
  }
  const f = (rs: { ms: number; gap: number }[]) => `${median(rs.map((r) => r.ms)).toFixed(0)} ms / ${median(rs.map((r) => r.gap)).toFixed(1)} ms`;
  console.log(`| ${name} | ${f(runs.here)} | ${f(runs.there)} |`);
}
process.exit(0);
