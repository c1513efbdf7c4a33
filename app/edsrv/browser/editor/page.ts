// The editor page's elements (page.ts writes them; the ids are the page's contract with its tests
// and the interface) and its texts in the page's language (data-text-* on <body>). The one place
// where an element is taken for its kind.

const byId = <E extends HTMLElement>(id: string): E => document.getElementById(id) as E;

export const body = document.body;
/** The page's data attributes: its texts (`textRetry`…) and the host's postMessage origin. */
export const pageData = body.dataset;

/**
 * The canvas keeps the area it shows as last laid out (document px) as `_v`: the tests and the
 * keystroke benchmark read it there to find pixels on screen.
 */
export const canvas = byId<HTMLCanvasElement & { _v?: { x: number; y: number; w: number; h: number } }>("canvas");
export const canvasContext = canvas.getContext("2d")!;
export const viewport = byId<HTMLDivElement>("viewport");
/** Gives the viewport the scroll range of the whole document. */
export const sizer = byId<HTMLDivElement>("sizer");
/** The hidden textarea that has the keyboard focus: keys, IME composition, clipboard events. */
export const ime = byId<HTMLTextAreaElement>("ime");
export const cursorEl = byId<HTMLDivElement>("cursor");
export const cellCursorEl = byId<HTMLDivElement>("cellcursor");
export const selectionEl = byId<HTMLDivElement>("selection");
export const overlays = byId<HTMLDivElement>("overlays");
export const stateEl = byId<HTMLSpanElement>("state");
export const modifiedEl = byId<HTMLSpanElement>("modified");
export const partsEl = byId<HTMLDivElement>("parts");
export const messageEl = byId<HTMLDivElement>("message");
export const loadingEl = byId<HTMLDivElement>("loading");
export const loadingText = byId<HTMLSpanElement>("loading-text");
export const docNameEl = byId<HTMLSpanElement>("docname");
export const saveButton = byId<HTMLButtonElement>("save");
export const undoButton = byId<HTMLButtonElement>("undo");
export const redoButton = byId<HTMLButtonElement>("redo");
export const closeButton = byId<HTMLButtonElement>("close");

/** Gives the keyboard back to the document without scrolling the page. */
export function focusDocument(): void {
  ime.focus({ preventScroll: true });
}
