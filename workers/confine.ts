// What an engine process may read from the disk. LibreOffice reads a picture or a stylesheet that a
// document names by a file: URL or a path (a docx's linked picture, an odt's draw:image, an HTML
// page's <link>), whatever the path: select all + copy in the editor handed the bytes of such a
// picture, read from the server's disk, back to the person. The network side is closed by the
// profile (workers/profile.ts); links cannot be rewritten away, because a link to "C:\Users\…" is
// the person's data and must survive a save. So the kernel refuses the read instead: a Landlock
// ruleset (Linux 5.13+) lets the engine's threads read files only beneath the folders an office
// engine needs (the system's, its own profile, the documents it is handed) and nowhere else,
// in particular not the rest of the data directory or anyone's home. A refused read is a missing
// file to LibreOffice: the link stays, a placeholder is painted.
//
// Landlock applies to the thread that asks and to threads and processes it starts afterwards;
// called before LibreOffice starts, it covers every LibreOffice thread and every call into it.
// Only reading files is restricted (not listing, writing or executing): the threat is content
// leaving the machine through a document.

import { dlopen, ptr } from "bun:ffi";
import { closeSync, existsSync, mkdirSync, openSync, realpathSync, constants as fsConstants } from "node:fs";
import os from "node:os";
import path from "node:path";

const SYS_LANDLOCK_CREATE_RULESET = 444;
const SYS_LANDLOCK_ADD_RULE = 445;
const SYS_LANDLOCK_RESTRICT_SELF = 446;
const SYS_PRCTL = 157;
const PR_SET_NO_NEW_PRIVS = 38;
const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const LANDLOCK_ACCESS_FS_READ_FILE = 1n << 2n;
const LANDLOCK_ACCESS_FS_READ_DIR = 1n << 3n;

/**
 * What every engine reads of the system, measured with strace on kits and workers loading, painting,
 * typing into and saving documents of the three families. Folders: the installed programs and
 * libraries (/usr, /lib, /lib64: Debian's packages, LibreOffice's program and share folders,
 * fonts, dictionaries, the time zones), fontconfig's and LibreOffice's configuration, the kernel's
 * view of this process only (/proc/self, bound to the engine's own pid when the rule is made: no
 * other process's environment or memory), and the CPU and memory limits. Files: the few of /etc
 * the C library and LibreOffice read, and the devices they open. Not /etc as a whole (its
 * passwd, its keys), not /proc or /sys as a whole, not /opt, not any user's home.
 */
const SYSTEM_FOLDERS = [
  "/usr", "/lib", "/lib64", "/etc/fonts", "/etc/libreoffice", "/var/cache/fontconfig",
  "/proc/self", "/proc/sys/vm", "/sys/devices/system/cpu", "/sys/fs/cgroup", "/sys/kernel/mm/transparent_hugepage",
];
const SYSTEM_FILES = [
  "/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf", "/etc/papersize",
  "/etc/locale.alias", "/proc/filesystems", "/proc/meminfo", "/proc/cpuinfo", "/proc/stat",
  "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
];

/** The user's own font folders and fontconfig cache, which fontconfig reads when they exist. */
function userFontFolders(): string[] {
  const home = os.homedir();
  const cache = process.env.XDG_CACHE_HOME || path.join(home, ".cache");
  const config = process.env.XDG_CONFIG_HOME || path.join(home, ".config");
  const data = process.env.XDG_DATA_HOME || path.join(home, ".local", "share");
  return [path.join(cache, "fontconfig"), path.join(config, "fontconfig"), path.join(data, "fonts"), path.join(home, ".fonts")];
}

export interface Confinement {
  /** "landlock" when the kernel enforces it; otherwise why it could not be set up. */
  state: "landlock" | "unavailable";
  reason?: string;
  /** The folders beneath which files may be read. */
  readable: string[];
}

let libc: ReturnType<typeof openLibc> | null = null;
function openLibc() {
  return dlopen("libc.so.6", {
    syscall: { args: ["i64", "i64", "i64", "i64", "i64", "i64"], returns: "i64" },
  });
}

/**
 * Lets this thread, and every thread and process it starts from now on, read files and list folders
 * only beneath `own` (the engine's profile, its own document folder, the program's own files) and
 * the system's folders, and read the system's few named files. Never throws: on a kernel without
 * Landlock (or a container that forbids it) the engine runs unconfined and the answer says why.
 */
