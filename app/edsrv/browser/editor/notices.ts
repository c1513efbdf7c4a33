// What the page tells the person: the opening indicator and its failure, the message line, and
// the read-only and modified state in the toolbar.

import { emit } from "./events";
import { loadingEl, loadingText, messageEl, modifiedEl, pageData, stateEl } from "./page";
import { editor } from "./state";

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
  emit("firstpaint", "");
}

/** Opening failed: the indicator becomes a message that says why, in the page's language. */
export function loadFailed(text: string | undefined): void {
  if (editor.docLoaded || loadingEl.classList.contains("failed")) return;
  loadingEl.classList.add("failed");
  loadingEl.setAttribute("role", "alert");
  loadingText.textContent = text + " " + pageData.textRetry;
}

export function showState(): void {
  const { readOnly, modified } = editor;
  modifiedEl.hidden = !modified;
  stateEl.textContent = (readOnly ? pageData.textReadOnly || "" : "") + (modified ? (readOnly ? " · " : "") + (pageData.textModified || "") : "");
}
