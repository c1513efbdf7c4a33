// Keys and text: a typed character goes to the engine from its keydown (the latency-critical
// path: nothing here waits or does more than build the frame); dead keys, Alt+letter and IME
// composition take the hidden textarea's way (input and composition events).

import { keyCommand, textInputCommand, unoCommand } from "../../protocol/frames";
import { doSave, uno } from "./commands";
import { uiAction } from "./host";
import { ime } from "./page";
import { send, sendInput } from "./outbox";
import { edState as S } from "./state";

import { CHARS, KEYS, MOD1, MOD2, SHIFT } from "../../protocol/keys";

export { CHARS, KEYS, MOD1, MOD2, SHIFT };

let composing = false;
/** An input method's composition is under way in the document's input. */
export const isComposing = (): boolean => composing;

/** A key pressed and released. */
export function key(code: number, ch: number): void {
  if (S.modalWindows) return;
  sendInput(keyCommand("input", ch || 0, code));
  send(keyCommand("up", ch || 0, code));
}

export function installKeyboard(): void {
  ime.addEventListener("keydown", (e) => {
    if (composing || e.isComposing || e.keyCode === 229) return;
    const mod = e.ctrlKey || e.metaKey, k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (mod && !e.altKey) {
      if (k === "z" && !e.shiftKey) { e.preventDefault(); uno(".uno:Undo"); return; }
      if (k === "y" || (k === "z" && e.shiftKey)) { e.preventDefault(); uno(".uno:Redo"); return; }
      if (k === "s") { e.preventDefault(); if (uiAction("UI_Save", { source: "keyboard" })) doSave(true, false, false, ""); return; }
      if (k === "a") { e.preventDefault(); if (!S.modalWindows) send(unoCommand(".uno:SelectAll")); return; }
      if (k === "c" || k === "x" || k === "v") return; // the browser's copy, cut and paste events (clipboard.ts)
      if (/^[a-z]$/.test(k)) { e.preventDefault(); key(512 + k.charCodeAt(0) - 97 + MOD1 + (e.shiftKey ? SHIFT : 0), 0); return; }
    }
    const code = KEYS[e.key];
    if (code) {
      e.preventDefault();
      if (S.readOnly && !(code >= 1024 && code <= 1031)) return;
      key(code + (e.shiftKey ? SHIFT : 0) + (mod ? MOD1 : 0) + (e.altKey ? MOD2 : 0), CHARS[e.key] || 0);
      return;
    }
    // A character typed (AltGr's included: Ctrl+Alt on Windows) goes to the engine from here, not
    // through the hidden textarea: letting the browser insert it there first (its editing, layout,
    // selection events, a frame) took 5-10 ms of every keystroke on 2 cores before it was sent.
    if (Array.from(e.key).length === 1 && !e.metaKey && e.ctrlKey === e.altKey) {
      e.preventDefault();
      sendInput(textInputCommand(e.key));
    }
  });
  ime.addEventListener("compositionstart", () => { composing = true; });
  ime.addEventListener("compositionupdate", (e) => { sendInput(textInputCommand(e.data || "", true)); });
  ime.addEventListener("compositionend", (e) => {
    composing = false;
    S.compositions++;
    if (e.data) sendInput(textInputCommand(e.data));
    ime.value = "";
  });
  ime.addEventListener("input", (e) => {
    const ev = e as InputEvent; // an input event of a textarea
    if (composing || ev.isComposing) return;
    if ((ev.inputType === "insertText" || ev.inputType === "insertReplacementText") && ev.data) sendInput(textInputCommand(ev.data));
    ime.value = "";
  });
}
