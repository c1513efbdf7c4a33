// The dialogs each view has open, as the engine reported them: LibreOffice's own dialogs, either
// described as JSDialog JSON (LOK_CALLBACK.JSDIALOG) or tunnelled as painted windows
// (LOK_CALLBACK.WINDOW "created"). The kit needs them for three things:
// - a dialog event names its window; it must be one of the sender's view (not another person's);
// - a replay after a crash runs the journalled events against windows of a new engine, whose ids
//   differ: an event names its dialog too (ParagraphPropertiesDialog), and the replay finds the
//   view's open window of that name;
// - a view that leaves, or a replay that ends, closes what is still open (an open dialog in a view
//   nobody sees would hold its changes, and a view destroyed under an open dialog is unsafe).

import { windowLife } from "../../app/edsrv/protocol/dialog-frames";
import { isAllowedUnoName } from "../../app/edsrv/protocol/uno-commands";
import { LOK_CALLBACK } from "../lok-abi";

/** What a person may act on in a JSDialog window: its widgets, less those LibreOffice hid or greyed. */
interface Widgets {
  known: Set<string>;
  hidden: Set<string>;
  disabled: Set<string>;
  /** A toolbox's items (the sidebar's buttons): their commands or ids, by the toolbox's id. */
  items: Map<string, Set<string>>;
}

export interface OpenWindow {
  /** LibreOffice's window id (a decimal number; 64 bits in LibreOfficeKit's API). */
  id: string;
  /** The dialog's name (`dialogid`, e.g. "ParagraphPropertiesDialog"), or the root widget's id for a popup. */
  name: string;
  /** "dialog" and "popup" come as JSDialog; "tunnelled" is painted (paintWindow). */
  kind: "dialog" | "popup" | "sidebar" | "tunnelled";
  widgets?: Widgets;
}


const open = new Map<number, Map<string, OpenWindow>>();

/** Every window id a callback ever announced to a view (ids are never reused). */
const announced = new Set<string>();

/** Whether a callback announced the window to some view (unannounced-windows.ts closes the others). */
export const wasAnnounced = (windowId: string): boolean => announced.has(windowId);

/**
 * The second wall behind the door's key table (issue 44): a window LibreOffice opens in a view is
 * kept only while that view is running something that may open one (a dialog command on the door's
 * list, an act on a dialog it has open, a paste's question) or for WINDOW_GRACE_MS after it; any
 * other (a shortcut's dialog, a field's dialog opened by a double click, a macro's or a message
 * box nobody asked for) is closed at once, never recorded as the view's and never shown. Popups,
 * the sidebar and Calc's function tooltip are not dialogs: their acts are checked widget by widget.
 */
export const WINDOW_GRACE_MS = 3000;
const expecting = new Map<number, number>();
const graceUntil = new Map<number, number>();

