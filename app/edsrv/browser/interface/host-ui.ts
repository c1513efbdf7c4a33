// What a Collabora connector changes in the interface through postMessage (Map.WOPI.js's UI
// messages: buttons, commands, menus, status bar, sidebar, ruler, menubar) and what its
// CheckFileInfo asks of it (EnableShare, HideUserList). Accepted before Host_PostmessageReady, as
// Collabora accepts them; the editor's own messages (saving, closing, exports) are ed.js's.

import { button, el, named } from "./controls";
import { people } from "./people";
import { ribbon } from "./ribbon";
import { sidebarShown, toggleSidebar } from "./sidebar";
import { api } from "./state";
import { T } from "./texts";
import { statusbar } from "./status-bar";
import type { WopiInfo } from "../../protocol/frames";
import { aria, byId, listen } from "./dom";

/** Collabora's button ids where ours differ. */
const BUTTON_IDS: Record<string, string> = { downloadas: "download", closebutton: "close", userlist: "people", "save-button": "save" };

/** Hidden or shown again at the host's word (`host-hidden`, whatever else hides or shows it). */
const hide = (e: Element, hidden: boolean): void => { e.classList.toggle("host-hidden", hidden); };

/** The controls a Collabora button id names: the element of that id, or those whose command it is. */
function controls(id: string): HTMLElement[] {
  const ours = BUTTON_IDS[id] || id;
  const named = byId(ours);
  const found = [...document.querySelectorAll<HTMLElement>(`[data-cmd="${CSS.escape(ours)}"]`)];
  return named && !found.includes(named) ? [named, ...found] : found;
}

/** Hide_Command's id is a UNO command with or without ".uno:". */
const commandControls = (id: string): HTMLElement[] =>
  [...document.querySelectorAll<HTMLElement>(`[data-cmd="${CSS.escape(id.startsWith(".uno:") ? id : ".uno:" + id)}"]`)];

interface Values { id?: unknown; label?: unknown; hint?: unknown; imgurl?: unknown; unoCommand?: unknown; insertBefore?: unknown }

/** Insert_Button: a button of the host's beside save; a click posts Clicked_Button (or runs its UNO command). */
function insertButton(v: Values): void {
  const id = String(v.id);
  if (byId(id)) return;
  const label = String(v.hint || v.label || id);
  const b = el("button", { "class": "tb", id, ...named(label), "data-host-button": "1" });
  // The page's CSP allows pictures of its own origin and data: URLs only.
  if (typeof v.imgurl === "string" && v.imgurl.startsWith("data:image/")) b.append(el("img", { src: v.imgurl, alt: "", width: "24", height: "24" }));
  else b.textContent = String(v.label || v.hint || id);
  listen(b, "click", () => {
    if (typeof v.unoCommand === "string" && v.unoCommand) api.uno(v.unoCommand);
    else api.post("Clicked_Button", { id });
  });
  const before = typeof v.insertBefore === "string" ? byId(BUTTON_IDS[v.insertBefore] || v.insertBefore) : null;
  if (before?.parentElement) before.parentElement.insertBefore(b, before);
  else byId("toolbar")!.insertBefore(b, byId("close"));
}

function onHostMessage(e: MessageEvent): void {
  if (e.source !== window.parent) return;
  let msg: { MessageId?: string; Values?: Values } | null = e.data;
  try { if (typeof msg === "string") msg = JSON.parse(msg); } catch { return; }
  if (!msg || typeof msg.MessageId !== "string") return;
  const v = msg.Values || {};
  const id = typeof v.id === "string" ? v.id : "";
  switch (msg.MessageId) {
    case "Hide_Button": case "Show_Button":
      controls(id).forEach((c) => { hide(c, msg!.MessageId === "Hide_Button"); });
      break;
    case "Remove_Button": controls(id).forEach((c) => { c.remove(); }); break;
    case "Insert_Button": if (id) insertButton(v); break;
    case "Hide_Command": case "Show_Command":
      commandControls(id).forEach((c) => { hide(c, msg!.MessageId === "Hide_Command"); });
      break;
    // Collabora's menu items live in its menubar; this interface has none (its tabs are Collabora's
    // notebookbar), so, as Collabora does in notebookbar mode, there is nothing to show or hide.
    case "Show_Menu_Item": case "Hide_Menu_Item": break;
    case "Show_StatusBar": case "Hide_StatusBar": hide(statusbar, msg.MessageId === "Hide_StatusBar"); break;
    case "Show_Menubar": case "Hide_Menubar": hide(ribbon, msg.MessageId === "Hide_Menubar"); break;
    case "Show_Sidebar": case "Hide_Sidebar":
      if (sidebarShown() !== (msg.MessageId === "Show_Sidebar")) {
        const on = toggleSidebar();
        document.querySelectorAll('[data-cmd="sidebar"]').forEach((b) => { aria(b, "pressed", on); });
      }
      break;
    // No ruler is drawn: Show_Ruler and Hide_Ruler change nothing.
    case "Show_Ruler": case "Hide_Ruler": break;
  }
}

/** The connector's properties the toolbar's controls follow; applied again once the toolbar of the document's family is built. */
let info: WopiInfo | null = null;

function applyToToolbar(): void {
  const f = info ? { info } : null;
  if (!f) return;
    // Pictures from the host's storage (Collabora's EnableInsertRemoteImage): the Insert image
  // control asks the host (UI_InsertGraphic); the host answers Action_InsertGraphic with a URL,
  // which the editing server fetches under its SSRF rules. DisableInsertLocalImage leaves the
  // host's pictures only.
  const remote = f.info.EnableInsertRemoteImage === true;
  document.querySelectorAll<HTMLElement>('[data-cmd=".uno:InsertGraphic"]').forEach((b) => {
    if (remote && f.info.DisableInsertLocalImage === true) b.dataset.host = "UI_InsertGraphic";
    else delete b.dataset.host;
    hide(b, !remote && f.info.DisableInsertLocalImage === true);
  });
  if (remote && f.info.DisableInsertLocalImage !== true && !byId("remote-image")) {
    const b = button("remoteimage", T.remoteImage, { icon: "insertgraphic", click: () => { api.uiAction("UI_InsertGraphic"); } });
    b.id = "remote-image";
    document.querySelector('[data-cmd=".uno:InsertGraphic"]')?.after(b);
  }
  // Collabora's HideChangeTrackingControls: no tracked-changes control (the document keeps its changes).
  document.querySelectorAll(".tracked-changes").forEach((b) => { hide(b, f.info.HideChangeTrackingControls === true); });
}

export function installHostUi(): void {
  listen(window, "message", onHostMessage);
  let share: HTMLButtonElement | null = null;
  // The toolbar of the document's family is built on its first status: the properties apply to it then.
  api.on("status", () => { applyToToolbar(); });
  api.on("wopi", (f) => {
    const list = f.info.HideUserList;
    const device = matchMedia("(max-width: 767px)").matches ? "mobile" : "desktop";
    hide(people, list === "true" || (typeof list === "string" && list.split(",").includes(device)));
    info = f.info;
    applyToToolbar();
    if (f.info.EnableShare === true && !share) {
      // Sharing is the host's: the button only tells it (UI_Share), as Collabora's does.
      share = button("shareas", T.share, { view: true, click: () => { api.uiAction("UI_Share"); } });
      share.id = "share";
      byId("toolbar")!.insertBefore(share, byId("close"));
    }
  });
}
