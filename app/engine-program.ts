// Which LibreOffice the engines run (SVC_ENGINE_PROGRAM_DIR, Debian's package by default), checked
// before the service says ready: a folder that is not a LibreOffice, a LibreOffice too old, or one
// whose LibreOfficeKit lacks a slot svc calls stops the start with a sentence naming what to fix,
// rather than every engine failing later one by one.

import { existsSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { childEnvironment } from "./child-env";

const PROBE_ENTRY = path.resolve(import.meta.dir, "../workers/engine-probe.ts");
/** A first start on a loaded 2-core machine took 8 s with 7.4 (0.5 s with 25.2). */
const PROBE_TIMEOUT_MS = 180_000;

export interface EngineProbe {
  name?: string;
  version?: string;
  source?: string;
  programDir: string;
  startMs?: number;
  /** LibreOfficeKit slots svc calls that this engine's tables lack. */
  missing: string[];
  /** Why svc cannot drive this engine; null when it can. */
  unsupported: string | null;
}

/** Starts the engine once in a throw-away profile (workers/engine-probe.ts) and reports what it is. */
export async function probeEngine(programDir: string, parentEnv: Record<string, string | undefined> = process.env): Promise<EngineProbe> {
  if (!existsSync(path.join(programDir, "libmergedlo.so"))) {
    return { programDir, missing: [], unsupported: `${programDir} holds no LibreOffice (libmergedlo.so is not there)` };
  }
  const r = await execa(process.execPath, [PROBE_ENTRY], {
    env: childEnvironment(parentEnv, { home: path.join(parentEnv.TMPDIR ?? "/tmp"), own: { SVC_ENGINE_PROGRAM_DIR: programDir } }),
    extendEnv: false,
    reject: false,
    timeout: PROBE_TIMEOUT_MS,
  });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as EngineProbe;
  } catch {
    return { programDir, missing: [], unsupported: `it could not be started (${r.timedOut ? "no answer within 180 s" : `exit ${r.exitCode}`}: ${r.stderr.trim().split("\n").slice(-2).join(" ")})` };
  }
}

/** One line for people: "LibreOffice 25.2.3.2 (debian:libreoffice-core 4:25.2.3-… (/usr/lib/libreoffice/program))". */
export function describeEngine(p: EngineProbe): string {
  return `${p.name ?? "LibreOffice"} ${p.version ?? "?"} (${p.source ?? p.programDir})`;
}
