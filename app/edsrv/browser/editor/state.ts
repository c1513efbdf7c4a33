// What the editor knows of its document and its view, shared by its parts, and window.edState:
// what the page shows, read by the interface, the tests and the benchmarks (its fields are a
// contract with them).

import type { DocStatus, SaveResult, ViewInfo } from "../../protocol/frames";

/** A rectangle in twips (document coordinates). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The selection's content, fetched ahead of a copy. */
export interface SelectionContent {
  html: string;
  text: string;
  /** The selection change it was asked for. */
  seq: number | undefined;
}

export interface EditorState {
  loaded: boolean;
  modified: boolean;
  readOnly: boolean;
  status: DocStatus | null;
  views: ViewInfo[];
  errors: string[];
  tilesDrawn: number;
  tilesPushed: number;
  tilesRequested: number;
  tileDeltas: number;
  invalidations: number;
  cursor: Rect | null;
  selection: Rect[];
  cellCursor: Rect | null;
  firstPaintAt: number;
  /** Input → the first new pixels after it, ms. */
  inputLatencies: number[];
  inputAt: number;
  lastSave: SaveResult | null;
  compositions: number;
  /** When the page reached each step of its opening (performance.now()). */
  marks: Record<string, number>;
  /** Frames from the server by name, so a test that waits can say what did arrive. */
  received: Record<string, number>;
  connected: boolean;
  reconnects: number;
  /** Carets put back after a reconnection to a new view (place.ts). */
  placesRestored?: number;
  /** Pinch zooms applied (touch.ts). */
  pinches?: number;
  closed?: boolean;
  leaving?: boolean;
  hostReady?: boolean;
  clip?: SelectionContent;
}

export const edState: EditorState = (window.edState = {
  loaded: false, modified: false, readOnly: true, status: null, views: [], errors: [],
  tilesDrawn: 0, tilesPushed: 0, tilesRequested: 0, tileDeltas: 0, invalidations: 0, cursor: null, selection: [], cellCursor: null,
  firstPaintAt: 0, inputLatencies: [], inputAt: 0, lastSave: null, compositions: 0, marks: {},
  received: {},
  connected: true, reconnects: 0,
});

/** The side of a tile in pixels. */
export const TILE_PX = 256;

/** The editor's own view of its document (what edState mirrors for the outside). */
export const editor = {
  status: null as DocStatus | null,
  /** Twips per CSS pixel: 15 is 100 % at 96 dpi. */
  twipsPerPx: 15,
  readOnly: true,
  docLoaded: false,
  modified: false,
  everModified: false,
  /** False while the page reconnects: input is refused meanwhile. */
  connected: true,
  /** The host or the server ended the session: a closed socket is not reconnected. */
  stayClosed: false,
};

/** The part shown (a text document has one). */
export function currentPart(): number {
  const st = editor.status;
  return st && st.type !== "text" ? st.selectedPart || 0 : 0;
}

/** Records the first time the page reached a step of its opening. */
export function mark(name: string): void {
  if (!edState.marks[name]) edState.marks[name] = performance.now();
}
