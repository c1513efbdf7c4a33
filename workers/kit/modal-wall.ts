// A modal window nobody can answer never holds the engine (issue 44). Some of LibreOffice's windows
// run their own loop until they are answered (a synchronous Execute). Opened inside a call the kit
// made (a load, a save, a paste: what the kit calls into the office directly), the call never
// returns, the kit reads no request and forwards no callback meanwhile, so the window never reaches
// a page and the document is stopped for everyone. (A command's dialog and a dialog's act are not
// run inside the kit's call: office-posts.ts.) The office polls the kit from inside that loop
// (kit-loop.ts, `nested`): a window opened inside a call that has not come back for
// MODAL_GRACE_MS is closed as its close box would (Cancel), and logged. Windows open before the
// call (a dialog another person has open, which runs without a loop of its own) are left alone.
// A dialog the office shows without telling any view is ended sooner (UNANNOUNCED_GRACE_MS).

import { closeDialogs } from "./dialogs";
import { pump } from "./callbacks";
import { kit, log, views } from "./state";
import { endUnannouncedDialogs } from "./unannounced-windows";
import { wasAnnounced, windowsOf } from "./windows";

/**
 * How long a call may stay inside a loop of the office's with a window of its own open. A dialog
 * that runs without its own loop (most of LibreOffice's under LibreOfficeKit) opens and returns
 * within milliseconds; a slow machine's first opening of a dialog loads its description in well
 * under this.
 */
export const MODAL_GRACE_MS = 2000;

/**
 * How long a call may stay inside a loop before the office's dialogs that no view was told of are
 * ended (unannounced-windows.ts). Such a dialog can never be answered, so it need not wait for
 * MODAL_GRACE_MS: only for the callbacks that announce the others (queued when a window is shown,
 * flushed by the office's idle work within milliseconds) to be read first. Then every
 * UNANNOUNCED_WALK_MS: LibreOffice's failed load of a formula's reference shows one box per attempt
 * (four in a row on 25.2).
 */
export const UNANNOUNCED_GRACE_MS = 500;
const UNANNOUNCED_WALK_MS = 100;

/** The windows open when the current call first polled from inside, by view. */
let before: Set<string> | null = null;
/** When the current call's windows were last walked for dialogs no view was told of. */
let lastWalkMs = -Infinity;

const openIds = () => new Set([...views.keys()].flatMap((v) => windowsOf(v).map((w) => `${v}:${w.id}`)));

/** From kit-loop.ts's nested poll: `ms` since the current call first polled from inside. */
export function onNestedPoll(ms: number): void {
  if (!kit.doc) return;
  if (ms === 0 || before === null) {
    before = openIds();
    lastWalkMs = -Infinity;
  }
  if (ms >= UNANNOUNCED_GRACE_MS && ms - lastWalkMs >= UNANNOUNCED_WALK_MS) {
    lastWalkMs = ms;
    // The callbacks the office queued meanwhile (a window's announcement among them) are read first.
    pump();
    const ended = endUnannouncedDialogs(wasAnnounced);
    if (ended.length) log("warn", "kit_modal_window_closed", { windows: ended.map(String), kind: ended.map(() => "unannounced"), after_ms: Math.round(ms) });
  }
  if (ms < MODAL_GRACE_MS) return;
  pump();
  for (const viewId of views.keys()) {
    const opened = windowsOf(viewId).filter((w) => !before!.has(`${viewId}:${w.id}`));
    if (!opened.length) continue;
    log("warn", "kit_modal_window_closed", { view_id: viewId, windows: opened.map((w) => w.name), kind: opened.map((w) => w.kind), after_ms: Math.round(ms) });
    closeDialogs(viewId, (w) => opened.includes(w));
  }
}
