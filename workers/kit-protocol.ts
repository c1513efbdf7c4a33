// The wire protocol between the editing server (app/edsrv/kits.ts) and one kit process
// (workers/kit/main.ts), shared by both. docs/editing-protocol.md, "Kit protocol", describes it.
//
// Transport: the server writes one JSON request a line on the kit's stdin, each with a string `id`
// and an `op`; every request gets exactly one `reply` line on file descriptor 3 (stdout and stderr
// belong to LibreOffice). Unsolicited lines on fd 3: `ready`, `cb` (a document callback of one
// view) and `log`. Tiles travel as PNG, base64, inside the reply line.
//
// The requests' fields are what the server sends; the kit still checks each one (they cross a
// process boundary, and a journal replays them from disk).
//
// No bun:ffi here (nor anything that imports it): the editing server imports this module.

import type { ServerFrameName } from "../app/edsrv/protocol/frames";
import { LOK_CALLBACK } from "./lok-abi";

/**
 * The kit's refusals that the page is told the reason of (`error: cmd=<c> kind=<kind>`), keyed by
 * kind: the kit answers the message, the editing server names the kind (refusalKind).
 */
export const KIT_REFUSALS = {
  /** A command the kit does not run: off the door's list, or a dialog nobody could answer in this kind of document. */
  notallowed: "uno command not allowed",
  /** Another person has a dialog open that LibreOffice runs in a loop of its own (workers/kit/own-loop-dialogs.ts). */
  dialogbusy: "another person has a dialog open that must be answered first",
} as const;

/** The kind of a kit's refusal, from its answer's message (carried unchanged); null for any other failure. */
export function refusalKind(message: string): keyof typeof KIT_REFUSALS | null {
  const found = Object.entries(KIT_REFUSALS).find(([, m]) => message === m);
  return found ? (found[0] as keyof typeof KIT_REFUSALS) : null;
}

/** What a `clientzoom` may say (a tile of `pixels` is `twips` wide), checked by the door and again by the kit. */
export const CLIENT_ZOOM_LIMITS = { pixels: { min: 1, max: 4096 }, twips: { min: 1, max: 100_000 } } as const;
export const clientZoomInRange = (pixels: number, twips: number): boolean =>
  pixels >= CLIENT_ZOOM_LIMITS.pixels.min && pixels <= CLIENT_ZOOM_LIMITS.pixels.max && twips >= CLIENT_ZOOM_LIMITS.twips.min && twips <= CLIENT_ZOOM_LIMITS.twips.max;

/** How long an op may take to be answered (KIT_OPS' `answer`; the bounds are in app/edsrv/kit-watchdog.ts). */
export type AnswerKind = "input" | "command" | "document";

/**
 * What each op is, as far as its handling goes, ONE row an op:
 * - `ordered`: handled strictly one after another, in the order sent: user input; copies and
 *   pastes, which must see the input before them; saves, which must hold every input sent before
 *   them (an undo still settling included); and removing a view, which must not drop the input its
 *   user sent just before leaving (typing, then closing the tab at once). Other ops (tiles,
 *   status…) do not queue behind them.
 * - `perView`: an ordered op queued per view, so that one person's wait is not everyone's (their
 *   keys, clicks and text); it still comes after every shared-queue request sent before it.
 * - `journalled`: the op changes the document or a view's place in it, and the editing server
 *   writes it to the document's journal as it is sent (app/edsrv/journal.ts), so that a crashed
 *   kit's edits can be replayed on a fresh one (app/edsrv/recovery.ts).
 *
 * - `answer`: how long the kit may take to answer it before the editing server counts the kit as
 *   stopped (app/edsrv/kit-watchdog.ts): `input` (a key, a tile: seconds), `command` (a command,
 *   a paste, a dialog's button: a little longer), `document` (a save: scaled by the
 *   document's size).
 *
 * THE RULE: every op that changes the document (or what a view is, its language, its part) is
 * `journalled: true`; the server's only way to send one is through the document's journalling kit
 * (app/edsrv/documents.ts, `journaledKit`), which reads this table. A new document-changing op
 * that is not marked here is lost on a kit crash. Making a view is journalled by the server
 * itself, in two entries (`view` when asked, `viewmade` when answered), so `view` is not marked.
 */
