// Screen readers read the document's text (issue 33, item 5): the document's tiles are pictures,
// so a screen reader has nothing to read there. With screen reader support on, LibreOffice tells
// this view the paragraph that has the caret, and where the caret and the selection are in it
// (`a11yfocuschanged:`, `a11ycaretchanged:`, `a11ytextselectionchanged:`, a table cell's in
// `a11yfocusedcellchanged:`); the page puts that paragraph into the document's own input (#ime,
// which has the keyboard while a person edits) with the caret where LibreOffice's is, so the screen
// reader reads the line, word or character the caret moved over, as in any text field (Collabora
// Online does the same). Keys still go to LibreOffice: the input only mirrors. Off by default:
// it costs LibreOffice work on every change; the View tab turns it on, and the page remembers it.

import type { A11yParagraph as Paragraph } from "../../protocol/server-frames";
import { handle } from "./frames-in";
import { ime } from "./page";
import { send } from "./outbox";
import { isComposing } from "./keyboard";

let enabled = false;

/** Turns the mirror on or off for this view (the engine starts or stops telling). */
export function setScreenReader(on: boolean): void {
  if (on === enabled) return;
  enabled = on;
  send(on ? "a11ystate true" : "a11ystate false");
  document.body.classList.toggle("screen-reader", on);
  if (!on && !isComposing()) ime.value = "";
}

export const screenReaderOn = (): boolean => enabled;

function caret(position: number, start = -1, end = -1): void {
  const len = ime.value.length;
  const clamp = (n: number) => Math.max(0, Math.min(len, n));
  if (start >= 0 && end >= 0 && start !== end) ime.setSelectionRange(clamp(Math.min(start, end)), clamp(Math.max(start, end)), start > end ? "backward" : "forward");
  else ime.setSelectionRange(clamp(position), clamp(position));
}

function paragraph(p: Paragraph): void {
  // An input method's composition is in the input: left alone until it ends.
  if (!enabled || isComposing() || typeof p.content !== "string") return;
  if (ime.value !== p.content) ime.value = p.content;
  caret(Number(p.position ?? 0), Number(p.start ?? -1), Number(p.end ?? -1));
}

export function installScreenReader(): void {
  handle("a11yfocuschanged", (f) => { paragraph(f.paragraph); });
  handle("a11ycaretchanged", ({ paragraph: p }) => {
    if (!enabled || isComposing()) return;
    caret(Number(p.position ?? 0));
  });
  handle("a11ytextselectionchanged", ({ paragraph: p }) => {
    if (!enabled || isComposing()) return;
    caret(Number(p.end ?? 0), Number(p.start ?? -1), Number(p.end ?? -1));
  });
  handle("a11yfocusedcellchanged", (f) => { if (f.paragraph) paragraph(f.paragraph); });
}
