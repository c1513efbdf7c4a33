// The data directory (SVC_DATA_DIR): writable, with free space. The write is a real one (a probe
// file created, flushed and removed); a refusal is named with the service's own words for it
// (app/disk-errors.ts: full or read-only).

import { closeSync, fsyncSync, mkdirSync, openSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { diskProblem } from "../disk-errors";
import { fail, ok, type Finding } from "./types";

/** Below this much free space the data directory is reported full (documents, versions, jobs). */
export const DEFAULT_MIN_FREE_MB = 1024;

export function checkDataDir(dir: string, minFreeMb = DEFAULT_MIN_FREE_MB): Finding[] {
  const out: Finding[] = [];
  const probe = path.join(dir, `.svc-doctor-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(probe, "w");
    try {
      writeSync(fd, "svc doctor\n");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    unlinkSync(probe);
    out.push(ok("data_dir.writable", `${dir} is writable.`));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    const problem = diskProblem(e);
    out.push(
      fail(
        "data_dir.writable",
        problem === "disk_full"
          ? `${dir} is full (${code}): saves and uploads answer 500 internal with detail.reason disk_full.`
          : problem === "disk_read_only"
            ? `${dir} is read-only (${code}): saves answer 500 internal with detail.reason disk_read_only.`
            : `${dir} cannot be written (${code}).`,
        problem === "disk_full"
          ? "Free space on that filesystem, or move SVC_DATA_DIR to a larger volume."
          : code === "EACCES" || code === "EPERM"
            ? `Make ${dir} writable by the service's user (in the image: chown 10001 on a host directory).`
            : `Mount ${dir} read-write, or point SVC_DATA_DIR at a writable directory.`,
        { code },
      ),
    );
  }
  try {
    const s = statfsSync(dir);
    const freeMb = Math.floor((Number(s.bavail) * Number(s.bsize)) / 1048576);
    out.push(
      freeMb < minFreeMb
        ? fail("data_dir.free_space", `${dir} has ${freeMb} MB free, less than ${minFreeMb} MB: the next versions and uploads will not fit (disk_full).`, "Free space on that filesystem, or move SVC_DATA_DIR to a larger volume.", { free_mb: freeMb, min_free_mb: minFreeMb })
        : ok("data_dir.free_space", `${dir} has ${freeMb} MB free.`, { free_mb: freeMb }),
    );
  } catch (e) {
    out.push(fail("data_dir.free_space", `Free space of ${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? e}).`, `Create ${dir}, or set SVC_DATA_DIR to an existing directory.`));
  }
  return out;
}
