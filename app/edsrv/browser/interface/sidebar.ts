// LibreOffice's sidebar (issue 33): its Properties deck — style, character, paragraph, and in
// other families their own panels — as LibreOffice describes it (JSDialog, `"jsontype":
// "sidebar"`), drawn with the dialogs' widgets (dialog-widgets.ts) in a panel at the document's
// right (a sheet over the document on a phone). Its buttons are LibreOffice's commands with their
// Colibre icons (the kit leaves out those the door refuses); every act goes back as a
// `dialogevent` to the sidebar's window, and LibreOffice answers with what changed.

import { dialogEventCommand, type DialogEvent, type JsDialogMessage, type JsWidget } from "../../protocol/dialog-frames";
import { applyWidgetAction, buildInto, buildWidget, type WidgetHost } from "./dialog-widgets";
import { el } from "./controls";
import { api } from "./state";
import { T } from "./texts";

export const sidebarPanel = el("aside", { id: "sidebar", role: "complementary", "aria-label": T.sidebar, hidden: "" });
let windowId = "";
const widgets = new Map<string, HTMLElement>();
let shown = false;

const host: WidgetHost = {
  domId: (widgetId) => `sb-${widgetId.replace(/[^A-Za-z0-9_-]/g, "_")}`,
  send: (e: DialogEvent) => { if (windowId) api.send(dialogEventCommand(windowId, e)); },
  responses: new Map(),
  remember: (w: JsWidget, e: HTMLElement) => { widgets.set(w.id, e); },
};

function build(message: JsWidget): void {
  windowId = String(message.id);
  widgets.clear();
  sidebarPanel.replaceChildren();
  buildInto(sidebarPanel, message.children, host);
  sidebarPanel.hidden = !shown;
}

function onSidebar({ message: m }: { message: JsDialogMessage }): void {
  if (m.jsontype !== "sidebar") return;
  if (m.action === undefined) return build(m);
  if (m.action === "close") { sidebarPanel.hidden = true; return; }
  if (m.action === "update") {
    const old = widgets.get(m.control.id);
    if (!old || !old.isConnected) return;
    const fresh = buildWidget(m.control, host);
    if (fresh) old.replaceWith(fresh);
    return;
  }
  if (m.action === "action") {
    const e = widgets.get(m.data.control_id);
    if (e) applyWidgetAction(e, m.data);
  }
}

export const sidebarShown = (): boolean => shown;

/** Shows or hides the sidebar (LibreOffice makes it for this view when first shown). */
export function toggleSidebar(): boolean {
  shown = !shown;
  document.body.classList.toggle("with-sidebar", shown);
  api.uno(shown ? ".uno:SidebarShow" : ".uno:SidebarHide");
  sidebarPanel.hidden = !shown || !sidebarPanel.childElementCount;
  return shown;
}

export function installSidebar(): void {
  document.body.append(sidebarPanel);
  api.on("jsdialog", onSidebar);
  // A new engine (a recovery) has no sidebar until it is asked again.
  api.on("reconnected", () => { if (shown) api.uno(".uno:SidebarShow"); });
}
