// The server's frames decoded once, into one typed union (`ServerFrame`), for everyone who reads
// them: the page's editor and interface (each frame is decoded where it arrives, then handed to
// its handlers already read), and the tests. The builders are in frames.ts, next to the wire
// forms; server-frames.test.ts checks that what the server builds decodes to what it meant.
//
// This module runs in the browser too: no Node or Bun API here.

import { parseTileInvalidation } from "../../../workers/tile-invalidation";
import type { JsDialogMessage, WindowMessage, WindowPaint } from "./dialog-frames";
import { frameWords, splitServerFrame, type DocStatus, type PresentationInfo, type SaveResult, type ServerFrameName, type SlideImage, type ViewInfo, type WopiInfo } from "./frames";

/** A rectangle in twips (document coordinates). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** "x, y, w, h" (more numbers may follow), or null. */
export function parseRect(s: unknown): Rect | null {
  const n = String(s).split(",").map((x) => Number(x.trim()));
  return n.length >= 4 && isFinite(n[0]!) && isFinite(n[3]!) ? { x: n[0]!, y: n[1]!, w: n[2]!, h: n[3]! } : null;
}

/** "x, y, w, h; x, y, w, h; …" */
export function parseRects(s: unknown): Rect[] {
  const text = String(s ?? "").trim();
  return text ? text.split(";").map(parseRect).filter((r): r is Rect => !!r) : [];
}

/** A context menu entry as LibreOffice describes it (`contextmenu:`). */
export interface ContextMenuItem {
  type?: string;
  text?: string;
  command?: string;
  enabled?: string;
  checked?: string;
  menu?: ContextMenuItem[];
}

/** What LibreOffice's accessibility events say of the paragraph with the caret. */
export interface A11yParagraph {
  content?: string;
  position?: number | string;
  start?: number | string;
  end?: number | string;
}

/** Another view's mark on the shown part (`invalidateviewcursor:`, `cellviewcursor:`, `textviewselection:`). */
export interface OtherViewMark {
  viewId: string;
  /** The part it is on; undefined: the engine did not say (the shown one). */
  part: number | undefined;
}

/** Every frame's decoded content by name; each also keeps its argument as sent (`text`). */
export interface ServerFramePayloads {
  wopi: { info: WopiInfo };
  perm: { readOnly: boolean };
  filemode: { readOnly: boolean };
  lastmodtime: Record<never, never>;
  status: { status: DocStatus };
  /** Tiles the server paints ahead of the first screen (positions in twips, as sent). */
  firstscreen: { part: string; xs: string[]; ys: string[]; tileWidth: number; width: number };
  tilestale: { part: string; x: string; y: string; tileWidth: number };
  /** part null: the engine named none (the shown one); rect null: the whole part; ver Infinity: unnumbered. */
  invalidatetiles: { part: number | null; rect: Rect | null; ver: number };
  invalidatecursor: { rect: Rect | null };
  textselection: { rects: Rect[] };
  cursorvisible: { visible: boolean };
  /** `.uno:Bold=true`, or Collabora's JSON `{"commandName", "state"}`. */
  statechanged: { command: string; value: string };
  searchnotfound: Record<never, never>;
  setpart: { part: number };
  searchresultselection: { results: { part?: unknown; rects: Rect[] }[] };
  unocommandresult: Record<never, never>;
  cellcursor: { rect: Rect | null };
  cellformula: { formula: string };
  /** `col, row, 0|1`: whether the cell cursor's cell shows a validity list's drop-down button (Collabora's frame). */
  validitylistbutton: { shown: boolean };
  /** `cmd=<command> kind=<kind>` */
  error: { command: string; kind: string };
  contextmenu: { menu: ContextMenuItem[] };
  invalidateviewcursor: OtherViewMark & { rect: Rect | null };
  textviewselection: OtherViewMark & { rects: Rect[] };
  cellviewcursor: OtherViewMark & { rect: Rect | null };
  viewcursorvisible: Record<never, never>;
  comment: Record<never, never>;
  celladdress: { address: string };
  context: Record<never, never>;
  jsdialog: { message: JsDialogMessage };
  window: { message: WindowMessage };
  windowpaint: { paint: WindowPaint };
  a11yfocuschanged: { paragraph: A11yParagraph };
  a11ycaretchanged: { paragraph: A11yParagraph };
  a11ytextselectionchanged: { paragraph: A11yParagraph };
  a11yfocusedcellchanged: { paragraph: A11yParagraph | undefined };
  presentationinfo: { info: PresentationInfo };
  slideimage: { image: SlideImage };
  viewinfo: { views: ViewInfo[] };
  textselectioncontent: { html: string; plain: string };
  /** The whole answer (`commandName`, `commandValues`, or a command's own fields such as `comments`). */
  commandvalues: { command: string; json: Record<string, unknown> };
  thumbnail: { part: number; width: number; height: number; dataUrl: string };
  downloadas: { downloadId: string; purpose: string };
  saveresult: { result: SaveResult };
  /** A picture from a URL (Action_InsertGraphic) was inserted (its failures come as `error: cmd=insertgraphicurl`). */
  insertgraphicurl: { ok: boolean };
  /** Collabora's progress of a long action (`{"id":"find"}`): nothing on our page shows it. */
  progress: { id: string };
  close: { reason: string };
}

