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
// LibreOfficeKit has no call that lists windows, so the list is read from VCL itself (vcl.ts): its
// exported functions for the top-level windows, their types and LibreOfficeKit ids. A visible dialog with
// an id no callback ever announced is ended as Cancel would (below: why not postWindow). Where
// these functions are not exported (another build of LibreOffice), the kit says so once at start
// and the watchdog's recovery is what remains.

import { FFIType, type Pointer } from "bun:ffi";
import { bindVcl, MODAL_DIALOG_TYPES, topLevelWindows, VCL_BASE, withSolarMutex } from "./vcl";

const SYMBOLS = {
  ...VCL_BASE,
  _ZNK3vcl6Window9IsVisibleEv: { args: [FFIType.ptr], returns: FFIType.bool },
  _ZN6Dialog9EndDialogEl: { args: [FFIType.ptr, FFIType.i64], returns: FFIType.void },
} as const;

const RET_CANCEL = 0n;

let vcl: ReturnType<typeof bindVcl<typeof SYMBOLS>> | undefined;

/** Whether the engine's windows can be listed; the first call binds the functions. */
export function canListWindows(programDir: string): boolean {
  if (vcl === undefined) vcl = bindVcl(programDir, SYMBOLS);
  return vcl !== null;
}

/**
 * Ends, as Cancel would, every visible dialog of the engine that no callback announced to a view
 * (`announced` answers by LibreOfficeKit window id), and answers their ids. Called on the office's
 * thread (the kit's loop) from inside the loop such a dialog runs. LibreOfficeKit's own close
 * (postWindow) is not enough: it presses a Cancel or OK button, and LibreOffice's error box has
 * neither kind (measured: it stayed open), so the dialog is ended directly.
 */
export function endUnannouncedDialogs(announced: (id: string) => boolean): number[] {
  if (!vcl) return [];
  const v = vcl;
  return withSolarMutex(v, () => {
    const ended: number[] = [];
    const dialogs: Pointer[] = [];
    // A modeless dialog holds no loop, and any other window is not a Dialog, on which EndDialog must not be called.
    for (const w of topLevelWindows(v)) {
      if (!MODAL_DIALOG_TYPES.has(v._ZNK3vcl6Window7GetTypeEv(w) as number) || !v._ZNK3vcl6Window9IsVisibleEv(w)) continue;
      const id = v._ZNK3vcl6Window14GetLOKWindowIdEv(w) as number;
      if (announced(String(id))) continue;
      dialogs.push(w);
      ended.push(id);
    }
    // Ended after the walk: ending one changes the list. A Dialog's vcl::Window is its first base
    // (Dialog → SystemWindow → vcl::Window), so the window's address is the dialog's.
    for (const w of dialogs) v._ZN6Dialog9EndDialogEl(w, RET_CANCEL);
    return ended;
  });
}
