// A person's input: keys, clicks, text, commands. LibreOffice runs in unipoll mode on the kit's
// thread (kit-loop.ts): input is posted to its queue and worked through between its events, and
// the one wait there is, engineIdle(), answers once everything posted before it has been worked.
//
//   op            wait                          why
//   key, mouse    none                          a key LibreOffice runs as a command (a shortcut,
//                                               an arrow) is queued behind the input before it
//                                               and runs before the input after it
//   textinput     none (joined, see joinTyping) text typed behind a wait goes in as one input
//   uno           engineIdle before and after   a command runs at once but input later: an undo
//                                               must not overtake the typing before it, and what
//                                               the command queues is worked before later input
//                                               (a window-opening one runs from the office's
//                                               loop: office-posts.ts)
//   a11y          engineIdle after              what switching the state queues is worked
//                                               through before the answer
//   settle        engineIdle                    a journal replay's careful mode: a crash then
//                                               names the input that caused it
//   (dialogs.ts, clipboard.ts, slideshow.ts, files.ts and views.ts wait with engineIdle too, each
//   where its comment says why: a copy, a save, a slide or a leaving view must see the input
//   sent before it.)
//
// Ordering (which requests queue behind which) is dispatch.ts's, from KIT_OPS (kit-protocol.ts).

import { LOK_EXT_TEXTINPUT, LOK_EXT_TEXTINPUT_END, LOK_KEYEVENT_KEYINPUT, LOK_KEYEVENT_KEYUP, LOK_MOUSEEVENT_MOUSEBUTTONDOWN, LOK_MOUSEEVENT_MOUSEBUTTONUP, LOK_MOUSEEVENT_MOUSEMOVE } from "../lok";
import { KIT_REFUSALS, type KitRequestOf, type KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { isAllowedUnoName, isDialogCommand, opensWindow } from "../../app/edsrv/protocol/uno-commands";
import { kit, num, setLook, useView, VIEW_LOOK_COMMAND } from "./state";
import { expectingWindows } from "./windows";
import { refuseDialog } from "./own-loop-dialogs";
import { postToOffice } from "./office-posts";

/**
 * Committed text of one view that arrives while the ordered requests wait (a command, a copy or
 * a save waiting for the engine to fall idle) is posted as one input when its turn comes: the
 * engine spends 5-7 ms on each input it is given, and typing at automation speed behind such a
 * wait would otherwise be worked through a character at a time. Only consecutive text of one view
 * is joined: any other input (a shortcut, a click) closes the batch, so the order is kept.
 */
class TypedText {
  posted = false;
  constructor(
    readonly viewId: unknown,
    public text: string,
  ) {}
}
let openText: TypedText | null = null;

/** On arrival of an ordered request: committed text joins the open batch of its view, or opens one. */
export function joinTyping(req: Record<string, unknown>): void {
  if (req.op !== "textinput" || req.end === false) {
    openText = null;
    return;
  }
  const text = String(req.text ?? "");
  if (openText && !openText.posted && openText.viewId === req.viewId) openText.text += text;
  else openText = new TypedText(req.viewId, text);
  req.batch = openText;
}

/** `key`: a key pressed or released in the document window. */
export function key(req: KitRequestOf<"key">): KitResult<"key"> {
  useView(req.viewId); // an unknown view fails at once
  const type = req.type === "up" ? LOK_KEYEVENT_KEYUP : LOK_KEYEVENT_KEYINPUT;
  const char = num(req.char ?? 0, "char"), key = num(req.key ?? 0, "key");
  // A key LibreOffice runs as a command (a shortcut, an arrow) is queued behind the input
  // posted before it and runs before the input posted after it: no wait (kit-loop.ts).
  useView(req.viewId).postKeyEvent(type, char, key);
  return {};
}

/** `mouse`: a click or a move, in twips. */
export function mouse(req: KitRequestOf<"mouse">): KitResult<"mouse"> {
  useView(req.viewId); // an unknown view fails at once
  const type = req.type === "buttonup" ? LOK_MOUSEEVENT_MOUSEBUTTONUP : req.type === "move" ? LOK_MOUSEEVENT_MOUSEMOVE : LOK_MOUSEEVENT_MOUSEBUTTONDOWN;
  const x = num(req.x, "x"), y = num(req.y, "y"), count = num(req.count ?? 1, "count"), buttons = num(req.buttons ?? 1, "buttons"), modifier = num(req.modifier ?? 0, "modifier");
  useView(req.viewId).postMouseEvent(type, x, y, count, buttons, modifier);
  return {};
}

/**
 * Fault injection for the tests of the editing server's watchdog (app/edsrv/kit-watchdog.ts): text
 * equal to this is answered, and then the engine's loop never comes back (main.ts's poll), as
 * LibreOffice's does on some input. Set only by tests (EdsrvDeps.kitEnvironment), never by the service.
 */
const STALL_ON_TEXT = process.env.SVC_KIT_TEST_STALL_TEXT || null;

/** `textinput`: text typed or being composed (`batch`: set by joinTyping on arrival). */
export function textInput(req: KitRequestOf<"textinput"> & { batch?: TypedText }): KitResult<"textinput"> {
  useView(req.viewId); // an unknown view fails at once
  if (STALL_ON_TEXT !== null && req.text === STALL_ON_TEXT) kit.stopAtNextPoll = true;
  // A composition update (end: false), or committed text, joined with the text of the same
  // view that arrived while it waited its turn (see joinTyping).
  const batch = req.batch instanceof TypedText ? req.batch : new TypedText(req.viewId, String(req.text ?? ""));
  if (req.end !== false) {
    if (batch.posted) return {}; // went in with an earlier request's text
    batch.posted = true;
  }
  const d = useView(req.viewId);
  d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT, batch.text);
  if (req.end !== false) d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT_END, batch.text);
  return {};
}

