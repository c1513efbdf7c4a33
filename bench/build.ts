// Build and template benchmark (`bun run bench:build`). One run measures, end to end over HTTP
// on loopback (enterprise, 1 worker), each case to its OOXML format and to PDF:
//   - a 10-page report (headings, paragraphs, a 200-row table) from svcscript;
//   - a 10,000-cell spreadsheet (1,000 rows × 10 columns) from svcscript;
//   - a 1,000-row template render (fixtures/templates/invoice.docx).
// The engine's share is the PDF time minus the OOXML-only time, over the PDF time: the OOXML is
// written in-process, the PDF adds one engine conversion of it.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BENCH_API_KEY as KEY, startBenchService } from "./service";
import { buildNative, prepareScript } from "../app/svcscript";
import { renderTemplate } from "../app/templates/render";
import { INVOICE_DATA as templateData, INVOICE_TEMPLATE, reportScript as report } from "./build-documents";

const REPS = Number(process.env.BENCH_REPS ?? 5);

function sheet() {
  const rows = [Array.from({ length: 10 }, (_, c) => `Cột ${c + 1}`), ...Array.from({ length: 999 }, (_, r) => Array.from({ length: 10 }, (_, c) => r * 10 + c))];
  return { type: "spreadsheet", properties: { title: "Dữ liệu" }, sheets: [{ name: "Data", rows, freeze: { rows: 1 } }] };
}

async function time<T>(fn: () => Promise<T>): Promise<number[]> {
  await fn(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return xs;
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const work = mkdtempSync(path.join(os.tmpdir(), "svc-bench-build-"));
const svc = await startBenchService(work, 1);
const auth = { Authorization: `Bearer ${KEY}` };

async function httpBuild(script: object, outputs: string[]) {
  const res = await fetch(`${svc.url}/v1/build`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ script: { ...script, outputs } }) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`build: ${res.status}`);
}

const invoice = new Uint8Array(await Bun.file(INVOICE_TEMPLATE).arrayBuffer());
async function httpRender(to: string) {
  const fd = new FormData();
  fd.append("file", new Blob([invoice]), "invoice.docx");
  fd.append("data", JSON.stringify(templateData));
  fd.append("to", to);
  const res = await fetch(`${svc.url}/v1/template/render`, { method: "POST", headers: auth, body: fd });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`render: ${res.status}`);
}

console.log(`svc build benchmark — ${new Date().toISOString()} — ${os.cpus()[0]?.model} × ${os.availableParallelism()}, bun ${Bun.version}, ${REPS} reps\n`);
console.log("| case | in-process OOXML | HTTP → OOXML | HTTP → PDF | engine share of PDF |");
console.log("|---|---|---|---|---|");
for (const [name, script, native] of [["10-page report (200-row table)", report(), "docx"], ["10,000-cell spreadsheet", sheet(), "xlsx"]] as const) {
  const inProcess = await time(async () => buildNative(prepareScript({ ...script, outputs: [native] }, 20_000)));
  const ooxml = await time(() => httpBuild(script, [native]));
  const pdf = await time(() => httpBuild(script, ["pdf"]));
  const share = (mean(pdf) - mean(ooxml)) / mean(pdf);
  console.log(`| ${name} | ${mean(inProcess).toFixed(0)} ms | ${mean(ooxml).toFixed(0)} ms | ${mean(pdf).toFixed(0)} ms | ${(share * 100).toFixed(0)} % |`);
}
const inProcessRender = await time(async () => renderTemplate(invoice, templateData, { missing: "empty" }));
const renderDocx = await time(() => httpRender("docx"));
const renderPdf = await time(() => httpRender("pdf"));
console.log(`| 1,000-row template render | ${mean(inProcessRender).toFixed(0)} ms | ${mean(renderDocx).toFixed(0)} ms | ${mean(renderPdf).toFixed(0)} ms | ${(((mean(renderPdf) - mean(renderDocx)) / mean(renderPdf)) * 100).toFixed(0)} % |`);

await svc.stop(5000);
rmSync(work, { recursive: true, force: true });
process.exit(0);
