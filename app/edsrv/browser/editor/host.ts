// Collabora's postMessage API towards the host page that frames the editor.

import type { ViewInfo } from "../../protocol/frames";
import { pageData } from "./page";

const inFrame = window.parent !== window;
let targetOrigin = pageData.postmessageOrigin || "*";

/** The origin the host's CheckFileInfo named (PostMessageOrigin) replaces the page's. */
export function setHostOrigin(origin: string): void {
  targetOrigin = origin;
}

export function post(id: string, values?: unknown): void {
  if (!inFrame) return;
  window.parent.postMessage(JSON.stringify({ MessageId: id, SendTime: Date.now(), Values: values || {} }), targetOrigin);
}

/** UI_* actions the host took over (Disable_Default_UIAction): the editor only posts them. */
const takenOver: Record<string, boolean> = {};

export function takeOver(action: string, disable: boolean): void {
  takenOver[action] = disable;
}

/**
 * A person's action the host hears of (UI_Save, UI_Close, UI_Share, UI_Hyperlink…), as
 * Collabora posts it: true when the editor then acts itself, false when the host took it over.
 */
export function uiAction(id: string, values?: unknown): boolean {
  post(id, values);
  return !takenOver[id];
}

/** A view as the host's Views_List and Get_Views_Resp give it. */
export function viewJson(v: ViewInfo) {
  return { ViewId: v.viewid, UserId: v.userid, UserName: v.username, ReadOnly: v.readonly, IsCurrentView: v.current };
}
