// The kit's state: one context object for the process (the office, the document, the options the
// engine decided at start) and ONE record per view in a registry, so that a view that leaves is
// one `views.delete` (state kept in parallel maps, one per concern, was cleared one by one, and a
// map added later and forgotten there was a leak, or stale state for a reused view id).
// A leaf: the pump, the tiles and the handlers read it; it imports none of them.

import type { LokDocument, LokOffice } from "../lok";
import { LOAD_OPTIONS } from "../profile";
import { sendLine } from "../reply";
import { SharedTiles } from "../shared-tiles";
import type { CsvDialect } from "../csv-import";
import type { TextDialect } from "../text-dialect";
import type { KitMessage, KitStatus } from "../kit-protocol";

export function send(msg: KitMessage): void {
  sendLine(msg);
}

export function log(level: "debug" | "info" | "warn" | "error", event: string, fields?: Record<string, unknown>): void {
  send({ type: "log", level, event, fields });
}

/** The kit process: set at start (main.ts) and by `load`; everything else lives in the views. */
export const kit = {
  office: null as LokOffice | null,
  doc: null as LokDocument | null,
  /**
   * The loaded document's LOK_DOCTYPE, read once: LibreOffice answers it under its global lock, and
   * it was asked on every tile invalidation, waiting whenever the engine's thread held the lock.
   */
  docType: -1,
  /** The view made by the load is the first session's (see views.ts addView). */
  firstViewTaken: false,
  /**
   * The version of the document's pixels: each forwarded tile invalidation takes the next number,
   * and a tile carries the number it was painted at. A client holding a tile of version v knows that
   * an invalidation numbered ≤ v is already in it, whatever order the two messages arrived in; one
   * numbered > v means the tile must be asked for again (Collabora's tile versions do the same).
   */
  pixelVersion: 0,
  /** Tiles painted by one view, shared by the views of the same look until the engine changes them (shared-tiles.ts). */
  sharedTiles: new SharedTiles(),
  /** The kit's own temporary directory, inside its profile (set at start). */
  tempDir: "",
  /** Whether a view's language takes effect only once the view is made current again (LibreOffice before 25; see views.ts "viewlanguage"). */
  languageNeedsViewSwitch: true,
  /** The options of this kit's loads: without Batch when the engine has its dialogs (profile.ts). */
  loadOptions: LOAD_OPTIONS,
  dialogsAvailable: false,
  /** The dialect of the CSV (or TSV) file the document was opened from; null for any other file. */
  csvSource: null as CsvDialect | null,
  /** The encoding, byte order mark and line ends of the .txt file the document was opened from; null for any other file. */
  textSource: null as TextDialect | null,
  /** Tests only: the engine's loop stops for good at its next poll (input.ts, STALL_ON_TEXT). */
  stopAtNextPoll: false,
};

export function requireOffice(): LokOffice {
  if (!kit.office) throw new Error("the engine has not started");
  return kit.office;
}

/**
 * How a view draws the document, as far as its pixels go: read-only or not, its language (an
 * empty placeholder's "Click to add Text" is in the view's language) and, once it has run a
 * command that changes only its own view (formatting marks, grid lines, zoom…), a look of its
 * own. Views of one look share painted tiles (Collabora's canonical view ids).
 */
export interface ViewLook {
  readOnly: boolean;
  lang: string;
  /** The view ran a view-only command: it shares tiles with no other. */
  own: boolean;
}

/** What each view's client was last sent at one tile (see tiles.ts). */
export interface SentTile {
  wid: number;
  rows: BigUint64Array;
}

/** Everything the kit keeps for one view. */
export interface KitView {
  readonly id: number;
  look: ViewLook;
  /**
   * Whether a tile was painted for the view yet. Until then its invalidations are dropped: the
   * client holds no tile of theirs to repaint. Creating a view invalidates the whole document about
   * when the client asks for its first screen, and each of those tiles was painted twice.
   */
  painted: boolean;
  /** What the view's client was last sent at each tile, by tile key (tiles.ts). */
  readonly sentTiles: Map<string, SentTile>;
  /** The view's own queue of input (dispatch.ts): its keys, clicks and text. */
  chain: Promise<unknown> | undefined;
}

/** The document's views, by LibreOffice's view id. */
export const views = new Map<number, KitView>();

export function addViewRecord(id: number, readOnly: boolean, lang = ""): KitView {
  const view: KitView = { id, look: { readOnly, lang, own: false }, painted: false, sentTiles: new Map(), chain: undefined };
  views.set(id, view);
  return view;
}

/** Whether invalidations for `viewId` are dropped (a known view that has painted nothing yet). */
export function unpainted(viewId: number): boolean {
  return views.get(viewId)?.painted === false;
}

export function requireDoc(): LokDocument {
  if (!kit.doc) throw new Error("no document loaded");
  return kit.doc;
}

/** `viewId` as one of the document's views, or an error naming it. */
export function knownView(viewId: unknown): KitView {
  const view = typeof viewId === "number" ? views.get(viewId) : undefined;
  if (!view) throw new Error(`unknown view ${String(viewId)}`);
  return view;
}

/** The document with `viewId` (a known view) made the current view. */
export function useView(viewId: unknown): LokDocument {
  const d = requireDoc();
  const id = knownView(viewId).id;
  if (d.getView() !== id) d.setView(id);
  return d;
}

/** A request's number field, or an error naming it (the request crossed a process boundary). */
export function num(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${name} must be a number`);
  return Math.trunc(v);
}

const DOC_TYPES = ["text", "spreadsheet", "presentation", "drawing", "other"] as const;

/** The loaded document's kind, as KitStatus names it. */
export const documentKind = (): (typeof DOC_TYPES)[number] => DOC_TYPES[kit.docType] ?? "other";

export function status(d: LokDocument): KitStatus {
  const type = documentKind();
  const parts = d.getParts();
  const partNames: string[] = [];
  if (type !== "text") for (let i = 0; i < parts; i++) partNames.push(d.getPartName(i) ?? `${i + 1}`);
  const size = d.getDocumentSize();
  const st: KitStatus = { type, parts, selectedPart: type === "text" ? 0 : d.getPart(), width: size.width, height: size.height, partNames, viewId: d.getView() };
  // A text document's pages: the page shows the number of the page in view while it scrolls (the
  // engine's own page number follows the caret only). A status is sent again when they change size.
  if (type === "text") st.pageRectangles = d.getPartPageRectangles() ?? "";
  return st;
}

/** Commands that change only the view that runs them: the view gets a look of its own. */
export const VIEW_LOOK_COMMAND = /^\.uno:(ControlCodes|SpellOnline|Show|Hide|View|Toggle|Zoom|Grid|Ruler|Sidebar)/;

export function setLook(viewId: number, change: Partial<ViewLook>): void {
  const view = views.get(viewId);
  if (view) view.look = { ...view.look, ...change };
}

/** Views with the same key paint the same pixels. */
export function lookKey(viewId: number): string {
  const look = views.get(viewId)?.look;
  return !look || look.own ? `v${viewId}` : `${look.readOnly ? "ro" : "rw"}:${look.lang}`;
}
