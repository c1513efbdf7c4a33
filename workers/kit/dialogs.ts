// LibreOffice's dialogs in a view: those it describes as JSDialog JSON (acted on widget by widget)
// and those it tunnels as painted windows (painted on request, driven by mouse and keys). Which
// windows each view has open, and what may be acted on, is windows.ts's.

import { LOK_KEYEVENT_KEYINPUT, LOK_KEYEVENT_KEYUP, LOK_MOUSEEVENT_MOUSEBUTTONDOWN, LOK_MOUSEEVENT_MOUSEBUTTONUP, LOK_MOUSEEVENT_MOUSEMOVE, LOK_EXT_TEXTINPUT, LOK_EXT_TEXTINPUT_END, LOK_WINDOW_CLOSE, type LokDocument } from "../lok";
import type { KitFields, KitRequestOf, KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { encodeTilePng } from "../png";
import { expectingWindows, findWindow, forgetWindow, mayAct, windowsOf, type OpenWindow } from "./windows";
import { num, useView } from "./state";
import { postToOffice } from "./office-posts";
import { CHARS, KEYS } from "../../app/edsrv/protocol/keys";

/** The largest tunnelled window rectangle painted at once (a dialog is smaller than a screen). */
const MAX_WINDOW_PX = 2048;

/**
 * The tunnelled window a request names, one its view has open (by id, or by name in a replay),
 * with the view made current: the document to post to and the window's id.
 */
function tunnelledWindow(req: KitFields<"windowclose">): { d: LokDocument; id: number } {
  const d = useView(req.viewId); // an unknown view fails at once
  const w = findWindow(req.viewId, String(req.windowId ?? ""), String(req.dialog ?? ""));
  if (!w || w.kind !== "tunnelled") throw new Error("no such window open in this view");
  return { d, id: Number(w.id) };
}

/**
 * A painted window closed as its close box would, and as Escape would: some of LibreOffice's
 * painted dialogs take no close from LibreOfficeKit yet close on Escape (Find & Replace's
 * Attributes, 25.2: measured; left open, a view leaving under its loop would end the engine).
 * The key goes to that window only; a window already gone has no id left to post to.
 */
function closeTunnelled(d: LokDocument, id: number): void {
  d.postWindow(id, LOK_WINDOW_CLOSE);
  d.postWindowKeyEvent(id, LOK_KEYEVENT_KEYINPUT, CHARS.Escape!, KEYS.Escape!);
  d.postWindowKeyEvent(id, LOK_KEYEVENT_KEYUP, CHARS.Escape!, KEYS.Escape!);
}

/**
 * Closes a view's open dialogs, the last opened first, as their close boxes would. Each close is
 * posted to the office's loop (office-posts.ts), one event each: a sub-dialog running its loop is
 * then ended and its loop returns before its parent closes (closed at once, the parent went while
 * the sub-dialog's loop still used it, and the engine ended: measured on 25.2).
 */
export function closeDialogs(viewId: number, which: (w: OpenWindow) => boolean = () => true): void {
  for (const w of windowsOf(viewId).filter(which)) {
    // The sidebar is the view's own panel, not a dialog: it goes with the view.
    if (w.kind === "sidebar") continue;
    const id = w.id, kind = w.kind;
    postToOffice(viewId, () => {
      const d = useView(viewId);
      if (kind === "tunnelled") closeTunnelled(d, Number(id));
      else if (kind === "popup") d.sendDialogEvent(BigInt(id), JSON.stringify({ id: "__POPOVER__", cmd: "close", data: "", type: "popover" }));
      else d.sendDialogEvent(BigInt(id), JSON.stringify({ id: "__DIALOG__", cmd: "close", data: "", type: "dialog" }));
    });
    forgetWindow(viewId, w.id);
  }
}

/** `dialogevent`: a person's act on a widget of a dialog LibreOffice showed this view (JSDialog). */
async function dialogeventUnwrapped(req: KitRequestOf<"dialogevent">): Promise<KitResult<"dialogevent">> {
  // A person's act on a widget of a dialog LibreOffice showed this view (JSDialog). The window
  // is one this view has open; in a replay (a new engine, other ids) the one of the same name.
  // Run like input: after what came before it, and what it queues (the dialog's next state,
  // or its close and the change to the document) is worked through before the answer.
  useView(req.viewId); // an unknown view fails at once
  const viewId = req.viewId;
  const json = String(req.json ?? "");
  if (json.length > 64 * 1024) throw new Error("dialog event too large");
  await engineIdle();
  const w = findWindow(viewId, String(req.windowId ?? ""), String(req.dialog ?? ""));
  if (!w || w.kind === "tunnelled") throw new Error("no such dialog open in this view");
  const event = JSON.parse(json) as { id?: unknown; type?: unknown; data?: unknown };
  if (!mayAct(w, String(event.id ?? ""), String(event.type ?? ""), String(event.data ?? ""))) throw new Error("that control is not shown or not enabled");
  // Posted: a dialog the act opens runs its loop from the office's, not inside this call (office-posts.ts).
  const windowId = BigInt(w.id);
  postToOffice(viewId, () => useView(viewId).sendDialogEvent(windowId, json));
  await engineIdle();
  return {};
}

/** `paintwindow`: a rectangle of a tunnelled window, in window pixels, as a PNG. */
export async function paintwindow(req: KitRequestOf<"paintwindow">): Promise<KitResult<"paintwindow">> {
  // A rectangle of a tunnelled window (a dialog LibreOffice does not describe as JSDialog),
  // in window pixels, as a PNG.
  const { id } = tunnelledWindow(req);
  const x = num(req.x ?? 0, "x"), y = num(req.y ?? 0, "y");
  const width = Math.min(num(req.width, "width"), MAX_WINDOW_PX), height = Math.min(num(req.height, "height"), MAX_WINDOW_PX);
  if (width < 1 || height < 1) throw new Error("empty rectangle");
  await engineIdle();
  const { d } = tunnelledWindow(req); // current again after the wait
  const pixels = new Uint8Array(width * height * 4);
  d.paintWindow(id, pixels, x, y, width, height);
  return { windowId: String(id), x, y, width, height, png: encodeTilePng(pixels, width, height, d.getTileMode()).toString("base64") };
}

/** `windowmouse`: a click or a move in a tunnelled window, in window pixels. */
async function windowmouseUnwrapped(req: KitRequestOf<"windowmouse">): Promise<KitResult<"windowmouse">> {
  const { d, id } = tunnelledWindow(req);
  const type = req.type === "buttonup" ? LOK_MOUSEEVENT_MOUSEBUTTONUP : req.type === "move" ? LOK_MOUSEEVENT_MOUSEMOVE : LOK_MOUSEEVENT_MOUSEBUTTONDOWN;
  d.postWindowMouseEvent(id, type, num(req.x, "x"), num(req.y, "y"), num(req.count ?? 1, "count"), num(req.buttons ?? 1, "buttons"), num(req.modifier ?? 0, "modifier"));
  await engineIdle();
  return {};
}

/** `windowkey`: a key in a tunnelled window. */
async function windowkeyUnwrapped(req: KitRequestOf<"windowkey">): Promise<KitResult<"windowkey">> {
  const { d, id } = tunnelledWindow(req);
  d.postWindowKeyEvent(id, req.type === "up" ? LOK_KEYEVENT_KEYUP : LOK_KEYEVENT_KEYINPUT, num(req.char ?? 0, "char"), num(req.key ?? 0, "key"));
  await engineIdle();
  return {};
}

/** `windowtext`: text typed in a tunnelled window. */
async function windowtextUnwrapped(req: KitRequestOf<"windowtext">): Promise<KitResult<"windowtext">> {
  const { d, id } = tunnelledWindow(req);
  const text = String(req.text ?? "").slice(0, 4096);
  d.postWindowExtTextInputEvent(id, LOK_EXT_TEXTINPUT, text);
  d.postWindowExtTextInputEvent(id, LOK_EXT_TEXTINPUT_END, text);
  await engineIdle();
  return {};
}

/** `windowclose`: a tunnelled window closed as its close box would. */
export async function windowclose(req: KitRequestOf<"windowclose">): Promise<KitResult<"windowclose">> {
  const { d, id } = tunnelledWindow(req);
  closeTunnelled(d, id);
  await engineIdle();
  return {};
}

/** `closedialogs`: what a view still has open, closed. */
export async function closedialogs(req: KitRequestOf<"closedialogs">): Promise<KitResult<"closedialogs">> {
  // What a view still has open, closed as its close box would (Cancel): a view leaving, or
  // the end of a replay whose dialogs nobody sees.
  useView(req.viewId);
  await engineIdle();
  closeDialogs(req.viewId);
  await engineIdle();
  return {};
}

// An act on a dialog the view has open may open the next (a sub-dialog, a message box): those
// windows are the view's own (windows.ts closes any window nobody asked for).
export const dialogevent = (req: KitRequestOf<"dialogevent">) => expectingWindows(req.viewId, () => dialogeventUnwrapped(req));
export const windowmouse = (req: KitRequestOf<"windowmouse">) => expectingWindows(req.viewId, () => windowmouseUnwrapped(req));
export const windowkey = (req: KitRequestOf<"windowkey">) => expectingWindows(req.viewId, () => windowkeyUnwrapped(req));
export const windowtext = (req: KitRequestOf<"windowtext">) => expectingWindows(req.viewId, () => windowtextUnwrapped(req));
