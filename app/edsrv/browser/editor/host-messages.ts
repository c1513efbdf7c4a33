// What the host page asks of the editor through postMessage (Collabora's API).

import { doSave, uno } from "./commands";
import { post, viewJson } from "./host";
import { focusDocument } from "./page";
import { closeSocket, send } from "./socket";
import { edState as S, editor } from "./state";

interface HostMessage {
  MessageId?: string;
  Values?: {
    DontTerminateEdit?: unknown;
    DontSaveIfUnmodified?: unknown;
    Notify?: unknown;
    ExtendedData?: string;
    Command?: unknown;
  };
}

export function installHostMessages(): void {
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent) return;
    let msg: HostMessage | null = e.data;
    try { if (typeof msg === "string") msg = JSON.parse(msg) as HostMessage; } catch { return; }
    if (!msg || !msg.MessageId) return;
    const v = msg.Values || {};
    switch (msg.MessageId) {
      case "Host_PostmessageReady": S.hostReady = true; break;
      case "Close_Session": editor.stayClosed = true; send("closedocument"); break;
      case "Grab_Focus": focusDocument(); break;
      case "Action_Save":
        if (!editor.docLoaded) return;
        doSave(!!v.DontTerminateEdit, !!v.DontSaveIfUnmodified, !!v.Notify, v.ExtendedData || "");
        break;
      case "Action_Close":
        editor.stayClosed = true;
        closeSocket();
        break;
      case "Send_UNO_Command":
        if (editor.docLoaded && typeof v.Command === "string") uno(v.Command);
        break;
      case "Get_Views": post("Get_Views_Resp", S.views.map(viewJson)); break;
    }
  });
}
