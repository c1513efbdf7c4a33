// VCL's own functions, for what LibreOfficeKit has no call for: the engine's windows listed
// (unannounced-windows.ts) and a painted dialog's controls read (window-widgets.ts). They are C++
// symbols that Debian's and TDF's builds export from the merged library (else VCL's own); a
// module binds the ones it needs with the base below, and where a build lacks one it says so once
// and does without.

import { dlopen, FFIType, type Pointer } from "bun:ffi";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** What every caller needs: the SolarMutex, and the top-level windows with their types and LibreOfficeKit ids. */
export const VCL_BASE = {
  _ZN11Application22GetFirstTopLevelWindowEv: { args: [], returns: FFIType.ptr },
  _ZN11Application21GetNextTopLevelWindowEPKN3vcl6WindowE: { args: [FFIType.ptr], returns: FFIType.ptr },
  _ZNK3vcl6Window14GetLOKWindowIdEv: { args: [FFIType.ptr], returns: FFIType.u32 },
  _ZNK3vcl6Window7GetTypeEv: { args: [FFIType.ptr], returns: FFIType.u16 },
  _ZN11Application17ReleaseSolarMutexEv: { args: [], returns: FFIType.u32 },
  _ZN11Application17AcquireSolarMutexEj: { args: [FFIType.u32], returns: FFIType.void },
} as const;

type Base = ReturnType<typeof dlopen<typeof VCL_BASE>>["symbols"];

/**
 * VCL's window types (include/tools/wintypes.hxx, unchanged since OpenOffice.org) of the windows
 * that are Dialogs: the message boxes (MESSBOX … QUERYBOX), DIALOG and MODELESSDIALOG.
 */
export const MODAL_DIALOG_TYPES = new Set([0x130, 0x131, 0x132, 0x133, 0x134, 0x139]);
export const DIALOG_TYPES = new Set([...MODAL_DIALOG_TYPES, 0x13a]);

/** The library that exports VCL: the merged one of Debian's and TDF's builds, else VCL's own. */
const VCL_LIBRARIES = ["libmergedlo.so", "libvcllo.so"];

/** Binds `symbols` from the engine's VCL, or null when no library exports them all. */
export function bindVcl<S extends Record<string, { args: readonly FFIType[]; returns: FFIType }>>(programDir: string, symbols: S): ReturnType<typeof dlopen<S>>["symbols"] | null {
  for (const name of VCL_LIBRARIES) {
    const file = join(programDir, name);
    if (!existsSync(file)) continue;
    try {
      // Already loaded by LibreOfficeKit: dlopen hands back the same library.
      return dlopen(file, symbols).symbols;
    } catch {
      // a build that does not export one of them: try the next library
    }
  }
  return null;
}

/**
 * Runs `work` with the SolarMutex taken, on the office's thread (the kit's loop), possibly from
 * inside a call that holds it already: VCL's window list is shared with LibreOffice's other
 * threads. The mutex is taken, then released whole to learn how deep this thread held it before
 * (VCL's release of a mutex the thread does not hold aborts), and taken once deeper than that.
 */
export function withSolarMutex<T>(v: Base, work: () => T): T {
  v._ZN11Application17AcquireSolarMutexEj(1);
  const depth = (v._ZN11Application17ReleaseSolarMutexEv() as number) - 1;
  v._ZN11Application17AcquireSolarMutexEj(depth + 1);
  try {
    return work();
  } finally {
    v._ZN11Application17ReleaseSolarMutexEv();
    if (depth) v._ZN11Application17AcquireSolarMutexEj(depth);
  }
}

/** The engine's top-level windows (with the SolarMutex taken). */
export function topLevelWindows(v: Base): Pointer[] {
  const out: Pointer[] = [];
  for (let w = v._ZN11Application22GetFirstTopLevelWindowEv() as Pointer | null; w; w = v._ZN11Application21GetNextTopLevelWindowEPKN3vcl6WindowE(w) as Pointer | null) out.push(w);
  return out;
}
