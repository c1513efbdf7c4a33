// The system clipboard through the browser's copy, cut and paste events. A copy event must fill
// the clipboard at once, so the selection's content (HTML and plain text, made by the engine) is
// fetched ahead, shortly after the selection settles; a copy that comes before it has arrived
// writes it with the asynchronous clipboard API when it does (which needs the frame's
// clipboard-write permission: api.js grants it).

import { dataCommand, GET_TEXT_SELECTION } from "../../protocol/frames";
import { CHARS, key, KEYS } from "./keyboard";
import { showMessage } from "./notices";
import { ime, pageData } from "./page";
import { send, sendInput } from "./outbox";
import { handle } from "./frames-in";
import { edState as S, watch, type SelectionContent } from "./state";

let clip: SelectionContent | null = null, clipSeq = 0, clipTimer: ReturnType<typeof setTimeout> | 0 = 0;
let pendingCopy: { cut: boolean } | null = null;
const clipAsked: number[] = [];

function hasSelection(): boolean {
  return S.selection.length > 0 || !!(S.status && S.status.type === "spreadsheet" && S.cellCursor);
}
/** The selection changed: what was fetched for the old one is no longer what a copy takes. */
function selectionChanged(): void {
  clipSeq++; clip = null;
  clearTimeout(clipTimer);
  if (hasSelection()) clipTimer = setTimeout(fetchSelection, 150);
}
function fetchSelection(): void {
  clipAsked.push(clipSeq); // answers come in the order asked
  send(GET_TEXT_SELECTION);
}
/** `textselectioncontent:` the selection as HTML and plain text. */
function onSelectionContent(f: { html: string; plain: string }): void {
  const seq = clipAsked.shift();
  clip = { html: f.html, text: f.plain, seq };
  S.clip = clip;
  if (pendingCopy && clip.seq === clipSeq) { const p = pendingCopy; pendingCopy = null; writeClipboard(p.cut); }
}
function writeClipboard(cut: boolean): void {
  if (!navigator.clipboard || !window.ClipboardItem) return;
  const c = clip!;
  const item = new ClipboardItem({ "text/html": new Blob([c.html], { type: "text/html" }), "text/plain": new Blob([c.text], { type: "text/plain" }) });
  navigator.clipboard.write([item]).then(() => { if (cut) removeSelection(); }, () => { showMessage(pageData.textClipboard); });
}
function removeSelection(): void {
  key(KEYS.Delete!, CHARS.Delete!);
}
function copyOut(e: ClipboardEvent, cut: boolean): void {
  if (!hasSelection()) return; // nothing selected: the clipboard keeps what it has
  e.preventDefault();
  if (S.disableCopy) { e.clipboardData!.setData("text/plain", ""); return; } // CheckFileInfo's DisableCopy
  if (clip && clip.seq === clipSeq) {
    e.clipboardData!.setData("text/html", clip.html);
    e.clipboardData!.setData("text/plain", clip.text);
    if (cut && !S.readOnly) removeSelection();
    return;
  }
  pendingCopy = { cut: cut && !S.readOnly };
  fetchSelection();
}

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  return btoa(bin);
}
/** Clipboard content pasted into the document. */
export function pasteData(mime: string, bytes: Uint8Array): void {
  sendInput(dataCommand("paste", mime, base64(bytes)));
}
/** A picture the person chose, inserted at the cursor. */
export function insertGraphic(mime: string, bytes: Uint8Array): void {
  sendInput(dataCommand("insertgraphic", mime, base64(bytes)));
}

export function installClipboard(): void {
  handle("textselectioncontent", onSelectionContent);
  watch(["selection", "cellCursor"], selectionChanged);
  ime.addEventListener("copy", (e) => { copyOut(e, false); });
  ime.addEventListener("cut", (e) => { copyOut(e, true); });
  ime.addEventListener("paste", (e) => {
    e.preventDefault();
    if (S.readOnly) return;
    const dt = e.clipboardData!, html = dt.getData("text/html"), text = dt.getData("text/plain");
    const image = Array.prototype.filter.call(dt.files || [], (f: File) => f.type === "image/png")[0] as File | undefined;
    if (html) return pasteData("text/html;charset=utf-8", new TextEncoder().encode(html));
    if (text) return pasteData("text/plain;charset=utf-8", new TextEncoder().encode(text));
    if (image) image.arrayBuffer().then((b) => { pasteData("image/png", new Uint8Array(b)); });
  });
}