/** One decoded frame: its name, its argument as sent, and what it says. */
export type ServerFrame = { [K in ServerFrameName]: { name: K; text: string } & ServerFramePayloads[K] }[ServerFrameName];
export type ServerFrameOf<K extends ServerFrameName> = Extract<ServerFrame, { name: K }>;

const json = <T>(text: string): T => JSON.parse(text) as T;
const otherView = (text: string): OtherViewMark & { rectangle?: string; selection?: string } => {
  const j = json<{ viewId: unknown; part?: unknown; rectangle?: string; selection?: string }>(text);
  return { viewId: String(j.viewId), part: j.part === undefined ? undefined : Number(j.part), rectangle: j.rectangle, selection: j.selection };
};

/** The rectangle of a cursor frame: "x, y, w, h" or Collabora's JSON with `rectangle`. */
function cursorRect(text: string): Rect | null {
  return text.charAt(0) === "{" ? parseRect(json<{ rectangle?: string }>(text).rectangle ?? "") : parseRect(text);
}

function stateChange(text: string): { command: string; value: string } {
  if (text.charAt(0) === "{") {
    const j = json<{ commandName?: string; state?: unknown }>(text);
    return { command: j.commandName ?? "", value: typeof j.state === "string" ? j.state : JSON.stringify(j.state) };
  }
  const eq = text.indexOf("=");
  return eq < 0 ? { command: "", value: "" } : { command: text.slice(0, eq), value: text.slice(eq + 1) };
}

type Decoders = { [K in ServerFrameName]: (text: string) => ServerFramePayloads[K] };
const NOTHING = (): Record<never, never> => ({});

const DECODERS: Decoders = {
  wopi: (t) => ({ info: json<WopiInfo>(t) }),
  perm: (t) => ({ readOnly: t.trim() === "readonly" }),
  filemode: (t) => ({ readOnly: json<{ readOnly?: boolean }>(t).readOnly === true }),
  lastmodtime: NOTHING,
  status: (t) => ({ status: json<DocStatus>(t) }),
  firstscreen: (t) => {
    const w = frameWords(t);
    return { part: w.part ?? "0", xs: String(w.tileposx).split(","), ys: String(w.tileposy).split(","), tileWidth: Number(w.tilewidth), width: Number(w.width) };
  },
  tilestale: (t) => {
    const w = frameWords(t);
    return { part: w.part ?? "0", x: w.x ?? "", y: w.y ?? "", tileWidth: Number(w.w) };
  },
  invalidatetiles: (t) => {
    const vm = / ver=(\d+)$/.exec(t);
    const inv = parseTileInvalidation(vm ? t.slice(0, vm.index) : t);
    if (!inv) throw new Error("not a tile invalidation");
    return { part: inv.part, rect: inv.rect, ver: vm ? Number(vm[1]) : Infinity };
  },
  invalidatecursor: (t) => ({ rect: cursorRect(t) }),
  textselection: (t) => ({ rects: parseRects(t) }),
  cursorvisible: (t) => ({ visible: t.trim() === "true" }),
  statechanged: stateChange,
  searchnotfound: NOTHING,
  setpart: (t) => ({ part: Number(t) }),
  searchresultselection: (t) => ({
    results: (json<{ searchResultSelection?: { part?: unknown; rectangles?: string }[] }>(t).searchResultSelection ?? []).map((m) => ({ part: m.part, rects: parseRects(m.rectangles) })),
  }),
  unocommandresult: NOTHING,
  cellcursor: (t) => ({ rect: t.trim() === "EMPTY" ? null : parseRect(t) }),
  cellformula: (t) => ({ formula: t }),
  validitylistbutton: (t) => ({ shown: t.split(",").pop()!.trim() === "1" }),
  error: (t) => {
    const w = frameWords(t);
    return { command: w.cmd ?? "", kind: w.kind ?? "" };
  },
  contextmenu: (t) => ({ menu: json<{ menu?: ContextMenuItem[] }>(t).menu ?? [] }),
  invalidateviewcursor: (t) => {
    const { rectangle, selection: _, ...mark } = otherView(t);
    return { ...mark, rect: parseRect(rectangle ?? "") };
  },
  textviewselection: (t) => {
    const { rectangle: _, selection, ...mark } = otherView(t);
    return { ...mark, rects: parseRects(selection) };
  },
  cellviewcursor: (t) => {
    const { rectangle, selection: _, ...mark } = otherView(t);
    return { ...mark, rect: parseRect(rectangle ?? "") };
  },
  viewcursorvisible: NOTHING,
  comment: NOTHING,
  celladdress: (t) => ({ address: t.trim() }),
  context: NOTHING,
  jsdialog: (t) => ({ message: json<JsDialogMessage>(t) }),
  window: (t) => ({ message: json<WindowMessage>(t) }),
  windowpaint: (t) => ({ paint: json<WindowPaint>(t) }),
  a11yfocuschanged: (t) => ({ paragraph: json<A11yParagraph>(t) }),
  a11ycaretchanged: (t) => ({ paragraph: json<A11yParagraph>(t) }),
  a11ytextselectionchanged: (t) => ({ paragraph: json<A11yParagraph>(t) }),
  a11yfocusedcellchanged: (t) => ({ paragraph: json<{ paragraph?: A11yParagraph }>(t).paragraph }),
  presentationinfo: (t) => ({ info: json<PresentationInfo>(t) }),
  slideimage: (t) => ({ image: json<SlideImage>(t) }),
  viewinfo: (t) => ({ views: json<ViewInfo[]>(t) }),
  textselectioncontent: (t) => {
    const j = json<Record<string, string | undefined>>(t);
    return { html: j["text/html"] ?? "", plain: j["text/plain;charset=utf-8"] ?? "" };
  },
  commandvalues: (t) => {
    const j = json<{ commandName?: string; commandValues?: Record<string, unknown> }>(t);
    return { command: j.commandName ?? "", json: j as Record<string, unknown> };
  },
  thumbnail: (t) => {
    const m = /^part=(\d+) width=(\d+) height=(\d+) (data:image\/png;base64,.*)$/.exec(t);
    if (!m) throw new Error("not a thumbnail");
    return { part: Number(m[1]), width: Number(m[2]), height: Number(m[3]), dataUrl: m[4]! };
  },
  downloadas: (t) => {
    const m = /downloadid=([0-9a-f]+).*id=(\w+)/.exec(t);
    if (!m) throw new Error("not a download");
    return { downloadId: m[1]!, purpose: m[2]! };
  },
  saveresult: (t) => ({ result: json<SaveResult>(t) }),
  insertgraphicurl: (t) => ({ ok: t.trim() === "ok" }),
  progress: (t) => ({ id: String(json<{ id?: unknown }>(t).id ?? "") }),
  close: (t) => ({ reason: t.trim() }),
};