export const KIT_OPS = {
  load: { ordered: false, perView: false, journalled: false, answer: "document" },
  view: { ordered: false, perView: false, journalled: false, answer: "command" },
  viewlanguage: { ordered: false, perView: false, journalled: true, answer: "command" },
  clientzoom: { ordered: true, perView: true, journalled: true, answer: "input" },
  unview: { ordered: true, perView: false, journalled: true, answer: "command" },
  status: { ordered: false, perView: false, journalled: false, answer: "input" },
  key: { ordered: true, perView: true, journalled: true, answer: "input" },
  mouse: { ordered: true, perView: true, journalled: true, answer: "input" },
  textinput: { ordered: true, perView: true, journalled: true, answer: "input" },
  uno: { ordered: true, perView: false, journalled: true, answer: "command" },
  dialogevent: { ordered: true, perView: false, journalled: true, answer: "command" },
  paintwindow: { ordered: true, perView: false, journalled: false, answer: "input" },
  windowmouse: { ordered: true, perView: false, journalled: true, answer: "input" },
  windowkey: { ordered: true, perView: false, journalled: true, answer: "input" },
  windowtext: { ordered: true, perView: false, journalled: true, answer: "input" },
  windowclose: { ordered: true, perView: false, journalled: true, answer: "input" },
  closedialogs: { ordered: true, perView: false, journalled: false, answer: "command" },
  a11y: { ordered: false, perView: false, journalled: false, answer: "command" },
  presentationinfo: { ordered: false, perView: false, journalled: false, answer: "command" },
  slideimage: { ordered: true, perView: false, journalled: false, answer: "command" },
  selection: { ordered: true, perView: false, journalled: false, answer: "command" },
  commandvalues: { ordered: false, perView: false, journalled: false, answer: "command" },
  thumbnail: { ordered: false, perView: false, journalled: false, answer: "command" },
  moveparts: { ordered: true, perView: false, journalled: true, answer: "command" },
  paste: { ordered: true, perView: false, journalled: true, answer: "command" },
  insertgraphic: { ordered: false, perView: false, journalled: true, answer: "command" },
  part: { ordered: false, perView: false, journalled: true, answer: "command" },
  visiblearea: { ordered: false, perView: false, journalled: false, answer: "input" },
  tiles: { ordered: false, perView: false, journalled: false, answer: "input" },
  save: { ordered: true, perView: false, journalled: false, answer: "document" },
  ping: { ordered: false, perView: false, journalled: false, answer: "input" },
  settle: { ordered: false, perView: false, journalled: false, answer: "command" },
} as const satisfies Record<string, { ordered: boolean; perView: boolean; journalled: boolean; answer: AnswerKind }>;

export type KitOp = keyof typeof KIT_OPS;

function opsWhere(property: "ordered" | "perView" | "journalled"): ReadonlySet<string> {
  return new Set(Object.entries(KIT_OPS).filter(([, row]) => row[property]).map(([op]) => op));
}
/** Ops the kit handles in order (see KIT_OPS). */
export const ORDERED_OPS = opsWhere("ordered");
/** Ordered ops queued per view (see KIT_OPS). */
export const PER_VIEW_OPS = opsWhere("perView");
/** Ops the editing server journals as it sends them (see KIT_OPS). */
export const JOURNALLED_OPS = opsWhere("journalled");

export function isKitOp(op: unknown): op is KitOp {
  return typeof op === "string" && Object.hasOwn(KIT_OPS, op);
}

type ViewField = { viewId: number };
type MouseFields = { type?: "buttondown" | "buttonup" | "move"; x: number; y: number; count?: number; buttons?: number; modifier?: number };
type KeyFields = { type?: "input" | "up"; char?: number; key?: number };
/** A window one view has open: by its id, or in a replay (a new engine, other ids) by its name. */
type WindowFields = ViewField & { windowId?: string; dialog?: string };

