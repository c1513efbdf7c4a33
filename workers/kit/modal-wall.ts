// A modal window nobody can answer never holds the engine (issue 44). Some of LibreOffice's windows
// run their own loop until they are answered (a synchronous Execute: Data > Validity in 25.2, the
// Text Import dialog of a formula's reference to a text file): the call the kit made never returns,
// the kit reads no request and forwards no callback meanwhile, so the window never reaches a page
// and the document is stopped for everyone. The office polls the kit from inside that loop
// (kit-loop.ts, `nested`): a window opened inside a call that has not come back for
// MODAL_GRACE_MS is closed as its close box would (Cancel), and logged. Windows open before the
// call (a dialog another person has open, which runs without a loop of its own) are left alone.

import { closeDialogs } from "./dialogs";
import { pump } from "./callbacks";
import { kit, log, views } from "./state";
import { windowsOf } from "./windows";

/**
 * How long a call may stay inside a loop of the office's with a window of its own open. A dialog
 * that runs without its own loop (most of LibreOffice's under LibreOfficeKit) opens and returns
 * within milliseconds; a slow machine's first opening of a dialog loads its description in well
 * under this.
 */
export const MODAL_GRACE_MS = 2000;

/** The windows open when the current call first polled from inside, by view. */
let before: Set<string> | null = null;

const openIds = () => new Set([...views.keys()].flatMap((v) => windowsOf(v).map((w) => `${v}:${w.id}`)));

/** From kit-loop.ts's nested poll: `ms` since the current call first polled from inside. */
export function onNestedPoll(ms: number): void {
  if (!kit.doc) return;
  if (ms === 0 || before === null) before = openIds();
  if (ms < MODAL_GRACE_MS) return;
  // The callbacks the office queued meanwhile (the window's opening among them) are forwarded and noted.
  pump();
  for (const viewId of views.keys()) {
    const opened = windowsOf(viewId).filter((w) => !before!.has(`${viewId}:${w.id}`));
    if (!opened.length) continue;
    log("warn", "kit_modal_window_closed", { view_id: viewId, windows: opened.map((w) => w.name), kind: opened.map((w) => w.kind), after_ms: Math.round(ms) });
    closeDialogs(viewId, (w) => opened.includes(w));
  }
}
