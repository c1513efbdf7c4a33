// Commands of the document: UNO commands, saving, and the toolbar's own buttons (save, undo,
// redo, close).

import { saveCommand, unoCommand, type SaveResult, type UnoArguments } from "../../protocol/frames";
import { emit } from "./events";
import { handle } from "./frames-in";
import { post, uiAction } from "./host";
import { clearMessage, showConflict, showMessage, storageFailureText } from "./notices";
import { closeButton, focusDocument, pageData, redoButton, saveButton, undoButton } from "./page";
import { send, sendInput } from "./outbox";
import { edState as S } from "./state";

/** A UNO command with Collabora's argument object ({"Name": {"type": "string", "value": …}}). */
export function uno(cmd: string, args?: UnoArguments): void {
  if (S.readOnly) return;
  sendInput(unoCommand(cmd, args));
}

export function doSave(dontTerminateEdit: boolean, dontSaveIfUnmodified: boolean, notify: boolean, extendedData: string): void {
  // Not sent while reconnecting: the host hears at once instead of waiting for its time-out.
  if (!S.connected) {
    showMessage(pageData.textOffline, "offline");
    if (notify) post("Action_Save_Resp", { success: false, result: "disconnected", errorMsg: "the editor is reconnecting" });
    return;
  }
  emit("savesent");
  send(saveCommand(dontTerminateEdit, dontSaveIfUnmodified, notify, extendedData));
}

/** `saveresult:` a failure told (not "unmodified": nothing to store), and the host answered if it asked. */
function onSaveResult(r: SaveResult): void {
  S.lastSave = r;
  if (r.result === "conflict") showConflict();
  // What the storage answered, in the page's language (a failed store is tried again by the server).
  else if (r.result === "unauthorized" || r.result === "toolarge" || r.result === "failed") showMessage(storageFailureText("save" + r.result), "save");
  else if (!r.success && r.result !== "unmodified") showMessage((pageData.textNotSaved || "") + " " + (r.errorMsg || r.result), "save");
  else if (r.success) clearMessage("save");
  if (r.notify) post("Action_Save_Resp", { success: r.success, result: r.result, errorMsg: r.errorMsg || "" });
}

export function installCommands(): void {
  handle("saveresult", (f) => { onSaveResult(f.result); });
  saveButton.addEventListener("click", () => {
    if (uiAction("UI_Save", { source: "toolbar" })) doSave(true, false, false, "");
    focusDocument();
  });
  undoButton.addEventListener("click", () => { uno(".uno:Undo"); focusDocument(); });
  redoButton.addEventListener("click", () => { uno(".uno:Redo"); focusDocument(); });
  closeButton.hidden = !/^(1|true|yes|on)$/i.test(new URLSearchParams(location.search).get("closebutton") || "");
  closeButton.addEventListener("click", () => {
    post("UI_Close", { EverModified: S.everModified });
    post("close", { EverModified: S.everModified });
  });
}