/** `uno`: a command (bold, undo, insert a table…), allowed by name. */
export async function uno(req: KitRequestOf<"uno">): Promise<KitResult<"uno">> {
  useView(req.viewId); // an unknown view fails at once
  const command = String(req.command ?? "");
  // The second wall: a name the editing server's door does not know never reaches LibreOffice.
  if (!isAllowedUnoName(command)) throw new Error(KIT_REFUSALS.notallowed);
  // Without its dialog libraries (a -nogui LibreOffice) the engine aborts on a dialog command.
  if (!kit.dialogsAvailable && isDialogCommand(command, typeof req.args === "string" ? req.args : "")) throw new Error("this engine has no dialogs");
  if (VIEW_LOOK_COMMAND.test(command)) setLook(req.viewId, { own: true });
  const args = typeof req.args === "string" ? req.args : "";
  // LibreOffice runs a command at once but input later, from its queue: an undo sent right
  // after typing would otherwise undo an earlier step and let the typing land after it. And
  // what the command queues itself is worked through before the input sent after it.
  const run = async (asDispatched: () => void) => {
    await engineIdle();
    asDispatched();
    await engineIdle();
    return {};
  };
  if (!opensWindow(command, args)) return run(() => useView(req.viewId).postUnoCommand(command, args, true));
  // A window-opening command runs from the office's own loop, so that a dialog that runs a loop of
  // its own is served like the others (office-posts.ts, own-loop-dialogs.ts); by the second wait
  // it is open.
  // Its window is the view's own; any other window opening is closed (windows.ts).
  refuseDialog(req.viewId, command);
  const viewId = req.viewId;
  return expectingWindows(viewId, () => run(() => postToOffice(viewId, () => useView(viewId).postUnoCommand(command, args, true))));
}

/** `a11y`: a screen reader's page turns LibreOffice's accessibility events for this view on or off. */
export async function accessibility(req: KitRequestOf<"a11y">): Promise<KitResult<"a11y">> {
  // A screen reader's page: LibreOffice tells this view the focused paragraph's text and where
  // its caret is (LOK_CALLBACK_A11Y_*), which the page puts where a screen reader reads.
  const d = useView(req.viewId);
  if (!d.has("setAccessibilityState")) throw new Error("this engine has no accessibility events");
  d.setAccessibilityState(req.viewId, req.enabled === true);
  await engineIdle();
  return {};
}

/** `settle`: answers once the engine has worked through every input posted before it. */
export async function settle(req: KitRequestOf<"settle">): Promise<KitResult<"settle">> {
  // Answers once the engine has worked through every input posted before it (a journal
  // replay's careful mode: a crash then names the input that caused it).
  await engineIdle();
  return {};
}
