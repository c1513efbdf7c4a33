// Commands of the document: UNO commands, saving, and the toolbar's own buttons (save, undo,
// redo, close).

import { saveCommand, unoCommand, type UnoArguments } from "../../protocol/frames";
import { emit } from "./events";
import { post } from "./host";
import { showMessage } from "./notices";
import { closeButton, focusDocument, pageData, redoButton, saveButton, undoButton } from "./page";
import { send, sendInput } from "./socket";
import { editor } from "./state";

/** A UNO command with Collabora's argument object ({"Name": {"type": "string", "value": …}}). */
export function uno(cmd: string, args?: UnoArguments): void {
  if (editor.readOnly) return;
  sendInput(unoCommand(cmd, args));
}

export function doSave(dontTerminateEdit: boolean, dontSaveIfUnmodified: boolean, notify: boolean, extendedData: string): void {
  // Not sent while reconnecting: the host hears at once instead of waiting for its time-out.
  if (!editor.connected) {
    showMessage(pageData.textOffline, "offline");
    if (notify) post("Action_Save_Resp", { success: false, result: "disconnected", errorMsg: "the editor is reconnecting" });
    return;
  }
  emit("savesent", "");
  send(saveCommand(dontTerminateEdit, dontSaveIfUnmodified, notify, extendedData));
}

export function installCommandButtons(): void {
  saveButton.addEventListener("click", () => { post("UI_Save", { source: "toolbar" }); doSave(true, false, false, ""); focusDocument(); });
  undoButton.addEventListener("click", () => { uno(".uno:Undo"); focusDocument(); });
  redoButton.addEventListener("click", () => { uno(".uno:Redo"); focusDocument(); });
  closeButton.hidden = !/^(1|true|yes|on)$/i.test(new URLSearchParams(location.search).get("closebutton") || "");
  closeButton.addEventListener("click", () => {
    post("UI_Close", { EverModified: editor.everModified });
    post("close", { EverModified: editor.everModified });
  });
}
