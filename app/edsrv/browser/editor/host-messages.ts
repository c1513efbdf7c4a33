// What the host page asks of the editor through postMessage (Collabora's API), and what the
// editor tells it once the host's CheckFileInfo is known (`wopi:`).

import { downloadAsCommand } from "../../protocol/frames";
import { pasteData } from "./clipboard";
import { doSave, uno } from "./commands";
import { handle } from "./frames-in";
import { post, setHostOrigin, takeOver, uiAction, viewJson } from "./host";
import { body, docNameEl, focusDocument, ime, saveButton } from "./page";
import { closeSocket, send, sendInput } from "./outbox";
import { edState as S, mark, update } from "./state";

interface HostMessage {
  MessageId?: string;
  Values?: {
    DontTerminateEdit?: unknown;
    DontSaveIfUnmodified?: unknown;
    Notify?: unknown;
    ExtendedData?: string;
    Command?: unknown;
    Args?: unknown;
    Format?: unknown;
    Label?: unknown;
    Mimetype?: unknown;
    Data?: unknown;
    url?: unknown;
    action?: unknown;
    disable?: unknown;
  };
}

let framePosted = false;
let baseName = "";

/** Action_ShowBusy's label over the document until Action_HideBusy. */
function busy(label: string | null): void {
  let b = document.getElementById("busy");
  if (!b && label === null) return;
  if (!b) {
    b = document.createElement("div");
    b.id = "busy";
    b.setAttribute("role", "status");
    b.style.cssText = "position:fixed;inset:0;display:flex;align-items:center;justify-content:center;background:rgba(255,255,255,.6);z-index:50;font:16px sans-serif";
    body.appendChild(b);
  }
  b.hidden = label === null;
  b.textContent = label || "";
}

/** Action_Export and Action_Print: the server's export, fetched as the interface's own downloads are. */
function download(format: string, purpose: string): void {
  if (!/^[a-z0-9]{1,8}$/i.test(format)) return;
  send(downloadAsCommand((baseName.replace(/\.[^.]*$/, "") || "document") + "." + format, purpose, format));
}

/**
 * Collabora intercepts window.open so that the host can handle a link a person opens
 * (UI_Hyperlink); with Disable_Default_UIAction for UI_Hyperlink the editor does not open it.
 */
function interceptLinks(): void {
  const open = window.open.bind(window);
  window.open = (url?: string | URL, name?: string, features?: string) =>
    // The editor's own downloads (print opens the PDF in a tab) are not links a person opened.
    String(url).startsWith(location.origin + "/ed/document/download/") || uiAction("UI_Hyperlink", { Url: url === undefined ? "" : String(url), Name: name, Features: features }) ? open(url, name, features) : null;
}

export function installHostMessages(): void {
  handle("insertgraphicurl", () => { post("Action_InsertGraphic_Resp", { success: true, result: "inserted" }); });
  handle("error", (f) => {
    if (f.command === "insertgraphicurl") post("Action_InsertGraphic_Resp", { success: false, result: f.kind });
  });
  handle("wopi", ({ info }) => {
    mark("wopi");
    if (info.PostMessageOrigin) setHostOrigin(info.PostMessageOrigin);
    baseName = info.BaseFileName || "";
    docNameEl.textContent = info.BreadcrumbDocName || info.BaseFileName || "";
    S.disableCopy = info.DisableCopy === true;
    document.title = info.BaseFileName || document.title;
    saveButton.hidden = !!info.HideSaveOption;
    if (!framePosted) post("App_LoadingStatus", { Status: "Frame_Ready", Features: { VersionStates: true } });
    framePosted = true;
  });
  interceptLinks();
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
      case "Disable_Default_UIAction":
        if (typeof v.action === "string" && v.disable !== undefined) takeOver(v.action, !!v.disable);
        break;
      case "Blur_Focus": if (document.activeElement === ime) ime.blur(); break;
      case "Action_ShowBusy": if (typeof v.Label === "string" && v.Label) busy(v.Label); break;
      case "Action_HideBusy": busy(null); break;
      case "Action_Print": if (S.loaded) download("pdf", "print"); break;
      case "Action_Export": if (S.loaded && typeof v.Format === "string") download(v.Format, "export"); break;
      case "Action_Paste":
        if (S.loaded && !S.readOnly && typeof v.Mimetype === "string" && typeof v.Data === "string") pasteData(v.Mimetype, new TextEncoder().encode(v.Data));
        break;
      case "Action_InsertGraphic":
        // The editing server fetches the picture (under its SSRF rules) and inserts it at the
        // cursor; the host hears how it went (svc's own answer: Collabora sends none).
        if (!S.loaded || S.readOnly || typeof v.url !== "string" || !v.url) post("Action_InsertGraphic_Resp", { success: false, result: S.readOnly ? "readonly" : "badargs" });
        else sendInput("insertgraphicurl url=" + encodeURIComponent(v.url));
        break;
      case "Action_SaveAs":
        // Save As is not in v1 (UserCanNotWriteRelative). Collabora, when the copy cannot be made in
        // the host's storage, sends `error: cmd=saveas kind=saveasfailed` (DocumentBroker), which its
        // page posts as Action_Save_Resp {success: false, result: <kind>}: the same answer here.
        post("Action_Save_Resp", { success: false, result: "saveasfailed" });
        break;
    }
  });
}
