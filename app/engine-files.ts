// Files crossing an engine's own folder (workers/confine.ts: an engine may read no other folder of
// the data directory): what it is to load is handed in, what it writes is moved out once complete.
// Shared by the editing server's kits and DocBuilder's workers.
import { copyFileSync, linkSync, renameSync } from "node:fs";

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
