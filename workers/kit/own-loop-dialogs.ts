// LibreOffice's dialogs that run a loop of their own (issues 44 and 45).
//
// Most of LibreOffice's dialogs open and return at once under LibreOfficeKit and are answered
// later. A few run a synchronous Execute: the call that opens them returns only when the dialog
// is answered (Data > Validity in Calc, Character, Paragraph, Bullets and Edit Style in a deck on
// 25.2: app/edsrv/protocol/uno-commands.ts, OWN_LOOP_DIALOGS). Opened from the kit's own call, that
// loop ran inside the kit's JavaScript, which then read no request until the dialog was answered,
// so the kit had to close it after two seconds (modal-wall.ts) and the dialog never worked.
//
// So a window-opening command is not run inside the kit's call: it is handed to LibreOffice's
// dispatcher to run from the office's own loop (`SynchronMode: false`, and no completion notice,
// which would make the dispatcher run it at once). A dialog's loop then runs where the office's
// loop would have, and polls the kit as that loop does (kit-loop.ts): every request is read and
// served meanwhile, the dialog's person answers it as any other, and co-editors type, save and
// open other dialogs. What must not happen is two such loops at once: the second would run inside
// the first, the first person's OK could take effect only once the second dialog closed, and the
// first person leaving meanwhile ended the engine (measured on 25.2). A second one is refused
// while another person's is open (`dialogbusy`), and the page says so. A dialog nobody could
// answer at all (Edit Style in a deck: UNANSWERABLE_DIALOGS) is refused (`notallowed`).

import { KIT_REFUSALS } from "../kit-protocol";
import { isUnanswerableDialog, runsOwnLoop } from "../../app/edsrv/protocol/uno-commands";
import { documentKind } from "./state";
import { windowsOf } from "./windows";

/** The views that opened a dialog that runs its own loop, until they have no dialog open (a view that left has none). */
const openers = new Set<number>();

const hasDialogOpen = (viewId: number): boolean => windowsOf(viewId).some((w) => w.kind === "dialog" || w.kind === "tunnelled");

/**
 * Before `command` opens its window in `viewId`: throws the `notallowed` refusal for a dialog nobody
 * could answer in this kind of document, and the `dialogbusy` refusal when the command's dialog
 * runs its own loop and another person's such dialog is open.
 */
export function refuseDialog(viewId: number, command: string): void {
  if (isUnanswerableDialog(command, documentKind())) throw new Error(KIT_REFUSALS.notallowed);
  if (!runsOwnLoop(command, documentKind())) return;
  for (const v of openers) if (!hasDialogOpen(v)) openers.delete(v);
  if ([...openers].some((v) => v !== viewId)) throw new Error(KIT_REFUSALS.dialogbusy);
}

/** After `command` was handed to LibreOffice in `viewId` and its window announced. */
export function noteOpened(viewId: number, command: string): void {
  if (runsOwnLoop(command, documentKind()) && hasDialogOpen(viewId)) openers.add(viewId);
}

/** A command's arguments (JSON, as the door re-serialised them) with LibreOffice told to run it from its own loop. */
export function fromOfficeLoop(args: string): string {
  const parsed = args ? (JSON.parse(args) as Record<string, unknown>) : {};
  return JSON.stringify({ ...parsed, SynchronMode: { type: "boolean", value: false } });
}