/** Whether a name is one of the protocol's frames. */
export const isServerFrameName = (name: string): name is ServerFrameName => Object.prototype.hasOwnProperty.call(DECODERS, name);

/**
 * A text frame decoded: `{ name, text, …what it says }`; null for a name the protocol does not
 * have, or an argument that is not what the name promises (`problem` says why).
 */
export function decodeServerFrame(frame: string): { frame: ServerFrame; problem?: undefined } | { frame: null; name: string; problem: string } {
  const { name, argument } = splitServerFrame(frame);
  if (!isServerFrameName(name)) return { frame: null, name, problem: "unknown frame" };
  try {
    const decoded = (DECODERS[name] as (text: string) => object)(argument);
    return { frame: { name, text: argument, ...decoded } as ServerFrame };
  } catch (err) {
    return { frame: null, name, problem: String(err) };
  }
}

/** A binary tile frame read (frames.ts `tileHeader` writes its first line). */
export interface TileFrame {
  /** The request it answers ("" for a tile the server pushed; "first" for one painted ahead). */
  id: string;
  part: number;
  /** Its place and side in twips, as sent. */
  x: string;
  y: string;
  tileWidth: number;
  /** The pixel version it shows (-1: unnumbered), and its pixels' wire id. */
  ver: number;
  wid: number;
  /** For the rows that changed in a copy the page holds: that copy's wire id (-1: unreadable) and the first row. */
  delta: number;
  dy: number;
  /** The picture (PNG), or null: the pixels of the copy held are still current ("same"). */
  png: Uint8Array<ArrayBuffer> | null;
}

const headerText = new TextDecoder(); // one for every tile frame's header line

export function decodeTileFrame(bytes: Uint8Array<ArrayBuffer>): TileFrame {
  const nl = bytes.indexOf(10);
  const a = frameWords(headerText.decode(bytes.subarray(0, nl < 0 ? bytes.length : nl)).replace(/^tile: /, ""));
  return {
    id: a.id === undefined ? "" : String(a.id),
    part: Number(a.part) || 0,
    x: a.x ?? "",
    y: a.y ?? "",
    tileWidth: Number(a.w),
    ver: a.ver === undefined ? -1 : Number(a.ver),
    wid: Number(a.wid) || 0,
    delta: a.delta === undefined ? 0 : Number(a.delta) || -1,
    dy: Number(a.dy) || 0,
    png: nl < 0 ? null : bytes.subarray(nl + 1),
  };
}
