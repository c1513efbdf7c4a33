// Which LibreOffice an engine process runs, and whether svc can drive it: its name and version
// (LibreOfficeKit's getVersionInfo), where it comes from (Debian's package or an operator's
// SVC_ENGINE_PROGRAM_DIR), and the LibreOfficeKit slots svc calls that its tables lack.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PROGRAM_DIR, REQUIRED_DOCUMENT_SLOTS, REQUIRED_OFFICE_SLOTS, type LokDocument, type LokOffice } from "./lok";
import type { CoreInfo } from "./protocol";

/** The oldest LibreOffice svc is tested with (Debian 12's own); older ones lack slots and fixes it relies on. */
export const MINIMUM_VERSION = [7, 4] as const;

/** Debian's package of the default program folder, e.g. "4:25.2.3-2+deb13u5~bpo12+1"; "" when not installed by dpkg. */
export function debianPackageVersion(programDir: string): string {
  if (programDir !== DEFAULT_PROGRAM_DIR) return "";
  for (const pkg of ["libreoffice-core", "libreoffice-core-nogui"]) {
    try {
      const r = Bun.spawnSync(["/usr/bin/dpkg-query", "-W", "-f=${Status} ${Version}", pkg], { stdout: "pipe", stderr: "ignore" });
      const m = /install ok installed (\S+)/.exec(r.stdout.toString());
      if (r.exitCode === 0 && m) return `${pkg} ${m[1]}`;
    } catch {
      // no dpkg: not a Debian machine
    }
  }
  return "";
}

const sources = new Map<string, string>();
/**
 * Where an engine comes from, for `core.source`: "debian:<package> <version> (<folder>)" for
 * Debian's package, else the folder. Asked by the parent process (the DocBuilder pool, the
 * probe), which may read dpkg's database; an engine, confined, may not (workers/confine.ts).
 */
export function engineSource(programDir: string): string {
  let s = sources.get(programDir);
  if (s === undefined) {
    const pkg = debianPackageVersion(programDir);
    s = pkg ? `debian:${pkg} (${programDir})` : programDir;
    sources.set(programDir, s);
  }
  return s;
}

/** The engine's name and version from LibreOfficeKit, and the folder it was loaded from (see engineSource). */
export function coreInfo(office: LokOffice, programDir: string): CoreInfo {
  let name = "LibreOffice", version = "";
  try {
    const vi = JSON.parse(office.getVersionInfo() ?? "{}");
    name = vi.ProductName ?? name;
    version = `${vi.ProductVersion ?? ""}${vi.ProductExtension ?? ""}`;
  } catch {
    // keep the defaults: an engine without getVersionInfo is refused by missingSlots anyway
  }
  return { name, version, source: programDir };
}

/** The slots svc needs that this office's (and, given one, this document's) tables lack. */
export function missingSlots(office: LokOffice, document?: LokDocument): string[] {
  return [
    ...REQUIRED_OFFICE_SLOTS.filter((s) => !office.has(s)).map((s) => `office.${s}`),
    ...(document ? REQUIRED_DOCUMENT_SLOTS.filter((s) => !document.has(s)).map((s) => `document.${s}`) : []),
  ];
}

/** Why svc cannot drive this engine, or null: a version older than MINIMUM_VERSION, missing slots. */
export function unsupportedReason(core: CoreInfo, missing: string[], missingUi: string[] = []): string | null {
  if (missing.length) return `its LibreOfficeKit lacks ${missing.join(", ")}`;
  if (missingUi.length) return `its UI descriptions are missing for ${missingUi.join(", ")}`;
  const m = /^(\d+)\.(\d+)/.exec(core.version);
  if (!m) return `its version could not be read (${JSON.stringify(core.version)})`;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < MINIMUM_VERSION[0] || (major === MINIMUM_VERSION[0] && minor < MINIMUM_VERSION[1])) {
    return `${core.name} ${core.version} is older than ${MINIMUM_VERSION.join(".")}`;
  }
  return null;
}

/**
 * The applications whose UI descriptions (share/config/soffice.cfg/modules/<name>) LibreOfficeKit
 * reads while loading and editing: without Writer's, a document with one comment does not load at
 * all, and no context menu opens. Debian ships them apart (libreoffice-uiconfig-*), and Writer's
 * is not a dependency of libreoffice-writer-nogui (the full libreoffice-writer brings it).
 */
const UI_MODULES = { swriter: "libreoffice-uiconfig-writer", scalc: "libreoffice-uiconfig-calc", simpress: "libreoffice-uiconfig-impress", sdraw: "libreoffice-uiconfig-draw" } as const;

/** The UI descriptions missing from this LibreOffice, as "<module> (<Debian package>)". */
export function missingUiModules(programDir: string): string[] {
  const modules = join(programDir, "..", "share", "config", "soffice.cfg", "modules");
  return Object.entries(UI_MODULES).filter(([m]) => !existsSync(join(modules, m))).map(([m, pkg]) => `${m} (${pkg})`);
}
