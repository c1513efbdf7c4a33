// A short note that goes by itself (a download that could not be prepared).

import { el } from "./controls";

let noteEl: HTMLDivElement | null = null;
export function showNote(text: string): void {
  if (!noteEl) { noteEl = el("div", { id: "note", role: "alert" }); document.body.append(noteEl); }
  const note = noteEl;
  note.textContent = text; note.hidden = false;
  setTimeout(() => { note.hidden = true; }, 5000);
}
