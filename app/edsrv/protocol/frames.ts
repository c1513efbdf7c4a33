// The text frames the editor page and the editing server exchange on the document WebSocket
// (docs/editing-protocol.md), typed once for both sides: the page (app/edsrv/browser/) and the
// server (view-commands.ts, view-callbacks.ts, documents.ts). Collabora's wire forms, kept exactly:
// a command is `<name> <name=value …>`, a server frame `<name>: <argument>`.
//
// This module runs in the browser too: no Node or Bun API here.

/** Commands a page sends (page → server). */
export type ClientCommand =
  | "coolclient"
  | "load"
  | "status"
  | "setclientpart"
  | "tile"
  | "tilecombine"
  | "clientvisiblearea"
  | "clientzoom"
  | "key"
  | "textinput"
  | "mouse"
  | "uno"
  | "commandvalues"
  | "thumbnail"
  | "moveparts"
  | "downloadas"
  | "gettextselection"
  | "paste"
  | "insertgraphic"
  | "insertgraphicurl"
  | "save"
  | "closedocument"
  | "viewlanguage"
  | "dialogevent"
  | "paintwindow"
  | "windowmouse"
  | "windowkey"
  | "windowtext"
  | "windowclose"
  | "presentationinfo"
  | "slideimage"
  | "a11ystate";

/** Text frames the server sends (server → page); `tile:` frames are binary and have their own header. */
export type ServerFrameName =
  | "wopi"
  | "perm"
  | "filemode"
  | "lastmodtime"
  | "status"
  | "firstscreen"
  | "tilestale"
  | "invalidatetiles"
  | "invalidatecursor"
  | "textselection"
  | "cursorvisible"
  | "statechanged"
  | "searchnotfound"
  | "setpart"
  | "searchresultselection"
  | "unocommandresult"
  | "cellcursor"
  | "cellformula"
  | "validitylistbutton"
  | "error"
  | "contextmenu"
  | "invalidateviewcursor"
  | "textviewselection"
  | "cellviewcursor"
  | "viewcursorvisible"
  | "comment"
  | "celladdress"
  | "context"
  | "jsdialog"
  | "window"
  | "windowpaint"
  | "a11yfocuschanged"
  | "a11ycaretchanged"
  | "a11ytextselectionchanged"
  | "a11yfocusedcellchanged"
  | "presentationinfo"
  | "slideimage"
  | "viewinfo"
  | "textselectioncontent"
  | "commandvalues"
  | "thumbnail"
  | "downloadas"
  | "saveresult"
  | "insertgraphicurl"
  | "progress"
  | "close";

/** `<name>: <argument>`. */
export const serverFrame = (name: ServerFrameName, argument: string): string => `${name}: ${argument}`;

/** A server text frame split into its name and argument (a frame without `: ` is all name). */
export function splitServerFrame(text: string): { name: string; argument: string } {
  const sp = text.indexOf(": ");
  return sp < 0 ? { name: text, argument: "" } : { name: text.slice(0, sp), argument: text.slice(sp + 2) };
}

