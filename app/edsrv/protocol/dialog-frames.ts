// LibreOffice's dialogs on the wire (Collabora's forms), the part the page needs: the frames'
// types, what a `jsdialog:`/`window:` frame says of a window's life, and the commands the page
// sends. The server's check of a `dialogevent` is in dialog-events.ts (zod stays out of the page's
// scripts). This module runs in the browser too: no Node or Bun API here.
//
// The server sends `jsdialog: <JSON>` (a dialog described, a widget updated, an action on a
// widget, a close) and `window: <JSON>` (a tunnelled window's life); the page answers
// `dialogevent <windowId> <JSON>`, the event LibreOffice's JSDialog executor takes: {"id": widget,
// "cmd": what happened, "data": its value, "type": widget type}.

/** The widget types and acts LibreOffice's JSDialog executor (vcl/jsdialog/executor.cxx) knows. */
export const DIALOG_EVENT_TYPES = [
  "tabcontrol", "combobox", "pushbutton", "menubutton", "checkbox", "drawingarea", "spinfield", "formattedfield",
  "toolbox", "edit", "treeview", "iconview", "expander", "dialog", "popover", "radiobutton", "responsebutton",
  "scrolledwindow", "calendar",
] as const;
export const DIALOG_EVENT_COMMANDS = [
  "selecttab", "selected", "change", "value", "click", "dblclick", "toggle", "keypress", "plus", "minus", "select",
  "activate", "expand", "collapse", "close", "response", "togglemenu", "scrollv", "scrollh", "closemenu", "closepopup",
] as const;

/** A person's act on a widget of a dialog. */
export interface DialogEvent {
  id: string;
  cmd: (typeof DIALOG_EVENT_COMMANDS)[number];
  data?: string;
  type: (typeof DIALOG_EVENT_TYPES)[number];
}

/** `dialogevent 10 {"id":"ok","cmd":"click","data":"","type":"responsebutton"}` (page → server). */
export const dialogEventCommand = (windowId: string, e: DialogEvent): string => `dialogevent ${windowId} ${JSON.stringify(e)}`;

/**
 * What a `jsdialog:` or `window:` payload says of a window's life: a dialog (or popup) described
 * whole, a tunnelled window created, or a window closed; null for updates and actions.
 */
export interface WindowLife {
  windowId: string;
  /** The dialog's name (`dialogid`, "ParagraphPropertiesDialog"), a popup's root widget, a tunnelled window's title. */
  name: string;
  opened: boolean;
  /** "dialog", "popup" and the view's "sidebar" are described as JSDialog; "tunnelled" is painted (paintWindow). */
  kind: "dialog" | "popup" | "sidebar" | "tunnelled";
}

export function windowLife(cb: "jsdialog" | "window", payload: string): WindowLife | null {
  // Only a whole description or a close needs reading; updates are most frames and are large.
  if (cb === "jsdialog" && !payload.includes('"close"') && !payload.includes('"dialogid"') && !payload.includes('"popup"') && !payload.includes('"sidebar"') && !payload.includes('"modalpopup"') && !payload.includes('"dropdown"')) return null;
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(payload);
  } catch {
    return null;
  }
  const windowId = String(j?.id ?? "");
  if (!/^\d{1,19}$/.test(windowId)) return null;
  // A drop-down LibreOffice opens over the document (Calc's AutoFilter: `jsontype` "dialog",
  // `type` "modalpopup", no dialogid) is a popup: closed as a popover, never a modal dialog.
  const dropDown = j.jsontype === "dialog" && (j.type === "modalpopup" || j.type === "dropdown") && j.dialogid === undefined;
  const kind = cb === "window" ? "tunnelled" : j.jsontype === "popup" || dropDown ? "popup" : j.jsontype === "sidebar" ? "sidebar" : "dialog";
  if (j.action === "close") return { windowId, name: "", opened: false, kind };
  // A tunnelled window's stable name is its unique_id (its title may name the current cell).
  if (cb === "window") return j.action === "created" ? { windowId, name: String(j.unique_id ?? j.title ?? ""), opened: true, kind } : null;
  if (j.action !== undefined) return null;
  if (j.jsontype === "dialog") return { windowId, name: String(j.dialogid ?? ""), opened: true, kind };
  if (j.jsontype === "popup" || dropDown) return { windowId, name: String((j.children as { id?: string }[] | undefined)?.[0]?.id ?? ""), opened: true, kind };
  // The sidebar is described whole again as its decks change; its id is the view's sidebar's.
  if (j.jsontype === "sidebar" && j.type === "dockingwindow") return { windowId, name: "sidebar", opened: true, kind };
  return null;
}