/** Each op's fields (besides `op` and `id`). */
export interface KitFieldsByOp {
  load: { path: string; name?: string };
  view: { readOnly?: boolean; author?: string; lang?: string };
  viewlanguage: ViewField & { lang: string };
  clientzoom: ViewField & { pixels: number; twips: number };
  unview: ViewField;
  status: ViewField;
  key: ViewField & KeyFields;
  mouse: ViewField & MouseFields;
  textinput: ViewField & { text: string; end?: boolean };
  uno: ViewField & { command: string; args?: string };
  dialogevent: WindowFields & { json: string };
  paintwindow: WindowFields & { x?: number; y?: number; width: number; height: number };
  windowmouse: WindowFields & MouseFields;
  windowkey: WindowFields & KeyFields;
  windowtext: WindowFields & { text: string };
  windowclose: WindowFields;
  closedialogs: ViewField;
  a11y: ViewField & { enabled: boolean };
  presentationinfo: ViewField;
  slideimage: ViewField & { part: number; width: number; height: number };
  selection: ViewField;
  commandvalues: ViewField & { command: string };
  thumbnail: ViewField & { part: number; width: number };
  moveparts: ViewField & { parts: number[]; position: number; duplicate?: boolean };
  paste: ViewField & { mime: string; data: string };
  insertgraphic: ViewField & { mime: string; data: string };
  part: ViewField & { part: number };
  /** `visiblearea`: what the view's page shows, in twips. */
  visiblearea: ViewField & { x: number; y: number; width: number; height: number };
  /** `tiles`: [x, y, wid], the position in twips and the wire id of the copy the client holds (0: none). */
  tiles: ViewField & { width: number; height: number; w: number; h: number; tiles: [number, number, number?][]; part?: number; deltas?: boolean };
  save: { path: string; format: string };
  ping: Record<string, never>;
  settle: Record<string, never>;
}

export type KitFields<Op extends KitOp> = KitFieldsByOp[Op];
/** One request as it arrives at the kit. */
export type KitRequestOf<Op extends KitOp> = { op: Op; id: string } & KitFieldsByOp[Op];
export type KitRequest = { [Op in KitOp]: KitRequestOf<Op> }[KitOp];

/** The document as the kit describes it after a load, a part switch or on `status`. */
export type KitStatus = {
  type: "text" | "spreadsheet" | "presentation" | "drawing" | "other";
  parts: number;
  selectedPart: number;
  width: number;
  height: number;
  partNames: string[];
  viewId: number;
  /** A text document's pages, "x, y, w, h; …" (twips). */
  pageRectangles?: string;
};
/** A painted tile: its wire id and PNG (base64); no PNG when the client holds these very pixels; with `delta`, the PNG is rows `dy`… of the copy `delta`. */
export type PaintedTile = { wid: number; png?: string; delta?: number; dy?: number };
type Nothing = Record<string, never>;

/** Each op's result. */
export interface KitResultsByOp {
  load: KitStatus;
  view: { viewId: number };
  viewlanguage: Nothing;
  clientzoom: Nothing;
  unview: { views: number };
  status: KitStatus;
  key: Nothing;
  mouse: Nothing;
  textinput: Nothing;
  uno: Nothing;
  dialogevent: Nothing;
  paintwindow: { windowId: string; x: number; y: number; width: number; height: number; png: string };
  windowmouse: Nothing;
  windowkey: Nothing;
  windowtext: Nothing;
  windowclose: Nothing;
  closedialogs: Nothing;
  a11y: Nothing;
  presentationinfo: { json: string };
  slideimage: { part: number; width: number; height: number; png: string };
  selection: { html: string; text: string; tooLarge?: undefined } | { tooLarge: true; html?: undefined; text?: undefined };
  commandvalues: { json: string };
  thumbnail: { width: number; height: number; png: string };
  moveparts: KitStatus;
  paste: { ok: boolean };
  insertgraphic: Nothing;
  part: KitStatus;
  visiblearea: Nothing;
  tiles:
    | { tiles: PaintedTile[]; painted: { tiles: number; rows: number }; version: number; stale?: undefined }
    | { stale: true; shown: number; tiles?: undefined; version?: undefined };
  save: Nothing;
  ping: { views: number; loaded: boolean };
  settle: Nothing;
}
export type KitResult<Op extends KitOp> = KitResultsByOp[Op];

