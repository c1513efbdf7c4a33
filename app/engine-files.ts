// Files crossing an engine's own folder (workers/confine.ts: an engine may read no other folder of
// the data directory): what it is to load is handed in, what it writes is moved out once complete.
// Shared by the editing server's kits and DocBuilder's workers.
import { copyFileSync, linkSync, mkdirSync, renameSync, unlinkSync } from "node:fs";

/** `from` at `to` too: a hard link (no bytes copied), or a copy when they are on different file systems. */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
  }
}

/** Moves a finished file to where it was asked for: a rename, or a copy across file systems. */
export function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
  }
}

/** Unlinks a file; one that is gone already, or cannot be unlinked (a folder), is left to the caller's sweep. */
export function unlinkIfPossible(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone, or not a file: the caller's sweep
  }
}

/**
 * A folder whose parent exists (made at start): a plain mkdir, a tenth of a recursive one's cost,
 * which looks at every folder on the way (issue 47's profile: mkdir was the service's largest own
 * cost per small conversion); recursive only when the parent is gone.
 */
export function makeDir(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw e;
    mkdirSync(dir, { recursive: true });
  }
}