/** One widget of a JSDialog description, as LibreOffice writes it (the fields the page reads). */
export interface JsWidget {
  id: string;
  type: string;
  text?: string;
  enabled?: boolean;
  visible?: boolean;
  children?: JsWidget[];
  aria?: { label?: string; description?: string };
  labelFor?: string;
  labelledBy?: string;
  /** A grid cell (0-based). */
  left?: number;
  top?: number;
  vertical?: boolean;
  checked?: boolean;
  /** Lists: their entries, and the selected ones' positions as strings. */
  entries?: (string | JsTreeEntry)[];
  selectedEntries?: string[];
  /** Number fields. */
  value?: number | string;
  min?: number;
  max?: number;
  step?: number;
  /** A tab control: its pages, and the selected one's id. */
  tabs?: { text: string; id: number; name: string }[];
  selected?: number | string;
  /** A drawing area or an image: a data: URL. */
  image?: string;
  imagewidth?: number;
  imageheight?: number;
  /** Buttons: LibreOffice's symbol or icon name. */
  symbol?: string;
  has_default?: boolean;
  /** A dialog's own fields. */
  title?: string;
  dialogid?: string;
  responses?: { id: string; response: number }[];
  init_focus_id?: string;
  jsontype?: string;
  [other: string]: unknown;
}

/** An entry of a tree or icon view. */
export interface JsTreeEntry {
  text?: string;
  columns?: { text?: string; collapsed?: string; expanded?: string }[];
  row?: number | string;
  selected?: boolean;
  state?: boolean;
  children?: JsTreeEntry[];
  image?: string;
  tooltip?: string;
  [other: string]: unknown;
}

/** A `jsdialog:` frame: a window described whole, a widget described again, an act on a widget, or a close. */
export type JsDialogMessage =
  | (JsWidget & { jsontype: string; action?: undefined })
  | { jsontype: string; action: "update"; id: number | string; control: JsWidget }
  | { jsontype: string; action: "action"; id: number | string; data: { control_id: string; action_type: string; [k: string]: unknown } }
  | { jsontype: string; action: "close"; id: number | string };

/** A painted rectangle of a tunnelled window (`windowpaint:`), in window pixels. */
export interface WindowPaint {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The rectangle as a PNG, base64. */
  png: string;
}

/** A control of a tunnelled dialog as the kit describes it (workers/kit/window-widgets.ts): JSDialog's form, and where it is painted. */
export interface WindowControl extends JsWidget {
  /** svc's own: the control's place in the window's pixels, [x, y, width, height] (shown controls with an id). */
  rect?: [number, number, number, number];
  children?: WindowControl[];
}

/**
 * A `window:` frame: a tunnelled window's life (created, invalidate, size_changed, title_changed,
 * cursor_*, close), and svc's own `widgets`: the dialog's controls and the one with the keyboard.
 */
export interface WindowMessage {
  id: string;
  action: string;
  widgets?: WindowControl;
  focused?: string;
  type?: string;
  size?: string;
  title?: string;
  unique_id?: string;
  rectangle?: string;
  position?: string;
  parentId?: string;
  visible?: string;
}

// ---- page → server, tunnelled windows (Collabora's LokDialog, in svc's own `name=value` form)
export const paintWindowCommand = (id: string, x: number, y: number, width: number, height: number): string => `paintwindow id=${id} x=${x} y=${y} width=${width} height=${height}`;
export const windowMouseCommand = (id: string, type: "buttondown" | "buttonup" | "move", x: number, y: number, count: number, buttons: number, modifier: number): string =>
  `windowmouse id=${id} type=${type} x=${x} y=${y} count=${count} buttons=${buttons} modifier=${modifier}`;
export const windowKeyCommand = (id: string, type: "input" | "up", char: number, key: number): string => `windowkey id=${id} type=${type} char=${char} key=${key}`;
export const windowTextCommand = (id: string, text: string): string => `windowtext id=${id} text=${encodeURIComponent(text)}`;
export const windowCloseCommand = (id: string): string => `windowclose id=${id}`;
