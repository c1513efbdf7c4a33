// What the engines need on this machine: LibreOffice, fonts and the spelling dictionaries.

import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describeEngine, probeEngine } from "../engine-program";
import { MINIMUM_VERSION } from "../../workers/engine-identity";
import { DEFAULT_PROGRAM_DIR } from "../../workers/lok";
import { fail, ok, warn, type Finding } from "./types";

export interface HostPaths {
  libreoffice: string;
  fonts: string[];
  dictionaries: string;
}

export const DEFAULT_HOST_PATHS: HostPaths = {
  libreoffice: DEFAULT_PROGRAM_DIR,
  fonts: ["/usr/share/fonts"],
  dictionaries: "/usr/share/hunspell",
};

function fontFiles(dir: string, found: string[] = [], depth = 0): string[] {
  // Every file is listed (Noto alone is hundreds): a cap on the count hid the families read after it.
  if (depth > 4 || found.length > 20_000) return found;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) fontFiles(p, found, depth + 1);
    else if (/\.(ttf|otf|ttc)$/i.test(e.name)) found.push(e.name);
  }
  return found;
}

export function checkHost(p: HostPaths = DEFAULT_HOST_PATHS): Finding[] {
  const out: Finding[] = [];
  const lok = path.join(p.libreoffice, "libmergedlo.so");
  out.push(
    existsSync(lok)
      ? ok("host.libreoffice", `LibreOffice found (${lok}).`)
      : fail("host.libreoffice", `LibreOffice is missing (${lok} not found): no conversion and no editing.`, "Install LibreOffice 25.2 from bookworm-backports (npm run start does it), or point SVC_ENGINE_PROGRAM_DIR at a LibreOffice program folder."),
  );
  const fonts = p.fonts.flatMap((d) => fontFiles(d));
  const need = [
    ["DejaVu", "fonts-dejavu-core"],
    ["Liberation", "fonts-liberation2"],
    ["Noto", "fonts-noto-core"],
  ] as const;
  const missing = need.filter(([name]) => !fonts.some((f) => f.toLowerCase().includes(name.toLowerCase())));
  if (!fonts.length) out.push(fail("host.fonts", "No font is installed: documents render with missing glyphs.", "Install fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-noto-cjk."));
  else if (missing.length) out.push(warn("host.fonts", `Fonts missing: ${missing.map((m) => m[0]).join(", ")} (layout differs from Office documents).`, `Install ${missing.map((m) => m[1]).join(" ")}.`));
  else out.push(ok("host.fonts", `${fonts.length} font files, DejaVu, Liberation and Noto among them.`));
  const dicts = ["vi_VN", "en_US"].filter((d) => !existsSync(path.join(p.dictionaries, `${d}.dic`)));
  out.push(
    dicts.length
      ? warn("host.dictionaries", `Spelling dictionaries missing: ${dicts.join(", ")} (no red underlines in those languages).`, `Install ${dicts.map((d) => (d === "vi_VN" ? "hunspell-vi" : "hunspell-en-us")).join(" ")}.`)
      : ok("host.dictionaries", "Spelling dictionaries vi_VN and en_US are installed."),
  );
  return out;
}

/** Which LibreOffice the engines run (SVC_ENGINE_PROGRAM_DIR), started once: its version, and whether svc can drive it. */
export async function checkEngine(programDir: string): Promise<Finding> {
  const probe = await probeEngine(programDir);
  return probe.unsupported
    ? fail("host.engine", `The engines cannot run the LibreOffice in ${programDir}: ${probe.unsupported}.`, `Point SVC_ENGINE_PROGRAM_DIR at a LibreOffice ${MINIMUM_VERSION.join(".")} or newer, or unset it for Debian's package.`)
    : ok("host.engine", `The engines run ${describeEngine(probe)}.`);
}