/** What the kit writes on fd 3. */
export type KitMessage =
  | { type: "ready"; pid: number; startMs: number; version: string }
  /** A request's handler starts (a person's input, or work slower than input): see app/edsrv/kit-watchdog.ts. */
  | { type: "begin"; id: string; turn: number }
  | { type: "reply"; id: string; ok: true; result: unknown }
  | { type: "reply"; id: string; ok: false; error: string }
  /** A document callback of one view; a tile invalidation carries its number in the document's pixel versions. */
  | { type: "cb"; viewId: number; cb: number; payload: string; version?: number }
  | { type: "log"; level: "debug" | "info" | "warn" | "error"; event: string; fields?: Record<string, unknown> };

/**
 * The document callbacks the kit forwards to the editing server, with the frame name of
 * Collabora's protocol that pages know each by (app/edsrv/view-callbacks.ts); null: the server
 * acts on it itself (document-views.ts). Every other callback (sidebar JSON…) is dropped in the kit.
 */
export const FORWARDED_CALLBACKS: Readonly<Record<number, ServerFrameName | null>> = {
  [LOK_CALLBACK.INVALIDATE_TILES]: "invalidatetiles",
  [LOK_CALLBACK.INVALIDATE_VISIBLE_CURSOR]: "invalidatecursor",
  [LOK_CALLBACK.TEXT_SELECTION]: "textselection",
  [LOK_CALLBACK.CURSOR_VISIBLE]: "cursorvisible",
  [LOK_CALLBACK.STATE_CHANGED]: "statechanged",
  [LOK_CALLBACK.SEARCH_NOT_FOUND]: "searchnotfound",
  [LOK_CALLBACK.DOCUMENT_SIZE_CHANGED]: null,
  [LOK_CALLBACK.SET_PART]: "setpart",
  [LOK_CALLBACK.SEARCH_RESULT_SELECTION]: "searchresultselection",
  [LOK_CALLBACK.UNO_COMMAND_RESULT]: "unocommandresult",
  [LOK_CALLBACK.CELL_CURSOR]: "cellcursor",
  [LOK_CALLBACK.CELL_FORMULA]: "cellformula",
  [LOK_CALLBACK.VALIDITY_LIST_BUTTON]: "validitylistbutton",
  [LOK_CALLBACK.ERROR]: "error",
  [LOK_CALLBACK.CONTEXT_MENU]: "contextmenu",
  [LOK_CALLBACK.INVALIDATE_VIEW_CURSOR]: "invalidateviewcursor",
  [LOK_CALLBACK.TEXT_VIEW_SELECTION]: "textviewselection",
  [LOK_CALLBACK.CELL_VIEW_CURSOR]: "cellviewcursor",
  [LOK_CALLBACK.VIEW_CURSOR_VISIBLE]: "viewcursorvisible",
  [LOK_CALLBACK.COMMENT]: "comment",
  [LOK_CALLBACK.CELL_ADDRESS]: "celladdress",
  [LOK_CALLBACK.WINDOW]: "window",
  [LOK_CALLBACK.CONTEXT_CHANGED]: "context",
  [LOK_CALLBACK.JSDIALOG]: "jsdialog",
  [LOK_CALLBACK.A11Y_FOCUS_CHANGED]: "a11yfocuschanged",
  [LOK_CALLBACK.A11Y_CARET_CHANGED]: "a11ycaretchanged",
  [LOK_CALLBACK.A11Y_TEXT_SELECTION_CHANGED]: "a11ytextselectionchanged",
  [LOK_CALLBACK.A11Y_FOCUSED_CELL_CHANGED]: "a11yfocusedcellchanged",
};
