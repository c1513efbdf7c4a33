// Work the kit has the office run from its own loop, as a posted event, instead of inside the
// kit's call (issues 44 and 45).
//
// A person's act on a dialog (LibreOfficeKit's sendDialogEvent) runs at once, inside the kit's
// call. When the act opens a dialog that LibreOffice runs in a loop of its own (measured on 25.2:
// Font Features from Character, Special Characters from Bullets, Attributes and Format from Find &
// Replace, a page style's header Edit, the Name box of Area and Line, Line's delete question),
// that loop ran inside the kit's call: the kit read nothing until it closed the window after two
// seconds (modal-wall.ts), and a painted one it could not close held every co-editor until the
// watchdog ended the engine (30 s). Posted instead (VCL's Application::PostUserEvent, which
// LibreOfficeKit's own input posting uses), the act runs where the office's loop would, a dialog's
// loop polls the kit as that loop does (kit-loop.ts), and every request is served meanwhile.
//
// The same goes for a command that opens a dialog (own-loop-dialogs.ts). Which view's posted work
// is under way is known exactly: work still running is a dialog's loop that has not returned. One
// that another person's loop runs inside cannot return before that one does, so a view that leaves
// meanwhile is destroyed only once its work has returned (views.ts): destroyed under its dialog's
// loop, the engine ended when the loop came back (measured on 25.2).
//
// Where this build of LibreOffice does not export PostUserEvent, the work runs at once, as before.

import { FFIType, JSCallback, ptr, type Pointer } from "bun:ffi";
import { bindVcl } from "./vcl";
import { log } from "./state";

const SYMBOLS = {
  // static ImplSVEvent* Application::PostUserEvent(const Link<void*, void>& rLink, void* pCaller, bool bReferenceLink)
  _ZN11Application13PostUserEventERK4LinkIPvvES1_b: { args: [FFIType.ptr, FFIType.ptr, FFIType.bool], returns: FFIType.ptr },
} as const;

let vcl: ReturnType<typeof bindVcl<typeof SYMBOLS>> | undefined;
/** The work posted, in the order posted: the office calls the stub once per posted event, in order. */
const queue: { viewId: number; work: () => void }[] = [];
/** The views whose posted work is under way (a dialog's loop), innermost last. */
const running: number[] = [];
/** What waits for a view's work to have returned (views.ts: destroying the view). */
const whenReturned = new Map<number, (() => void)[]>();
let stub: JSCallback | undefined;
/**
 * The Link the office copies into each event: its stub function, then its instance (null). Room
 * for a debug build's three more fields, left zero.
 */
const link = new BigUint64Array(6);

/** Whether work can be posted to the office's loop; the first call binds the function. */
export function canPostToOffice(programDir: string): boolean {
  if (vcl === undefined) {
    vcl = bindVcl(programDir, SYMBOLS);
    if (vcl) {
      stub = new JSCallback(
        (_instance: Pointer, _data: Pointer) => {
          const posted = queue.shift();
          if (!posted) return;
          running.push(posted.viewId);
          try {
            posted.work();
          } catch (err) {
            log("warn", "kit_posted_work_failed", { message: String((err as Error)?.message ?? err) });
          } finally {
            running.splice(running.lastIndexOf(posted.viewId), 1);
            if (!running.includes(posted.viewId)) for (const then of whenReturned.get(posted.viewId)?.splice(0) ?? []) then();
          }
        },
        { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.void },
      );
      link[0] = BigInt(stub.ptr as unknown as number);
    }
  }
  return vcl !== null;
}

/**
 * Has the office run `work` (for `viewId`) from its loop, after the events posted before it; at
 * once where it cannot be posted. A wait for the engine to be idle (engineIdle) afterwards sees it
 * done, or its dialog's loop under way.
 */
export function postToOffice(viewId: number, work: () => void): void {
  if (!vcl || !stub) {
    work();
    return;
  }
  queue.push({ viewId, work });
  vcl._ZN11Application13PostUserEventERK4LinkIPvvES1_b(ptr(link), null, false);
}

/** Whether posted work of a view other than `viewId` is under way: a dialog's loop of theirs runs. */
export const anotherViewsLoopRuns = (viewId: number): boolean => running.some((v) => v !== viewId);

/** Runs `then` once no posted work of `viewId` is under way (at once when none is). */
export function afterWorkOf(viewId: number, then: () => void): void {
  if (!running.includes(viewId)) return then();
  whenReturned.set(viewId, [...(whenReturned.get(viewId) ?? []), then]);
}
