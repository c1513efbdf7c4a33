// What the editor knows of its document and its view: one record, window.edState, the only copy.
// Its parts change it through update() and draw from it in watch()ers (the caret, the selection,
// other people's marks, the state line, the tabs); the interface, the tests and the benchmarks read
// it (its fields are a contract with them). The tiles are not in it: their cache is tile-cache.ts's,
// and the tile path draws directly (it is the hot path).

import type { DocStatus, SaveResult, ViewInfo } from "../../protocol/frames";
import type { Rect } from "../../protocol/server-frames";

export type { Rect };

/** The selection's content, fetched ahead of a copy. */
export interface SelectionContent {
  html: string;
  text: string;
  /** The selection change it was asked for. */
  seq: number | undefined;
}

/** What the engine last said of another view's marks on the shown part (twips). */
export interface OtherViewMarks {
  cursor: Rect | null;
  selection: Rect[];
  cell: Rect | null;
}

export interface EditorState {
  /** The first status arrived: the document is open in this view. */
  loaded: boolean;
  modified: boolean;
  /** Modified at some point of this session (the host's UI_Close says so). */
  everModified: boolean;
  readOnly: boolean;
  status: DocStatus | null;
  /** Twips per CSS pixel: 15 is 100 % at 96 dpi. */
  twipsPerPx: number;
  views: ViewInfo[];
  /** Other views' marks by view id. */
  others: Record<string, OtherViewMarks>;
  errors: string[];
  tilesDrawn: number;
  tilesPushed: number;
  tilesRequested: number;
  tileDeltas: number;
  invalidations: number;
  cursor: Rect | null;
  /** The engine shows the caret (`cursorvisible:`); a moved caret is shown again. */
  cursorVisible: boolean;
  selection: Rect[];
  cellCursor: Rect | null;
  /** The part the caret and the cell cursor were last reported on: they are shown on that part only. */
  marksPart: number;
  firstPaintAt: number;
  /** Input → the first new pixels after it, ms. */
  inputLatencies: number[];
  inputAt: number;
  lastSave: SaveResult | null;
  compositions: number;
  /** LibreOffice's modal windows open in this page (a dialog, a drop-down): the document behind gets no input meanwhile. */
  modalWindows: number;
  /** When the page reached each step of its opening (performance.now()). */
  marks: Record<string, number>;
  /** Frames from the server by name, so a test that waits can say what did arrive. */
  received: Record<string, number>;
  /** False while the page reconnects: input is refused meanwhile. */
  connected: boolean;
  /** The host or the server ended the session: a closed socket is not reconnected. */
  stayClosed: boolean;
  reconnects: number;
  /** Carets put back after a reconnection to a new view (place.ts). */
  placesRestored?: number;
  /** Pinch zooms applied (touch.ts). */
  pinches?: number;
  closed?: boolean;
  leaving?: boolean;
  hostReady?: boolean;
  /** CheckFileInfo's DisableCopy: nothing leaves the document through the clipboard. */
  disableCopy?: boolean;
  clip?: SelectionContent;
}

export const edState: EditorState = (window.edState = {
  loaded: false, modified: false, everModified: false, readOnly: true, status: null, twipsPerPx: 15, views: [], others: {}, errors: [],
  tilesDrawn: 0, tilesPushed: 0, tilesRequested: 0, tileDeltas: 0, invalidations: 0,
  cursor: null, cursorVisible: true, selection: [], cellCursor: null, marksPart: 0,
  firstPaintAt: 0, inputLatencies: [], inputAt: 0, lastSave: null, compositions: 0, modalWindows: 0, marks: {},
  received: {},
  connected: true, stayClosed: false, reconnects: 0,
});

/** The side of a tile in pixels. */
export const TILE_PX = 256;

type StateKey = keyof EditorState;
const watchers: { [K in StateKey]?: (() => void)[] } = {};

/**
 * Changes what the editor knows and tells, at once and in order, everything that watches one of
 * the changed facts (each watcher once). Synchronous on purpose: the typing path is tuned to the
 * millisecond, and a caret drawn a microtask later is a frame later.
 */
export function update(changes: Partial<EditorState>): void {
  const called = new Set<() => void>();
  const record = edState as unknown as Record<string, unknown>;
  const changed: StateKey[] = [];
  for (const key of Object.keys(changes) as StateKey[]) {
    if (record[key] === changes[key]) continue;
    record[key] = changes[key];
    changed.push(key);
  }
  for (const key of changed) {
    for (const fn of watchers[key] ?? []) {
      if (called.has(fn)) continue;
      called.add(fn);
      try {
        fn();
      } catch (err) {
        edState.errors.push("watcher of " + key + ": " + err);
      }
    }
  }
}

/** Calls `fn` after each change of any of these facts (not now: the caller draws the present itself if it must). */
export function watch(keys: StateKey[], fn: () => void): void {
  for (const key of keys) (watchers[key] ??= []).push(fn);
}

/** The part shown (a text document has one). */
export function currentPart(): number {
  const st = edState.status;
  return st && st.type !== "text" ? st.selectedPart || 0 : 0;
}

/** Records the first time the page reached a step of its opening. */
export function mark(name: string): void {
  if (!edState.marks[name]) edState.marks[name] = performance.now();
}