/** Runs `work`, during and shortly after which windows opening in the view are its own. */
export async function expectingWindows<T>(viewId: number, work: () => Promise<T>): Promise<T> {
  expecting.set(viewId, (expecting.get(viewId) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const n = (expecting.get(viewId) ?? 1) - 1;
    if (n > 0) expecting.set(viewId, n);
    else expecting.delete(viewId);
    graceUntil.set(viewId, Date.now() + WINDOW_GRACE_MS);
  }
}

/** A window the view did not ask for, to be closed: what screenWindow answers. */
export interface UnaskedWindow {
  viewId: number;
  id: string;
  name: string;
  kind: OpenWindow["kind"];
  type: string;
}

/**
 * Screens a JSDialog or window callback of a view: null to forward it (and note it), or the window
 * it opens when the view did not ask for one (the callback is then dropped and the window closed).
 */
export function screenWindow(viewId: number, type: number, payload: string): UnaskedWindow | null {
  if (type !== LOK_CALLBACK.JSDIALOG && type !== LOK_CALLBACK.WINDOW) return null;
  const life = windowLife(type === LOK_CALLBACK.WINDOW ? "window" : "jsdialog", payload);
  if (life?.opened) announced.add(life.windowId);
  if (!life || !life.opened || life.kind === "sidebar" || life.kind === "popup") return null;
  let windowType = "";
  if (life.kind === "tunnelled") {
    try {
      windowType = String(JSON.parse(payload)?.type ?? "");
    } catch {
      // windowLife parsed it already
    }
    if (windowType === "tooltip" || windowType === "dropdown") return null;
  }
  // A dialog the view has open, described whole again, is still its own.
  if (open.get(viewId)?.has(life.windowId)) return null;
  if ((expecting.get(viewId) ?? 0) > 0 || (graceUntil.get(viewId) ?? 0) > Date.now()) return null;
  return { viewId, id: life.windowId, name: life.name.slice(0, 128), kind: life.kind, type: windowType.slice(0, 32) };
}

/** Reads a JSDialog or window callback of a view; other callbacks are ignored. */
export function noteDialogCallback(viewId: number, type: number, payload: string): void {
  if (type !== LOK_CALLBACK.JSDIALOG && type !== LOK_CALLBACK.WINDOW) return;
  const life = windowLife(type === LOK_CALLBACK.WINDOW ? "window" : "jsdialog", payload);
  let windows = open.get(viewId);
  if (!life) {
    if (type === LOK_CALLBACK.JSDIALOG && windows) noteWidgetChange(windows, payload);
    return;
  }
  if (!windows) open.set(viewId, (windows = new Map()));
  if (!life.opened) {
    windows.delete(life.windowId);
    return;
  }
  const w: OpenWindow = { id: life.windowId, name: life.name, kind: life.kind };
  if (life.kind !== "tunnelled") {
    w.widgets = { known: new Set(), hidden: new Set(), disabled: new Set(), items: new Map() };
    try {
      noteWidgets(w.widgets, JSON.parse(payload));
    } catch {
      // windowLife parsed it already
    }
  }
  windows.set(life.windowId, w);
}

interface WidgetJson {
  id?: string;
  type?: string;
  command?: string;
  visible?: boolean;
  enabled?: boolean;
  children?: WidgetJson[];
}

function noteWidgets(widgets: Widgets, w: WidgetJson): void {
  if (w.id) {
    widgets.known.add(w.id);
    if (w.visible === false) widgets.hidden.add(w.id);
    else widgets.hidden.delete(w.id);
    if (w.enabled === false) widgets.disabled.add(w.id);
    else widgets.disabled.delete(w.id);
    if (w.type === "toolbox") widgets.items.set(w.id, new Set((w.children ?? []).filter((c) => c.visible !== false && c.enabled !== false).map((c) => c.command || c.id || "")));
  }
  for (const c of w.children ?? []) noteWidgets(widgets, c);
}

/** A widget described again, or shown, hidden, enabled or disabled. */
function noteWidgetChange(windows: Map<string, OpenWindow>, payload: string): void {
  if (!payload.includes('"update"') && !payload.includes('"action"')) return;
  let j: { action?: string; id?: unknown; control?: WidgetJson; data?: { control_id?: string; action_type?: string } };
  try {
    j = JSON.parse(payload);
  } catch {
    return;
  }
  const widgets = windows.get(String(j.id))?.widgets;
  if (!widgets) return;
  if (j.action === "update" && j.control) noteWidgets(widgets, j.control);
  const id = j.data?.control_id;
  if (j.action !== "action" || !id) return;
  const act = j.data?.action_type;
  if (act === "hide") widgets.hidden.add(id);
  else if (act === "show") widgets.hidden.delete(id);
  else if (act === "disable") widgets.disabled.add(id);
  else if (act === "enable") widgets.disabled.delete(id);
}

/**
 * Whether a person may act on a widget: one of the window's, shown and enabled. LibreOffice hides
 * what must not be used in LibreOfficeKit (Area > Image's "Add / Import", a file dialog), but its
 * JSDialog executor runs an event for any widget of the window, hidden or not.
 */
export function mayAct(w: OpenWindow, widgetId: string, type: string, data = ""): boolean {
  if (!w.widgets) return false;
  // A toolbox's click names its item: one the toolbox shows, and a command the door lets through.
  if (type === "toolbox" && !(w.widgets.items.get(widgetId)?.has(data) && (!data.startsWith(".uno:") || isAllowedUnoName(data)))) return false;
  // The dialog itself (its close) and its response codes have no widget of their own.
  if (type === "dialog" || (type === "responsebutton" && !w.widgets.known.has(widgetId))) return true;
  // A popup's own close (its ✕, Escape, a click outside it): LibreOffice's name for the popup itself.
  if (type === "popover") return w.kind === "popup" && widgetId === "__POPOVER__";
  return w.widgets.known.has(widgetId) && !w.widgets.hidden.has(widgetId) && !w.widgets.disabled.has(widgetId);
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
  expecting.delete(viewId);
  graceUntil.delete(viewId);
}

/**
 * The sidebar as the page may show it: its toolboxes' items are UNO commands LibreOffice runs
 * itself when clicked, so an item the door would refuse (hyphenation settings, new style from
 * selection…) is left out, as the context menu's are. Other frames pass unchanged.
 */
export function offeredSidebar(payload: string): string {
  if (!payload.includes('"sidebar"') || !payload.includes('"toolitem"')) return payload;
  let j: WidgetJson & { control?: WidgetJson };
  try {
    j = JSON.parse(payload);
  } catch {
    return payload;
  }
  const keep = (w: WidgetJson): WidgetJson => {
    if (!w.children) return w;
    const children = w.children.filter((c) => c.type !== "toolitem" || !c.command?.startsWith(".uno:") || isAllowedUnoName(c.command.replace(/\?.*$/, "")));
    return { ...w, children: children.map(keep) };
  };
  return JSON.stringify(j.control ? { ...j, control: keep(j.control) } : keep(j));
}