/** The `name=value` words of a frame as sent (not decoded): a tile header, tilestale, firstscreen. */
export function frameWords(text: string): Record<string, string> {
  const words: Record<string, string> = {};
  for (const kv of text.split(" ")) {
    const i = kv.indexOf("=");
    if (i > 0) words[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return words;
}

/** `name=value` pairs of a command (values URI-decoded); `_` is the whole argument text. */
export function parseCommandArgs(text: string): Record<string, string> {
  const out: Record<string, string> = { _: text };
  for (const tok of text.split(" ")) {
    const eq = tok.indexOf("=");
    if (eq <= 0) continue;
    try {
      out[tok.slice(0, eq)] = decodeURIComponent(tok.slice(eq + 1));
    } catch {
      out[tok.slice(0, eq)] = tok.slice(eq + 1);
    }
  }
  return out;
}

// ---- page → server

/** The first frame of a page: Collabora's client hello with the page's clocks. */
export const coolClientCommand = (wallMs: number, pageMs: number): string => `coolclient 0.1 ${wallMs} ${pageMs}`;

/** The arguments of `load` (also given in the socket's URL): the document, the language, the first area. */
export function loadArguments(docUrl: string, lang: string, firstScreen: boolean, visibleArea: string): string {
  return `url=${encodeURIComponent(docUrl)} lang=${lang} tiledeltas=1${firstScreen ? " firstscreen=1" : ""} clientvisiblearea=${visibleArea}`;
}
export const loadCommand = (args: string): string => `load ${args}`;

/** A VCL key: `type=input` then `type=up`, `char` the character (0 for none), `key` the code with modifiers. */
export const keyCommand = (type: "input" | "up", char: number, key: number): string => `key type=${type} char=${char} key=${key}`;

/** Text typed or composed; `end=0` while an IME composition is still going on. */
export const textInputCommand = (text: string, composing = false): string => `textinput text=${encodeURIComponent(text)}${composing ? " end=0" : ""}`;

export type MouseEventType = "buttondown" | "buttonup" | "move";
/** A mouse event at twips x, y of the current part. */
export const mouseCommand = (type: MouseEventType, x: number, y: number, count: number, buttons: number, modifier: number): string =>
  `mouse type=${type} x=${x} y=${y} count=${count} buttons=${buttons} modifier=${modifier}`;

/** A UNO command's arguments, as Collabora sends them: `{"Name": {"type": "string", "value": …}}`. */
export type UnoArguments = Record<string, { type: string; value: unknown }>;
/** `uno .uno:Name [arguments as JSON]`. */
export const unoCommand = (command: string, args?: UnoArguments): string => `uno ${command}${args ? ` ${JSON.stringify(args)}` : ""}`;

/** The tiles of one part asked in one request (Collabora's tilecombine): one paint for them all. */
export interface TileCombineRequest {
  part: number;
  /** The tile's side in pixels. */
  size: number;
  /** The tile's side in twips. */
  twips: number;
  xs: number[];
  ys: number[];
  /** The pixel version an invalidation asks for, -1: any. */
  needs: number[];
  /** The wire id of the copy held, 0: none. */
  haves: number[];
  id: number;
}
export const tileCombineCommand = (r: TileCombineRequest): string =>
  `tilecombine part=${r.part} width=${r.size} height=${r.size} tileposx=${r.xs.join(",")} tileposy=${r.ys.join(",")} tilewidth=${r.twips} tileheight=${r.twips} need=${r.needs.join(",")} have=${r.haves.join(",")} id=${r.id}`;

/** The area the page shows, in twips: the server pushes the tiles an edit invalidates there. */
export const clientVisibleAreaCommand = (x: number, y: number, width: number, height: number): string =>
  `clientvisiblearea x=${x} y=${y} width=${width} height=${height}`;

/** The scale the page draws at (a tile of `pixels` is `twips` wide): a sheet's marks are then placed on the grid painted at it. */
export const clientZoomCommand = (pixels: number, twips: number): string =>
  `clientzoom tilepixelwidth=${pixels} tilepixelheight=${pixels} tiletwipwidth=${twips} tiletwipheight=${twips}`;

export const setClientPartCommand = (part: number): string => `setclientpart part=${part}`;

export function saveCommand(dontTerminateEdit: boolean, dontSaveIfUnmodified: boolean, notify: boolean, extendedData: string): string {
  return `save dontTerminateEdit=${dontTerminateEdit ? 1 : 0} dontSaveIfUnmodified=${dontSaveIfUnmodified ? 1 : 0} notify=${notify ? 1 : 0}${extendedData ? ` extendedData=${encodeURIComponent(extendedData)}` : ""}`;
}

/** Clipboard content (`paste`) or a picture the person chose (`insertgraphic`), base64. */
export const dataCommand = (command: "paste" | "insertgraphic", mime: string, base64: string): string => `${command} mimetype=${mime} data=${base64}`;

/** The selection's content as HTML and plain text (answered with `textselectioncontent:`). */
export const GET_TEXT_SELECTION = "gettextselection mimetype=text/html,text/plain;charset=utf-8";

export const commandValuesCommand = (command: string): string => `commandvalues command=${command}`;
export const thumbnailCommand = (part: number | string, width: number): string => `thumbnail part=${part} width=${width}`;
export const movePartsCommand = (part: number, position: number): string => `moveparts parts=${part} position=${position}`;
export const downloadAsCommand = (name: string, purpose: string, format: string): string =>
  `downloadas name=${encodeURIComponent(name)} id=${purpose} format=${format} options=`;

// ---- server → page

/** A document's status (`status:`): the kit's, plus the view and the document type. */
export interface DocStatus {
  type: "text" | "spreadsheet" | "presentation" | "drawing" | string;
  width: number;
  height: number;
  parts: number;
  selectedPart: number;
  partNames?: string[];
  viewid?: number;
  docType?: string;
  [field: string]: unknown;
}
/** The `status:` frame of a view: the kit's status plus the view id and the document type. */
export const statusFrame = (st: unknown, viewId: number, docType: string): string =>
  serverFrame("status", JSON.stringify({ ...(st as object), viewid: viewId, docType }));

/** What a save came to (`saveresult:`). */
export interface SaveResult {
  success: boolean;
  result: string;
  errorMsg?: string;
  notify?: boolean;
  [field: string]: unknown;
}
export const saveResultFrame = (r: SaveResult): string => serverFrame("saveresult", JSON.stringify(r));

/**
 * A command's name as it may be logged and sent back: the frame's first word when it is a plain
 * name, else "unknown". A refusal never echoes what was sent (a 10 MB frame came back whole).
 */
export function commandName(frameText: string): string {
  const sp = frameText.indexOf(" ");
  const word = sp < 0 ? frameText : frameText.slice(0, sp);
  return /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(word) ? word : "unknown";
}

/** `error: cmd=<command> kind=<kind>`. */
export const errorFrame = (cmd: string, kind: string): string => serverFrame("error", `cmd=${commandName(cmd)} kind=${kind}`);

/** `firstscreen:`: the tiles of the page's first screen, painted ahead and sent without being asked. */
export interface FirstScreen {
  part: number;
  tilePosX: number[];
  tilePosY: number[];
  tileWidth: number;
  tileHeight: number;
  width: number;
  height: number;
}
export const firstScreenFrame = (f: FirstScreen): string =>
  serverFrame("firstscreen", `part=${f.part} tileposx=${f.tilePosX.join(",")} tileposy=${f.tilePosY.join(",")} tilewidth=${f.tileWidth} tileheight=${f.tileHeight} width=${f.width} height=${f.height}`);

/** Why the server closes a page's view (`close:`); recovering and shuttingdown: the page reconnects. */
export type CloseReason = "recovering" | "shuttingdown" | "ownertermination" | "idle" | "oom" | "docdisconnected" | "replaced" | "documentconflict";
export const closeFrame = (why: CloseReason): string => serverFrame("close", why);

/** What the page reads of `wopi:` (the host's CheckFileInfo, as the server passes it on). */
export interface WopiInfo {
  BaseFileName?: string;
  PostMessageOrigin?: string;
  HideSaveOption?: boolean;
  HideExportOption?: boolean;
  HidePrintOption?: boolean;
  DisableExport?: boolean;
  DisablePrint?: boolean;
  DisableCopy?: boolean;
  BreadcrumbDocName?: string;
  /** "true", or the device kinds it is hidden on ("desktop,mobile,tablet"). */
  HideUserList?: string;
  EnableShare?: boolean;
  /** Collabora's: the Insert image control asks the host for a picture (UI_InsertGraphic), which answers with Action_InsertGraphic. */
  EnableInsertRemoteImage?: boolean;
  /** Collabora's: no picture from the person's own device (with EnableInsertRemoteImage, the host's pictures only). */
  DisableInsertLocalImage?: boolean;
  /** Collabora's: the tracked-changes controls are not shown. */
  HideChangeTrackingControls?: boolean;
  DownloadAsPostMessage?: boolean;
  [field: string]: unknown;
}

/** A view in `viewinfo:`. */
export interface ViewInfo {
  viewid: number | string;
  userid?: string;
  username?: string;
  readonly?: boolean;
  current?: boolean;
  [field: string]: unknown;
}

/** `textselectioncontent:`: the selection as HTML and plain text. */
export const textSelectionContentFrame = (html: string, text: string): string =>
  serverFrame("textselectioncontent", JSON.stringify({ "text/html": html, "text/plain;charset=utf-8": text }));

export const thumbnailFrame = (part: number, width: number, height: number, pngBase64: string): string =>
  serverFrame("thumbnail", `part=${part} width=${width} height=${height} data:image/png;base64,${pngBase64}`);

export const downloadAsFrame = (id: string, purpose: string): string => serverFrame("downloadas", `downloadid=${id} port=0 id=${purpose}`);

/** A tile's place in a `tile:` header or a `tilestale:` frame. */
export interface TilePlace {
  part: number;
  x: number;
  y: number;
  w: number;
  h: number;
}
const tilePlace = (t: TilePlace, id: string) => `id=${id} part=${t.part} x=${t.x} y=${t.y} w=${t.w} h=${t.h}`;

/**
 * The header line of a binary tile frame: `tile: id= part= x= y= w= h= width= height= ver= wid=`
 * and, for the rows that changed in a copy the page holds, `delta=<its wire id> dy=<first row>`.
 */
export function tileHeader(t: TilePlace, id: string, width: number, height: number, version: number, wid: number, band?: { delta: number; dy: number }): string {
  return `tile: ${tilePlace(t, id)} width=${width} height=${height} ver=${version} wid=${wid}${band ? ` delta=${band.delta} dy=${band.dy}` : ""}\n`;
}
export const tileStaleFrame = (t: TilePlace, id: string): string => serverFrame("tilestale", tilePlace(t, id));

/** A slide as the show draws it (`slideimage:`), answering `slideimage part= width= height=`. */
export interface SlideImage {
  part: number;
  width: number;
  height: number;
  /** PNG, base64. */
  png: string;
}

/** LibreOffice's `getPresentationInfo` (`presentationinfo:`): the slides a show goes through. */
export interface PresentationInfo {
  docWidth: number;
  docHeight: number;
  isEndless?: boolean;
  slides: { index: number; hash: string; empty?: boolean; hidden?: boolean }[];
}

export const presentationInfoCommand = (): string => "presentationinfo";
export const slideImageCommand = (part: number, width: number, height: number): string => `slideimage part=${part} width=${width} height=${height}`;
