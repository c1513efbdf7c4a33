// The engine's floor for bench:corpus, in a process of its own started as a DocBuilder worker is
// (its own profile as working directory, the same confinement, LibreOffice started with the same
// environment as workers/engine.ts starts it), so that the floor and the worker differ only in
// what the service adds: the floor is LibreOfficeKit's load + save + close of a file and nothing
// else (no sniffing, no private copy, no page count), timed here around those three calls.
//
//   FLOOR_PROFILE_DIR=… SVC_ENGINE_READABLE=<folder of the files> bun bench/corpus-floor-engine.ts
//
// Requests on stdin, one JSON line each: {"input": "/abs/file", "output": "/abs/out.pdf", "to": "pdf"};
// replies on file descriptor 3: {"ms": 41.2, "savedMs": 35.0} (load + save + close, and load + save
// alone: the service answers once the output is saved, and closes the document after) or
// {"error": "…"}; {"ready": true} once started.

import { mkdirSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import path from "node:path";
import { confineEngineProcess } from "../workers/confine";
import { LokOffice, engineProgramDir, fileUrl } from "../workers/lok";
import { LOAD_OPTIONS, engineEnvironment, writeProfileConfig } from "../workers/profile";
import { sendLine } from "../workers/reply";
import { copyWarmDocuments } from "../workers/warm-documents";

const profileDir = process.env.FLOOR_PROFILE_DIR;
if (!profileDir) throw new Error("FLOOR_PROFILE_DIR is required");
mkdirSync(profileDir, { recursive: true });
const warmDir = path.join(profileDir, "warm");
mkdirSync(warmDir, { recursive: true });
const warmCopies = copyWarmDocuments(warmDir);
confineEngineProcess(profileDir, () => {});
writeProfileConfig(profileDir);
const tempDir = path.join(profileDir, "tmp");
mkdirSync(tempDir, { recursive: true });
// As workers/engine.ts starts it, less the password callback: once a callback has been registered,
// a CSV opens LibreOffice's import dialog, the load fails, and every later load is slower.
const office = new LokOffice(fileUrl(profileDir), engineProgramDir(), engineEnvironment(profileDir, tempDir, { spelling: false }));
// Warmed as a worker is before it says ready (workers/worker-main.ts): a document of each family to PDF.
for (const copy of warmCopies) {
  const doc = office.documentLoad(fileUrl(copy), LOAD_OPTIONS);
  doc?.saveAs(fileUrl(path.join(warmDir, "out.pdf")), "pdf", "");
  doc?.destroy();
}
rmSync(warmDir, { recursive: true, force: true });
sendLine({ ready: true });

createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false })
  .on("line", (line) => {
    const { input, output, to } = JSON.parse(line) as { input: string; output: string; to: string };
    rmSync(output, { force: true }); // as the worker does: LibreOffice saving over a file costs more
    const t = performance.now();
    const doc = office.documentLoad(fileUrl(input), LOAD_OPTIONS);
    if (!doc) return sendLine({ error: `load failed: ${office.getError()}` });
    const saved = doc.saveAs(fileUrl(output), to, to === "txt" ? "UTF8" : "");
    const savedMs = performance.now() - t;
    doc.destroy();
    sendLine(saved ? { ms: performance.now() - t, savedMs } : { error: `save failed: ${office.getError()}` });
  })
  .on("close", () => process.exit(0));
