// The engine's start: its private LibreOffice profile (settings pinned before start), its
// environment, and the options every load passes. Shared by DocBuilder workers and editing kits.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileUrl } from "./lok";

/** Options given to every documentLoadWithOptions. Batch=true: dialogs are cancelled, not awaited. */
export const LOAD_OPTIONS = "Batch=true,MacroSecurityLevel=3";

/** [path, property, type, value] written into the profile's registrymodifications.xcu before start. */
export const PROFILE_SETTINGS: ReadonlyArray<readonly [string, string, "boolean" | "int", string]> = [
  // Macros: highest security level, execution disabled altogether.
  ["/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"],
  ["/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "boolean", "true"],
  // Do not fetch links referred to by untrusted documents (remote images etc.).
  ["/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "boolean", "true"],
  // Link updates on load: never. Writer: 0 never, 1 on request (default), 2 always.
  // Calc (ScLkUpdMode): 0 always, 1 never, 2 on request (default).
  ["/org.openoffice.Office.Writer/Content/Update", "Link", "int", "0"],
  ["/org.openoffice.Office.Calc/Content/Update", "Link", "int", "1"],
  // Formulas are not recalculated on load (1 = never; 2 would prompt).
  ["/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "int", "1"],
  ["/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "int", "1"],
  // No lock files (.~lock.*#) at all, no first-start wizard, tips, crash reporter, update checks,
  // autosave or recovery data.
  ["/org.openoffice.Office.Common/Misc", "UseLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentOOoLockFile", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "UseDocumentSystemFileLocking", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "FirstRun", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "boolean", "false"],
  ["/org.openoffice.Office.Common/Misc", "CrashReport", "boolean", "false"],
  ["/org.openoffice.Setup/Office", "ooSetupInstCompleted", "boolean", "true"],
  ["/org.openoffice.Office.Update/Update", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Recovery/AutoSave", "Enabled", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "AutoSave", "boolean", "false"],
  ["/org.openoffice.Office.Common/Save/Document", "CreateBackup", "boolean", "false"],
];

/**
 * The environment LibreOffice starts with: everything it writes stays inside this engine's profile.
 *
 * Why UNO_SHARED_PACKAGES_CACHE: LibreOffice keeps "shared" extensions (installed for every user
 * of the machine) in <install>/share/uno_packages/cache, on Debian /var/spool/libreoffice/…, and
 * every start checks it. Run as root (a fresh machine's `npm run start`) that directory is
 * writable, so the first engine ever started on the machine creates uno_packages/ in it, by a
 * check-then-create that throws (WrappedTargetRuntimeException, the process exits 1) when another
 * engine created the folder in between. Engines start together (the pool's workers, the editing
 * server's kits), so on a new machine one of them died before ready (`worker_exited …
 * ever_ready:false`) and only its restart worked, the folder existing by then. Reproduced with an
 * empty shared cache in a private mount namespace and mkdir delayed by strace: 2 of 3 engines
 * exited. Each engine now has its own (empty) shared repository inside its profile: nothing is
 * shared between engines, and the machine's LibreOffice installation is never written.
 */
export function engineEnvironment(profileDir: string, tempDir: string): Record<string, string> {
  return {
    TMPDIR: tempDir,
    UNO_SHARED_PACKAGES_CACHE: fileUrl(join(profileDir, "shared-extensions")),
    // Under LibreOfficeKit only the languages listed here get spell checking (none when unset:
    // "No language allowlisted, turning off the language support"): the dictionaries setup installs.
    LOK_ALLOWLIST_LANGUAGES: SPELLING_LANGUAGES,
  };
}

/** The languages whose hunspell dictionaries setup installs (Debian's hunspell-en-us and hunspell-vi). */
export const SPELLING_LANGUAGES = "en_US vi_VN";

function xcuItem(path: string, name: string, value: string): string {
  return `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`;
}

/**
 * Writes (or merges into) <profileDir>/user/registrymodifications.xcu. Existing entries written by
 * LibreOffice itself are kept (so a restart on an existing profile stays fast); ours replace any
 * entry for the same path and property.
 */
export function writeProfileConfig(profileDir: string): string {
  const userDir = join(profileDir, "user");
  mkdirSync(userDir, { recursive: true });
  const file = join(userDir, "registrymodifications.xcu");
  const ours = new Set(PROFILE_SETTINGS.map(([p, n]) => `${p}\u0000${n}`));
  let kept: string[] = [];
  if (existsSync(file)) {
    const old = readFileSync(file, "utf8");
    kept = old
      .split("\n")
      .filter((l) => l.startsWith("<item "))
      .filter((l) => {
        const m = /^<item oor:path="([^"]*)"><prop oor:name="([^"]*)"/.exec(l);
        return !(m && ours.has(`${m[1]}\u0000${m[2]}`));
      });
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n` +
    [...kept, ...PROFILE_SETTINGS.map(([p, n, , v]) => xcuItem(p, n, v))].join("\n") +
    `\n</oor:items>\n`;
  writeFileSync(file, xml);
  return file;
}
