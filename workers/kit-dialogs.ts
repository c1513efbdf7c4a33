// The dialogs each view has open, as the engine reported them: LibreOffice's own dialogs, either
// described as JSDialog JSON (LOK_CALLBACK_JSDIALOG) or tunnelled as painted windows
// (LOK_CALLBACK_WINDOW "created"). The kit needs them for three things:
// - a dialog event names its window; it must be one of the sender's view (not another person's);
// - a replay after a crash runs the journalled events against windows of a new engine, whose ids
//   differ: an event names its dialog too (ParagraphPropertiesDialog), and the replay finds the
//   view's open window of that name;
// - a view that leaves, or a replay that ends, closes what is still open (an open dialog in a view
//   nobody sees would hold its changes, and a view destroyed under an open dialog is unsafe).

import { windowLife } from "../app/edsrv/protocol/dialog-events";

export interface OpenWindow {
  /** LibreOffice's window id (a decimal number; 64 bits in LibreOfficeKit's API). */
  id: string;
  /** The dialog's name (`dialogid`, e.g. "ParagraphPropertiesDialog"), or the root widget's id for a popup. */
  name: string;
  /** "dialog" and "popup" come as JSDialog; "tunnelled" is painted (paintWindow). */
  kind: "dialog" | "popup" | "tunnelled";
}

const LOK_CALLBACK_WINDOW = 36;
const LOK_CALLBACK_JSDIALOG = 46;

const open = new Map<number, Map<string, OpenWindow>>();

/** Reads a JSDialog or window callback of a view; other callbacks are ignored. */
export function noteDialogCallback(viewId: number, type: number, payload: string): void {
  if (type !== LOK_CALLBACK_JSDIALOG && type !== LOK_CALLBACK_WINDOW) return;
  const life = windowLife(type === LOK_CALLBACK_WINDOW ? "window" : "jsdialog", payload);
  if (!life) return;
  let windows = open.get(viewId);
  if (!windows) open.set(viewId, (windows = new Map()));
  if (life.opened) windows.set(life.windowId, { id: life.windowId, name: life.name, kind: life.kind });
  else windows.delete(life.windowId);
}

/**
 * The window an event is for: `windowId` when the view has it open; otherwise (a replay in a new
 * engine) the view's most recently opened window named `name` of the same kind.
 */
export function findWindow(viewId: number, windowId: string, name: string): OpenWindow | null {
  const windows = open.get(viewId);
  if (!windows) return null;
  const exact = windows.get(windowId);
  if (exact && (!name || exact.name === name)) return exact;
  if (!name) return null;
  return [...windows.values()].reverse().find((w) => w.name === name) ?? null;
}

/** The view's open windows, the last opened first (what to close when it leaves). */
export function windowsOf(viewId: number): OpenWindow[] {
  return [...(open.get(viewId)?.values() ?? [])].reverse();
}

export function forgetWindow(viewId: number, windowId: string): void {
  open.get(viewId)?.delete(windowId);
}

export function forgetView(viewId: number): void {
  open.delete(viewId);
}
