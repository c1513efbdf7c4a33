// What the page tells the person: the opening indicator and its failure, the message line (with
// what the server's `error:` frames mean for the person), and the read-only and modified state in
// the toolbar, drawn from the editor's state whenever it changes.

import { emit } from "./events";
import { handle } from "./frames-in";
import { post } from "./host";
import { onOfflineInput, send } from "./outbox";
import { body, loadingEl, loadingText, messageEl, modifiedEl, pageData, stateEl } from "./page";
import { edState as S, update, watch } from "./state";

// Input refused while the editor reconnects is never dropped without a word.
onOfflineInput(() => showMessage(pageData.textOffline, "offline"));

/** The page's one message line; `kind` lets the message go by itself when its cause clears (a save that works again). */
export function showMessage(text: string | undefined, kind?: string): void {
  messageEl.textContent = text ?? "";
  messageEl.hidden = !text;
  messageEl.dataset.kind = text ? kind || "" : "";
}
export function clearMessage(kind: string): void {
  if (messageEl.dataset.kind === kind) showMessage("");
}

/**
 * The document changed in storage since it was opened here (Collabora's "documentconflict": a
 * PutFile 409, or a new view's CheckFileInfo with another LastModifiedTime): the person chooses, as in Collabora, between storing their version over
 * the storage's (a forced save) and the storage's version for everyone (the server keeps theirs
 * in its quarantine folder, so nothing is lost, and every page reopens the document). A read-only
 * view is only told.
 */
export function showConflict(): void {
  showMessage(pageData.textConflict, "save");
  if (S.readOnly) return;
  const choice = (id: string, label: string | undefined, frame: string) => {
    const b = document.createElement("button");
    b.type = "button";
    b.id = id;
    b.textContent = label ?? id;
    b.addEventListener("click", () => {
      showMessage("");
      send(frame);
    });
    messageEl.append(" ", b);
  };
  choice("conflict-keep", pageData.textConflictKeep, "save force=1 notify=0");
  choice("conflict-reload", pageData.textConflictReload, "closedocument reason=documentconflict");
}

/** A failed store (`error: cmd=storage kind=…`) in the page's language; undefined for another kind. */
export function storageFailureText(kind: string): string | undefined {
  return kind === "saveunauthorized" ? pageData.textSaveUnauthorized : kind === "savetoolarge" ? pageData.textSaveTooLarge : kind === "savefailed" ? pageData.textSaveFailed : undefined;
}

/**
 * The indicator shown from the page's first paint (page.ts) goes once the first screen is drawn.
 * What the first screen does not need waits for it: the PNG decoder for typing (tiles decode
 * with createImageBitmap until it is there) and the interface's requests (the font list).
 */
export function loaded(): void {
  if (loadingEl.hidden) return;
  loadingEl.hidden = true;
  const s = document.createElement("script");
  s.src = "fflate.js";
  s.async = true;
  document.body.appendChild(s);
  emit("firstpaint");
}

/** Opening failed: the indicator becomes a message that says why, in the page's language. */
export function loadFailed(text: string | undefined): void {
  if (S.loaded || loadingEl.classList.contains("failed")) return;
  loadingEl.classList.add("failed");
  loadingEl.setAttribute("role", "alert");
  loadingText.textContent = text + " " + pageData.textRetry;
}

function showReadOnly(): void {
  body.classList.toggle("readonly", S.readOnly);
}

function showState(): void {
  const { readOnly, modified } = S;
  modifiedEl.hidden = !modified;
  stateEl.textContent = (readOnly ? pageData.textReadOnly || "" : "") + (modified ? (readOnly ? " · " : "") + (pageData.textModified || "") : "");
}

/** `error:` what the person is told, and an opening that failed. */
function onError(f: { text: string; command: string; kind: string }): void {
  const { text, command, kind } = f;
  S.errors.push(text);
  if (command === "recovery" && kind === "actiondropped") showMessage(pageData.textActionDropped, "recovery");
  else if ((command === "paste" || command === "insertgraphic" || command === "insertgraphicurl") && kind === "toolarge") showMessage(pageData.textInputTooLarge, "input");
  else if (command === "uno" && /^(notallowed|badargs|toolarge)$/.test(kind)) showMessage(pageData.textCommandRefused, "input");
  else if (command === "uno" && kind === "dialogbusy") showMessage(pageData.textDialogBusy, "input");
  else if (command === "storage" && kind === "documentconflict") showConflict();
  else if (command === "storage" && storageFailureText(kind)) showMessage(storageFailureText(kind), "save");
  else if (/^(unauthorized|faileddocloading|crashed|documentconflict|savetoolarge|savefailed|saveunauthorized|docunloading|kitunavailable)$/.test(kind)) showMessage("Error: " + text, command === "storage" ? "save" : "");
  if (!S.loaded && (command === "load" || command === "internal")) {
    post("App_LoadingStatus", { Status: "Failed" });
    loadFailed(kind === "unauthorized" ? pageData.textUnauthorized : kind === "kitunavailable" || kind === "docunloading" ? pageData.textUnavailable : pageData.textFailed);
  }
}

export function installNotices(): void {
  // Drawn at the first `perm:` even when it says what the page assumed (read-only until told).
  handle("perm", (f) => { update({ readOnly: f.readOnly }); showReadOnly(); showState(); });
  handle("statechanged", (f) => {
    if (f.command !== ".uno:ModifiedStatus") return;
    const modified = f.value.trim() === "true";
    if (modified !== S.modified) post("Doc_ModifiedStatus", { Modified: modified });
    update({ modified, everModified: S.everModified || modified });
  });
  handle("error", onError);
  // A store went through (a retry after a failure, another person's save, a forced save): what
  // the message line said about storing no longer holds.
  handle("lastmodtime", () => { clearMessage("save"); });
  watch(["readOnly"], showReadOnly);
  watch(["readOnly", "modified", "connected"], showState);
}
