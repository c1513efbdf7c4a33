// Every readable corpus file through the editor (`bun run bench:corpus-editor`): opened from a
// loopback WOPI host in the real editing server (protocol level, as a page drives it), two letters
// typed at the end, saved; per file the open and save times and the share of the original's words
// the stored version keeps (both texts extracted by DocBuilder), as app/edsrv/corpus-roundtrip.test.ts
// checks for two files of each type. Encrypted, empty, corrupt and mislabeled files are left out
// (MANIFEST.tsv notes). Knob: BENCH_CORPUS_FILTER (substrings of the path, comma-separated).
// Writes bench/out/corpus-editor-latest.json; which engine ran is printed (SVC_ENGINE_PROGRAM_DIR).

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../app/config";
import { createEdsrv } from "../app/edsrv/server";
import { lostWords, roundTrip, TYPED, words } from "../app/edsrv/testing/corpus-roundtrip";
import { startWopiHost } from "../app/edsrv/testing/wopi-host";
import { memoryLogger } from "../app/log";
import { AUTH, CORPUS, enterpriseEnv, form, startTestService } from "../app/testing/harness";
import { formatOf } from "../workers/formats";

const FILTERS = (process.env.BENCH_CORPUS_FILTER ?? "").split(",").map((s) => s.trim());
/** What the editor opens: the families LibreOffice edits (not PDF, not pictures). */
const EDITABLE = new Set(["text", "spreadsheet", "presentation"]);
const entries = readFileSync(path.join(CORPUS, "MANIFEST.tsv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((l) => l.split("\t"))
  .map((c) => ({ rel: c[0]!, format: c[1]!, bytes: Number(c[2]), notes: (c[8] ?? "").toLowerCase() }))
  .filter((e) => e.bytes > 1 && !/^(encrypted|corrupt|mislabeled)/.test(e.notes) && !e.notes.includes("0 bytes"))
  .filter((e) => EDITABLE.has(formatOf(e.format)?.family ?? ""))
  .filter((e) => FILTERS.some((f) => e.rel.includes(f)));

const host = startWopiHost();
host.addToken("tok_bench", "u1", true, "Alice");
const [svc, ed] = await Promise.all([
  startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() }),
  createEdsrv({
    config: parseConfig({ ...process.env, SVC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "bench-corpus-editor-")), SVC_ONLINE_ALIASGROUP1: host.origin }),
    logger: memoryLogger("warn"),
    listen: { hostname: "127.0.0.1", port: 0 },
    idleKits: 2,
    autosaveSeconds: 0,
  }),
]);
const status = (await (await fetch(`${svc.url}/v1/status`)).json()) as { core: { name: string; version: string; source: string } };
// The editor's kits run SVC_ENGINE_PROGRAM_DIR's engine; the texts compared are extracted by Debian's in DocBuilder (the same for every run).
const kitEngine = process.env.SVC_ENGINE_PROGRAM_DIR ?? "/usr/lib/libreoffice/program";
console.log(`kits: ${kitEngine}; text extracted by ${status.core.name} ${status.core.version}; ${entries.length} files`);

async function extractText(name: string, bytes: Uint8Array): Promise<string> {
  const res = await fetch(`${svc.url}/v1/extract/text`, { method: "POST", headers: AUTH, body: form({ bytes, name }) });
  const body = (await res.json()) as { text?: string; error?: unknown };
  if (res.status !== 200) throw new Error(`extract: ${res.status} ${JSON.stringify(body.error)}`);
  return body.text!;
}

interface Row { file: string; ok: boolean; openMs?: number; saveMs?: number; kept?: number; words?: number; typed?: boolean; error?: string }
const rows: Row[] = [];
let seq = 0;
const t0 = performance.now();
for (const e of entries) {
  const original = new Uint8Array(readFileSync(path.join(CORPUS, e.rel)));
  try {
    const rt = await Promise.race([
      roundTrip({ edsrvUrl: ed.url, origin: `http://${new URL(ed.url).host}`, host, token: "tok_bench" }, `b${++seq}`, path.basename(e.rel), original),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no result within 120 s")), 120_000)),
    ]);
    const [before, after] = await Promise.all([extractText(path.basename(e.rel), original), extractText(path.basename(e.rel), rt.stored)]);
    const ow = words(before), sw = words(after);
    const kept = 1 - lostWords(ow, sw).length / Math.max(1, ow.length);
    rows.push({ file: e.rel, ok: true, openMs: Math.round(rt.openMs), saveMs: Math.round(rt.saveMs), kept, words: ow.length, typed: sw.includes(TYPED) });
  } catch (err) {
    rows.push({ file: e.rel, ok: false, error: String((err as Error).message).slice(0, 200) });
  }
  const r = rows[rows.length - 1]!;
  console.log(r.ok ? `${r.file}: open ${r.openMs} ms, save ${r.saveMs} ms, ${(r.kept! * 100).toFixed(1)} % of ${r.words} words kept${r.typed ? "" : ", TYPED LETTERS MISSING"}` : `${r.file}: FAILED ${r.error}`);
}
const ok = rows.filter((r) => r.ok);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const summary = {
  kits: kitEngine,
  extractor: status.core,
  files: rows.length,
  opened_and_saved: ok.length,
  failed: rows.filter((r) => !r.ok).map((r) => `${r.file}: ${r.error}`),
  typed_missing: ok.filter((r) => !r.typed).map((r) => r.file),
  kept_all: ok.filter((r) => r.kept === 1).length,
  kept_below_99: ok.filter((r) => r.kept! < 0.99).map((r) => `${r.file} ${(r.kept! * 100).toFixed(1)} %`),
  kept_mean: ok.reduce((a, r) => a + r.kept!, 0) / Math.max(1, ok.length),
  open_ms_median: median(ok.map((r) => r.openMs!)),
  save_ms_median: median(ok.map((r) => r.saveMs!)),
  seconds: Math.round((performance.now() - t0) / 1000),
};
console.log(JSON.stringify(summary, null, 2));
mkdirSync(path.join(import.meta.dir, "out"), { recursive: true });
writeFileSync(path.join(import.meta.dir, "out", "corpus-editor-latest.json"), JSON.stringify({ summary, rows }, null, 2));
await ed.close();
host.stop();
await svc.close();
process.exit(0);