export function confineReads(own: string[], ownFiles: string[] = []): Confinement {
  const folders = [...new Set([...SYSTEM_FOLDERS, ...userFontFolders(), ...own.map((p) => path.resolve(p))])].filter((p) => existsSync(p));
  const files = [...new Set([...SYSTEM_FILES, ...ownFiles.map((p) => path.resolve(p))])].filter((p) => existsSync(p));
  const readable = [...folders, ...files];
  if (process.platform !== "linux" || process.arch !== "x64") return { state: "unavailable", reason: `${process.platform}/${process.arch}`, readable };
  try {
    libc ??= openLibc();
    const call = (n: number, a = 0n, b = 0n, c = 0n, d = 0n, e = 0n) => Number(libc!.symbols.syscall(n, a, b, c, d, e));
    const abi = call(SYS_LANDLOCK_CREATE_RULESET, 0n, 0n, BigInt(LANDLOCK_CREATE_RULESET_VERSION));
    if (abi < 1) return { state: "unavailable", reason: "the kernel has no Landlock (or it is turned off)", readable };
    // struct landlock_ruleset_attr, its first field only (handled_access_fs): valid for every ABI.
    const attr = new BigUint64Array([LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR]);
    const ruleset = call(SYS_LANDLOCK_CREATE_RULESET, BigInt(ptrOf(attr)), 8n, 0n);
    if (ruleset < 0) return { state: "unavailable", reason: "landlock_create_ruleset refused", readable };
    try {
      // A folder's rule covers reading its files and listing it; a file's, reading it (the kernel takes no folder right on a file).
      const rules: [string, bigint][] = [
        ...folders.map((p): [string, bigint] => [p, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR]),
        ...files.map((p): [string, bigint] => [p, LANDLOCK_ACCESS_FS_READ_FILE]),
      ];
      for (const [target, access] of rules) {
        const fd = openSync(target, fsConstants.O_RDONLY);
        try {
          // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } (packed, 12 bytes).
          const rule = new DataView(new ArrayBuffer(12));
          rule.setBigUint64(0, access, true);
          rule.setInt32(8, fd, true);
          if (call(SYS_LANDLOCK_ADD_RULE, BigInt(ruleset), BigInt(LANDLOCK_RULE_PATH_BENEATH), BigInt(ptrOf(new Uint8Array(rule.buffer))), 0n) < 0) {
            return { state: "unavailable", reason: `landlock_add_rule refused for ${target}`, readable };
          }
        } finally {
          closeSync(fd);
        }
      }
      if (call(SYS_PRCTL, BigInt(PR_SET_NO_NEW_PRIVS), 1n) < 0) return { state: "unavailable", reason: "prctl(PR_SET_NO_NEW_PRIVS) refused", readable };
      if (call(SYS_LANDLOCK_RESTRICT_SELF, BigInt(ruleset), 0n) < 0) return { state: "unavailable", reason: "landlock_restrict_self refused", readable };
    } finally {
      closeSync(ruleset);
    }
    return { state: "landlock", readable };
  } catch (err) {
    return { state: "unavailable", reason: String((err as Error)?.message ?? err), readable };
  }
}

/** The address of a typed array's bytes (kept alive by the caller for the call). */
const ptrOf = (view: BigUint64Array | Uint8Array): number => Number(ptr(view));

/**
 * The engine process's confinement, from its entry file before LibreOffice starts: its profile,
 * the folders its parent names in SVC_ENGINE_READABLE (the documents it will be handed), the
 * program's own files and Bun's. Logged either way, a warning when the kernel cannot enforce it.
 */
/** The environment an engine process is started with to name the folders of the files it will be handed. */
export function engineReadableEnv(folders: string[] = []): { SVC_ENGINE_READABLE: string } {
  return { SVC_ENGINE_READABLE: folders.join(path.delimiter) };
}

/** The installation folder of the LibreOffice this engine runs, when it is not Debian's (already readable beneath /usr). */
function officeInstallation(): string | null {
  const programDir = process.env.SVC_ENGINE_PROGRAM_DIR;
  if (!programDir) return null;
  try {
    const root = path.dirname(realpathSync(programDir));
    return root.startsWith("/usr/") ? null : root;
  } catch {
    return null;
  }
}

export function confineEngineProcess(profileDir: string, log: (level: "info" | "warn", event: string, fields: Record<string, unknown>) => void): Confinement {
  const handed = (process.env.SVC_ENGINE_READABLE ?? "").split(path.delimiter).filter(Boolean);
  // A rule needs the folder to exist, and binds the folder that exists then: the parent must not
  // replace it afterwards (the job store empties its folder before the workers start).
  for (const dir of [profileDir, ...handed]) mkdirSync(dir, { recursive: true });
  // Bun compiles the engine's small C helpers (workers/lok.ts) from files it writes to the
  // temporary folder and reads back: that folder is the engine's own, as LibreOffice's is.
  process.env.TMPDIR = path.join(profileDir, "tmp");
  mkdirSync(process.env.TMPDIR, { recursive: true });
  // The program's own files, not the repository as a whole: the data directory may be inside it (.svc-data).
  const program = path.resolve(import.meta.dir, "..");
  const programFolders = ["workers", "app", "node_modules"].map((p) => path.join(program, p));
  const programFiles = ["package.json", "tsconfig.json", "bunfig.toml"].map((p) => path.join(program, p));
  // LibreOffice itself: Debian's is beneath /usr; another one (SVC_ENGINE_PROGRAM_DIR) is read
  // beneath its installation folder, the parent of its program folder (Collabora's /opt/collaboraoffice).
  const office = officeInstallation();
  const confinement = confineReads([profileDir, ...handed, ...programFolders, path.dirname(process.execPath), ...(office ? [office] : [])], programFiles);
  if (confinement.state === "landlock") log("info", "engine_reads_confined", { readable: confinement.readable });
  else log("warn", "engine_reads_unconfined", { reason: confinement.reason, hint: "Linux 5.13+ with Landlock enabled confines what LibreOffice may read (a document's linked local pictures)" });
  return confinement;
}
