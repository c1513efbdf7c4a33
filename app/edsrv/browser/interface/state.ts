// window.edUi, what the interface shows (read by the tests), and the engine's state at the cursor
// (`statechanged:`) with the controls that show it: nothing here keeps its own idea of the document.

import type { EditorApi } from "../editor/api";

export interface InterfaceState {
  /** ".uno:Bold" → "true", as the engine last reported for this view. */
  state: Record<string, string>;
  /** Matches of the last search, -1 before any. */
  matches: number;
  comments: Comment[];
  lastDownload: { url: string; purpose: string } | null;
  headers: SheetHeaders | null;
}

/** A comment as `.uno:ViewAnnotations` lists it. */
export interface Comment {
  id: string | number;
  author?: string;
  /** The comment's plain text (LibreOffice 7.4 sent it as `text`; 25.2 sends `html`, made plain on arrival). */
  text?: string;
  /** LibreOffice 25.2: the comment as HTML (`<div>…</div>`). */
  html?: string;
  resolved?: string;
  anchorPos?: string;
  /** Writer: the commented text's rectangles (twips, "x, y, w, h; …"). */
  textRange?: string;
}

/** `.uno:ViewRowColumnHeaders`: each row's and column's end (pixels at the zoom the engine was told, sheet-headers.ts) and its label. */
export interface SheetHeaders {
  columns?: { size: number | string; text: string | number }[];
  rows?: { size: number | string; text: string | number }[];
}

/** The editor's hooks (ed.js): ui.ts runs only when they are there. */
export const api = window.edApi as EditorApi;
export const S = window.edState;
/** LibreOffice's texts in the page's language, as ed.js shows them (editor/office-text.ts). */
export const officeText = (t: string | undefined): string => api.officeText(t);
export const officeTip = (t: string | undefined): string => api.officeTip(t);

/** Published as window.edUi by ui.ts, once it knows the editor is there. */
export const UI: InterfaceState = { state: {}, matches: -1, comments: [], lastDownload: null, headers: null };
const state = UI.state;
const watchers: Record<string, ((value: string) => void)[]> = {};

/** Calls `fn` with a command's state now (if known) and at each change. */
export function watch(cmd: string, fn: (value: string) => void): () => void {
  (watchers[cmd] = watchers[cmd] || []).push(fn);
  if (state[cmd] !== undefined) fn(state[cmd]);
  return () => { watchers[cmd] = (watchers[cmd] || []).filter((f) => f !== fn); };
}

/** Records a command's state and shows it. */
export function setState(cmd: string, value: string): void {
  state[cmd] = value;
  (watchers[cmd] || []).forEach((fn) => { fn(value); });
}
