// A painted (tunnelled) dialog's controls for a screen reader (issue 45 item 6). LibreOffice 25.2
// paints some dialogs rather than describing them (conditional formatting…); the kit reads their
// controls from VCL (workers/kit/window-widgets.ts) and the page mirrors them here, out of sight:
// named buttons, check boxes, fields and lists with their states and values, grouped as the dialog
// groups them. The keyboard stays with the painted window (Tab, Space, arrows and typing are
// LibreOffice's own), and the field that holds it names the mirrored control LibreOffice focused
// (aria-activedescendant), so a screen reader says each control as Tab reaches it. A control
// activated in the mirror (a screen reader's click) is pressed where it is painted.

import type { WindowControl } from "../../protocol/dialog-frames";
import { el } from "./controls";
import { aria, byId, listen } from "./dom";
import { officeText } from "./state";

/** The painted window a mirror belongs to. */
export interface MirroredWindow {
  id: string;
  /** A click at a point of the window, in its pixels. */
  press(x: number, y: number): void;
  /** The field that holds the window's keyboard. */
  keyboard: HTMLTextAreaElement;
}

/** LibreOffice's control types (JSDialog's names) → ARIA roles; the others are layout, mirrored through. */
const ROLES: Record<string, string> = {
  pushbutton: "button", okbutton: "button", cancelbutton: "button", helpbutton: "button", menubutton: "button",
  checkbox: "checkbox", radiobutton: "radio",
  edit: "textbox", multilineedit: "textbox",
  spinfield: "spinbutton", formattedfield: "spinbutton", metricfield: "spinbutton",
  listbox: "combobox", combobox: "combobox",
  treeview: "listbox", iconview: "listbox",
  tabcontrol: "tablist", drawingarea: "img", frame: "group",
};

/** The roles whose text is a value (a field's content, a list's choice). */
const VALUED = new Set(["textbox", "spinbutton", "combobox", "listbox"]);

/** The mirror element's id for a control of window `windowId`. */
export const mirrorId = (windowId: string, controlId: string): string => `jsw-${windowId}-${encodeURIComponent(controlId)}`;

/** Lays out `root`'s shown controls in `holder`, and names the focused one as the keyboard's. */
export function mirrorControls(w: MirroredWindow, root: WindowControl, focused: string | undefined, holder: HTMLElement): void {
  const labels = new Map<string, string>();
  const labelled = new Set<string>();
  (function note(n: WindowControl) {
    if (n.type === "fixedtext" && n.id) labels.set(n.id, n.text ?? "");
    if (n.labelFor) labelled.add(n.id);
    n.children?.forEach(note);
  })(root);
  // A control LibreOffice left unlabelled (a condition's lists and value) is named by the text
  // before it, as it is read ("Condition 1").
  let before = "";
  // A field's or a list's own text is its value, never its name.
  const name = (n: WindowControl, role: string) => officeText(n.aria?.label || (n.labelledBy && labels.get(n.labelledBy)) || (VALUED.has(role) ? "" : n.text) || before);
  const nodes: Node[] = [];
  const add = (n: WindowControl, into: Node[]): void => {
    if (n.visible === false) return;
    const role = ROLES[n.type];
    if (n.type === "fixedtext") {
      // A label is said with its control; other text is read as it stands.
      if (!labelled.has(n.id) && n.text) into.push(el("p", { text: officeText(n.text) }));
      if (n.text) before = n.text;
      return;
    }
    if (!role) {
      n.children?.forEach((c) => add(c, into));
      return;
    }
    const inner: Node[] = [];
    if (role === "group" || role === "tablist") n.children?.forEach((c) => add(c, inner));
    const e = el("div", { role, "aria-label": name(n, role) || undefined, tabindex: role === "group" || role === "img" ? undefined : "-1" }, inner);
    if (n.id) e.id = mirrorId(w.id, n.id);
    if (n.enabled === false) aria(e, "disabled", "true");
    if (role === "checkbox" || role === "radio") aria(e, "checked", n.checked === true);
    if (role === "textbox") e.textContent = n.text ?? "";
    if (role === "spinbutton") aria(e, "valuetext", n.text ?? n.value ?? "");
    if (role === "combobox") {
      aria(e, "expanded", "false");
      const entries = (n.entries ?? []).map((x) => (typeof x === "string" ? x : x.text ?? ""));
      e.textContent = officeText(entries[Number(n.selectedEntries?.[0] ?? -1)] ?? n.text ?? "");
    }
    const rect = n.rect;
    if (rect && n.enabled !== false && role !== "group") {
      listen(e, "click", () => {
        w.press(Math.round(rect[0] + rect[2] / 2), Math.round(rect[1] + rect[3] / 2));
        w.keyboard.focus();
      });
    }
    into.push(e);
  };
  add(root, nodes);
  holder.replaceChildren(...nodes);
  const active = focused ? byId(mirrorId(w.id, focused)) : null;
  if (active && holder.contains(active)) aria(w.keyboard, "activedescendant", active.id);
  else w.keyboard.removeAttribute("aria-activedescendant");
}
