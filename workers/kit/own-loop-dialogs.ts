// LibreOffice's dialogs that run a loop of their own (issues 44 and 45).
//
// Most of LibreOffice's dialogs open and return at once under LibreOfficeKit and are answered
// later. A few run a synchronous Execute: the call that opens them returns only when the dialog
// is answered (Data > Validity in Calc, Character, Paragraph and Bullets in a deck on 25.2:
// app/edsrv/protocol/uno-commands.ts, OWN_LOOP_DIALOGS). Opened from the kit's own call, that loop
// ran inside the kit's JavaScript, which then read no request until the dialog was answered, so
// the kit had to close it after two seconds (modal-wall.ts) and the dialog never worked.
//
// So a window-opening command is not run inside the kit's call: it is posted to the office's loop
// (office-posts.ts). A dialog's loop then runs where the office's loop would have, and polls the
// kit as that loop does (kit-loop.ts): every request is read and served meanwhile, the dialog's
// person answers it as any other, and co-editors type, save and open other dialogs. What must not
// happen is two such loops at once: the second would run inside the first, whose OK could then
// take effect only once the second dialog closed. A second one of these dialogs is refused while
// another person's loop runs (`dialogbusy`), and the page says so. (A loop a dialog's button opens
// can still run inside another person's: its view leaving is then safe, office-posts.ts.) A dialog
// nobody could answer at all (Edit Style in a deck: UNANSWERABLE_DIALOGS) is refused (`notallowed`).

import { KIT_REFUSALS } from "../kit-protocol";
import { isUnanswerableDialog, runsOwnLoop } from "../../app/edsrv/protocol/uno-commands";
import { documentKind } from "./state";
import { anotherViewsLoopRuns } from "./office-posts";

/**
 * Before `command` opens its window in `viewId`: throws the `notallowed` refusal for a dialog nobody
 * could answer in this kind of document, and the `dialogbusy` refusal when the command's dialog
 * runs its own loop and another person's dialog loop is under way.
 */
export function refuseDialog(viewId: number, command: string): void {
  if (isUnanswerableDialog(command, documentKind())) throw new Error(KIT_REFUSALS.notallowed);
  if (runsOwnLoop(command, documentKind()) && anotherViewsLoopRuns(viewId)) throw new Error(KIT_REFUSALS.dialogbusy);
}
