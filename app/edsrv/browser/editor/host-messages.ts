// What the host page asks of the editor through postMessage (Collabora's API), and what the
// editor tells it once the host's CheckFileInfo is known (`wopi:`).

import { doSave, uno } from "./commands";
import { handle } from "./frames-in";
import { post, setHostOrigin, viewJson } from "./host";
import { docNameEl, focusDocument, saveButton } from "./page";
import { closeSocket, send } from "./outbox";
import { edState as S, mark, update } from "./state";

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

let framePosted = false;

export function installHostMessages(): void {
  handle("wopi", ({ info }) => {
    mark("wopi");
    if (info.PostMessageOrigin) setHostOrigin(info.PostMessageOrigin);
    docNameEl.textContent = info.BaseFileName || "";
    document.title = info.BaseFileName || document.title;
    saveButton.hidden = !!info.HideSaveOption;
    if (!framePosted) post("App_LoadingStatus", { Status: "Frame_Ready", Features: { VersionStates: true } });
    framePosted = true;
  });
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent) return;
    let msg: HostMessage | null = e.data;
    try { if (typeof msg === "string") msg = JSON.parse(msg) as HostMessage; } catch { return; }
    if (!msg || !msg.MessageId) return;
    const v = msg.Values || {};
    switch (msg.MessageId) {
      case "Host_PostmessageReady": S.hostReady = true; break;
      case "Close_Session": update({ stayClosed: true }); send("closedocument"); break;
      case "Grab_Focus": focusDocument(); break;
      case "Action_Save":
        if (!S.loaded) return;
        doSave(!!v.DontTerminateEdit, !!v.DontSaveIfUnmodified, !!v.Notify, v.ExtendedData || "");
        break;
      case "Action_Close":
        update({ stayClosed: true });
        closeSocket();
        break;
      case "Send_UNO_Command":
        if (S.loaded && typeof v.Command === "string") uno(v.Command);
        break;
      case "Get_Views": post("Get_Views_Resp", S.views.map(viewJson)); break;
    }
  });
}
