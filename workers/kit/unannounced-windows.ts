// Windows the engine shows without telling any view (issue 44). LibreOfficeKit reports a window to
// a view through a callback, and the kit closes what a view did not ask for (windows.ts) or what
// holds a call too long (modal-wall.ts). One kind of window escapes both: a message box LibreOffice
// builds with no view around it and runs in a loop of its own. Measured on 25.2: a formula typed
// into a cell that refers to a file the engine may not read (`='file:///etc/passwd'#$Sheet1.A1` +
// Enter) makes Calc load it hidden; the load's access error goes to LibreOffice's interaction
// handler, whose error box gets a LibreOfficeKit id (so the engine's dialog cancel mode, Silent,
// lets it run rather than cancelling it) yet no callback of any view or of the office announces
// it, and the key's call never came back. gdb's stack: Dialog::Execute ← uui's handler ←
// ucbhelper::cancelCommandExecution ← SfxMedium::GetStorage ← ScExternalRefManager::loadSrcDocument.
//
// LibreOfficeKit has no call that lists windows, so the list is read from VCL itself: its exported
// functions for the top-level windows, their types and LibreOfficeKit ids. A visible dialog with
// an id no callback ever announced is ended as Cancel would (below: why not postWindow). Where
// these functions are not exported (another build of LibreOffice), the kit says so once at start
// and the watchdog's recovery is what remains.

import { dlopen, FFIType, type Pointer } from "bun:ffi";
import { existsSync } from "node:fs";
import { join } from "node:path";

const SYMBOLS = {
  _ZN11Application22GetFirstTopLevelWindowEv: { args: [], returns: FFIType.ptr },
  _ZN11Application21GetNextTopLevelWindowEPKN3vcl6WindowE: { args: [FFIType.ptr], returns: FFIType.ptr },
  _ZNK3vcl6Window14GetLOKWindowIdEv: { args: [FFIType.ptr], returns: FFIType.u32 },
  _ZNK3vcl6Window9IsVisibleEv: { args: [FFIType.ptr], returns: FFIType.bool },
  _ZNK3vcl6Window7GetTypeEv: { args: [FFIType.ptr], returns: FFIType.u16 },
  _ZN6Dialog9EndDialogEl: { args: [FFIType.ptr, FFIType.i64], returns: FFIType.void },
  _ZN11Application17ReleaseSolarMutexEv: { args: [], returns: FFIType.u32 },
  _ZN11Application17AcquireSolarMutexEj: { args: [FFIType.u32], returns: FFIType.void },
} as const;

type Vcl = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

/**
 * VCL's window types (include/tools/wintypes.hxx, unchanged since OpenOffice.org) of the windows
 * that are dialogs: the message boxes (MESSBOX … QUERYBOX) and DIALOG. A modeless dialog holds no
 * loop, and any other window is not a Dialog, on which EndDialog must not be called.
 */
const DIALOG_TYPES = new Set([0x130, 0x131, 0x132, 0x133, 0x134, 0x139]);
const RET_CANCEL = 0n;

/** The library that exports VCL: the merged one of Debian's and TDF's builds, else VCL's own. */
const VCL_LIBRARIES = ["libmergedlo.so", "libvcllo.so"];

let vcl: Vcl | null | undefined;

function loadVcl(programDir: string): Vcl | null {
  for (const name of VCL_LIBRARIES) {
    const file = join(programDir, name);
    if (!existsSync(file)) continue;
    try {
      // Already loaded by LibreOfficeKit: dlopen hands back the same library.
      return dlopen(file, SYMBOLS).symbols;
    } catch {
      // a build that does not export one of them: try the next library
    }
  }
  return null;
}

/** Whether the engine's windows can be listed; the first call binds the functions. */
export function canListWindows(programDir: string): boolean {
  if (vcl === undefined) vcl = loadVcl(programDir);
  return vcl !== null;
}

/**
 * Ends, as Cancel would, every visible dialog of the engine that no callback announced to a view
 * (`announced` answers by LibreOfficeKit window id), and answers their ids. Called on the office's
 * thread (the kit's loop) from inside the loop such a dialog runs; the SolarMutex is taken for the
 * walk: VCL's window list is shared with LibreOffice's other threads. LibreOfficeKit's own close
 * (postWindow) is not enough: it presses a Cancel or OK button, and LibreOffice's error box has
 * neither kind (measured: it stayed open), so the dialog is ended directly.
 */
export function endUnannouncedDialogs(announced: (id: string) => boolean): number[] {
  if (!vcl) return [];
  const v = vcl;
  // Taken, then released whole to learn how deep this thread held it before (VCL's release of a
  // mutex the thread does not hold aborts), and taken once deeper than that for the walk.
  v._ZN11Application17AcquireSolarMutexEj(1);
  const depth = (v._ZN11Application17ReleaseSolarMutexEv() as number) - 1;
  v._ZN11Application17AcquireSolarMutexEj(depth + 1);
  const ended: number[] = [];
  try {
    const dialogs: Pointer[] = [];
    for (let w = v._ZN11Application22GetFirstTopLevelWindowEv() as Pointer | null; w; w = v._ZN11Application21GetNextTopLevelWindowEPKN3vcl6WindowE(w) as Pointer | null) {
      if (!DIALOG_TYPES.has(v._ZNK3vcl6Window7GetTypeEv(w) as number) || !v._ZNK3vcl6Window9IsVisibleEv(w)) continue;
      const id = v._ZNK3vcl6Window14GetLOKWindowIdEv(w) as number;
      if (announced(String(id))) continue;
      dialogs.push(w);
      ended.push(id);
    }
    // Ended after the walk: ending one changes the list. A Dialog's vcl::Window is its first base
    // (Dialog → SystemWindow → vcl::Window), so the window's address is the dialog's.
    for (const w of dialogs) v._ZN6Dialog9EndDialogEl(w, RET_CANCEL);
  } finally {
    v._ZN11Application17ReleaseSolarMutexEv();
    if (depth) v._ZN11Application17AcquireSolarMutexEj(depth);
  }
  return ended;
}
