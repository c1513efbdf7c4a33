// Starts the configured LibreOffice once, in a throw-away profile, and prints one JSON line: its
// name, version and origin, the LibreOfficeKit slots svc calls that it lacks, and why svc cannot
// drive it (null when it can). Run by the launcher at start and by `svc doctor`
// (app/engine-program.ts), with the same explicit environment as an engine.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { coreInfo, engineSource, missingSlots, missingUiModules, unsupportedReason } from "./engine-identity";
import { LokOffice, engineProgramDir, fileUrl } from "./lok";
import { engineEnvironment, writeProfileConfig } from "./profile";

const programDir = engineProgramDir();
const profileDir = mkdtempSync(join(tmpdir(), "svc-engine-probe-"));
const tempDir = join(profileDir, "tmp");
mkdirSync(tempDir, { recursive: true });
let answer: Record<string, unknown>;
try {
  writeProfileConfig(profileDir);
  const t0 = performance.now();
  const office = new LokOffice(fileUrl(profileDir), programDir, engineEnvironment(profileDir, tempDir, { spelling: false }));
  const startMs = Math.round(performance.now() - t0);
  const core = { ...coreInfo(office, programDir), source: engineSource(programDir) };
  // A new empty text document: the document table is only known from a document.
  const document = office.has("documentLoadWithOptions") ? office.documentLoad("private:factory/swriter") : null;
  const missing = missingSlots(office, document ?? undefined);
  answer = { ...core, programDir, startMs, missing, unsupported: document ? unsupportedReason(core, missing, missingUiModules(programDir)) : `it could not create a document: ${office.getError()}` };
} catch (err) {
  answer = { programDir, missing: [], unsupported: `it could not be started: ${String((err as Error)?.message ?? err)}` };
}
rmSync(profileDir, { recursive: true, force: true });
process.stdout.write(JSON.stringify(answer) + "\n");
// Without LibreOffice's destroy(), which can hang: nothing of this process is kept.
process.exit(0);
