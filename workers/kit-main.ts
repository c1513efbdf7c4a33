// Entry point of one editing-server kit process: one LibreOfficeKit engine, one document, its views.
//
//   SVC_KIT_PROFILE_DIR=/path/to/profile bun workers/kit-main.ts
//
// The editing server (app/edsrv/kits.ts) spawns it with stdio [pipe, pipe, pipe, pipe]. The kit
// starts the engine at once (so an idle kit is warm), says {"type":"ready"} and waits for `load`.
// Protocol (docs/editing-protocol.md, "Kit protocol"): requests arrive as JSON lines on stdin,
// every request has a string `id` and gets exactly one {"type":"reply","id",ok,result|error} on
// file descriptor 3; unsolicited lines on fd 3 are {"type":"ready"}, {"type":"cb"} (a document
// callback of one view) and {"type":"log"}. Tiles travel as PNG, base64, inside the reply line.
// stdout/stderr belong to LibreOffice and carry nothing of ours.
//
// Threading: one thread. LibreOffice runs in unipoll mode and its main loop runs on the kit's
// thread, calling the kit back between its events (workers/kit-loop.ts): requests are read and
// run there, callbacks forwarded there, and a request that must see the effect of the input
// before it (a command, a copy, a save) first waits until the office has worked everything
// posted through (engineIdle), which the loop knows exactly.

import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, readSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { tmpdir } from "node:os";
import {
  LokOffice,
  LokDocument,
  fileUrl,
  drainCallbacks,
  engineProgramDir,
  LOK_TILEMODE_RGBA,
  LOK_KEYEVENT_KEYINPUT,
  LOK_KEYEVENT_KEYUP,
  LOK_MOUSEEVENT_MOUSEBUTTONDOWN,
  LOK_MOUSEEVENT_MOUSEBUTTONUP,
  LOK_MOUSEEVENT_MOUSEMOVE,
  LOK_EXT_TEXTINPUT,
  LOK_EXT_TEXTINPUT_END,
  LOK_CALLBACK,
  LOK_DOCTYPE,
  LOK_FEATURE_NO_TILED_ANNOTATIONS,
  type QueuedCallback,
} from "./lok";
import { coreInfo, missingSlots, unsupportedReason } from "./engine-identity";
import { LOAD_OPTIONS, engineEnvironment, hasDialogLibraries, kitLoadOptions, writeProfileConfig } from "./profile";
import { encodeTilePng } from "./png";
import { csvFileToFods, csvFilterOptions, csvInDialect, type CsvDialect } from "./csv-import";
import { formatOf } from "./formats";
import { sniff } from "./sniff";
import { sendLine } from "./reply";
import { confinePastedHtml } from "./pasted-html";
import { engineIdle, runKitLoop, UNIPOLL_ENVIRONMENT } from "./kit-loop";
import { confineEngineProcess } from "./confine";
import { dieWithParent } from "./parent-death";
import { parseTileInvalidation } from "./tile-invalidation";
import { repaintStaleRows, SharedTiles, type SharedTile } from "./shared-tiles";
import { Scratch } from "./scratch";
import { isAllowedUnoName, isDialogCommand } from "../app/edsrv/protocol/uno-commands";
import { findWindow, forgetView, forgetWindow, mayAct, noteDialogCallback, offeredSidebar, windowsOf } from "./kit-dialogs";

const send = sendLine;

function log(level: "debug" | "info" | "warn" | "error", event: string, fields?: Record<string, unknown>): void {
  send({ type: "log", level, event, fields });
}

/** Document callbacks worth forwarding (see LibreOfficeKitEnums.h); the rest (sidebar JSON…) is dropped. */
const FORWARDED = new Set([0, 1, 2, 5, 8, 12, 13, 14, 15, 16, 17, 19, 22, 23, 24, 25, 26, 28, 32, 34, 36, 39, 46, 62, 63, 64, 67]);
const DOC_TYPES = ["text", "spreadsheet", "presentation", "drawing", "other"] as const;
/** A 1920×1080 px screen at 100 % (15 twips a pixel): larger than any first view of the editor. */
const FIRST_SCREEN_TWIPS = { width: 1920 * 15, height: 1080 * 15 };
/** Extensions whose save needs filter options (LOK saveAs re-joins options with ", "). */
const SAVE_OPTIONS: Record<string, string> = { txt: "UTF8" };

let office: LokOffice;
let doc: LokDocument | null = null;
/**
 * The loaded document's LOK_DOCTYPE, read once: LibreOffice answers it under its global lock, and
 * it was asked on every tile invalidation, waiting whenever the engine's thread held the lock.
 */
let docType = -1;
const views = new Set<number>();
/**
 * Views that have not had a tile painted yet. Their invalidations are dropped: the client holds no
 * tile of theirs to repaint. Creating a view invalidates the whole document about when the
 * client asks for its first screen, and each of those tiles was painted twice.
 */
const unpainted = new Set<number>();
let firstViewTaken = false;
/**
 * The version of the document's pixels: each forwarded tile invalidation takes the next number,
 * and a tile carries the number it was painted at. A client holding a tile of version v knows that
 * an invalidation numbered ≤ v is already in it, whatever order the two messages arrived in; one
 * numbered > v means the tile must be asked for again (Collabora's tile versions do the same).
 */
let pixelVersion = 0;


function requireDoc(): LokDocument {
  if (!doc) throw new Error("no document loaded");
  return doc;
}

/** `viewId` as one of the document's views, or an error naming it. */
function knownView(viewId: unknown): number {
  if (typeof viewId !== "number" || !views.has(viewId)) throw new Error(`unknown view ${String(viewId)}`);
  return viewId;
}

function useView(viewId: unknown): LokDocument {
  const d = requireDoc();
  const id = knownView(viewId);
  if (d.getView() !== id) d.setView(id);
  return d;
}

/**
 * The document, ready to paint tiles for `viewId` (a known view). A text document's tiles are the
 * same through any view of the same look (a page has no per-view part), so the current view paints them: a
 * view switch (LibreOffice re-activates the view's frame, its bindings and Basic's ThisComponent)
 * cost 0.5 ms of CPU, as much as painting a tile, and with five people in a document nearly every
 * tile request switched. Sheets and slides switch: each view shows its own part.
 */
function viewForTiles(viewId: number): LokDocument {
  const d = requireDoc();
  const current = d.getView();
  if (current === viewId) return d;
  if (docType === LOK_DOCTYPE.TEXT && views.has(current) && lookKey(current) === lookKey(viewId)) return d;
  d.setView(viewId);
  return d;
}

function num(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${name} must be a number`);
  return Math.trunc(v);
}

function status(d: LokDocument): Record<string, unknown> {
  const type = DOC_TYPES[docType] ?? "other";
  const parts = d.getParts();
  const partNames: string[] = [];
  if (type !== "text") for (let i = 0; i < parts; i++) partNames.push(d.getPartName(i) ?? `${i + 1}`);
  const size = d.getDocumentSize();
  return { type, parts, selectedPart: type === "text" ? 0 : d.getPart(), width: size.width, height: size.height, partNames, viewId: d.getView() };
}

/**
 * A view's rendering options, as Collabora's kit gives them: the person's name, which the engine
 * writes as the author of their comments and tracked changes, and spell checking as they type
 * (red underlines, from the hunspell dictionaries installed).
 */
function viewOptions(author: string): string {
  const options: Record<string, { type: string; value: unknown }> = { ".uno:SpellOnline": { type: "boolean", value: true } };
  if (author) options[".uno:Author"] = { type: "string", value: author };
  return JSON.stringify(options);
}

function addView(readOnly: boolean, author: string): number {
  const d = requireDoc();
  let viewId: number;
  if (!firstViewTaken) {
    // The view made by the load is the first session's.
    firstViewTaken = true;
    viewId = d.getView();
  } else {
    viewId = d.createView();
    d.setView(viewId);
  }
  // Listen first, then initialise (Collabora's order): initialising emits the view's first cursor,
  // which a callback registered afterwards can miss.
  d.registerQueuedCallback(viewId);
  d.initializeForRendering(viewOptions(author));
  views.add(viewId);
  unpainted.add(viewId);
  setLook(viewId, { readOnly });
  if (docType === LOK_DOCTYPE.SPREADSHEET) {
    // A sheet's first column and row headers grow the view's tiled area and invalidate the whole
    // sheet: asked by the page just after its first tiles, every one of them was asked again.
    // Asked here for a large first screen, before the view has painted, that invalidation is
    // dropped (unpainted) and the page's own header requests, for a smaller area, change nothing.
    d.getCommandValues(`.uno:ViewRowColumnHeaders?x=0&y=0&width=${FIRST_SCREEN_TWIPS.width}&height=${FIRST_SCREEN_TWIPS.height}`);
    pump();
  }
  log("info", "kit_view_added", { view_id: viewId, read_only: readOnly, views: d.getViewsCount() });
  return viewId;
}

/**
 * Requests handled strictly one after another: user input; copies and pastes, which must see the
 * input before them; saves, which must hold every input sent before them (an undo still settling
 * included); and removing a view, which must not drop the input its user sent just before leaving
 * (typing, then closing the tab at once).
 */
const ORDERED_OPS = new Set(["key", "mouse", "textinput", "uno", "slideimage", "dialogevent", "paintwindow", "windowmouse", "windowkey", "windowtext", "windowclose", "closedialogs", "save", "unview", "selection", "paste", "moveparts"]);
/** A sheet's row and column headers for a twip rectangle (sizes and labels; Calc only). */
const ROW_COLUMN_HEADERS = /^\.uno:ViewRowColumnHeaders(\?x=\d{1,9}&y=\d{1,9}&width=\d{1,9}&height=\d{1,9})?$/;
/** Commands whose values a page may ask for (font list, styles). */
const COMMAND_VALUES = new Set([".uno:CharFontName", ".uno:StyleApply", ".uno:LanguageStatus", ".uno:ViewAnnotations"]);
/** The pictures a person can insert, by type; no SVG (it can name outside resources). */
const GRAPHIC_TYPES: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };
let insertedGraphics = 0;
/** The kit's own temporary directory, inside its profile (set at start). */
let kitTempDir = "";
/** The most a copy or a paste carries (the WebSocket's frame limit is 16 MB, base64 included). */
const CLIPBOARD_MAX_BYTES = 10 * 1024 * 1024;
let inputChain: Promise<unknown> = Promise.resolve();
/** Whether a view's language takes effect only once the view is made current again (LibreOffice before 25; see "viewlanguage"). */
let languageNeedsViewSwitch = true;
/** The options of this kit's loads: without Batch when the engine has its dialogs (profile.ts). */
let loadOptions = LOAD_OPTIONS;
let dialogsAvailable = false;

async function handle(req: Record<string, unknown>): Promise<unknown> {
  switch (req.op) {
    case "load": {
      if (doc) throw new Error("a document is already loaded");
      const path = String(req.path ?? "");
      if (!path.startsWith("/") || !existsSync(path)) throw new Error("path must be an existing absolute path");
      const t0 = performance.now();
      const d = office.documentLoad(fileUrl(loadableSource(path, typeof req.name === "string" ? req.name : "")), loadOptions);
      if (!d) throw new Error(`load failed: ${office.getError() || "no detail"}`);
      doc = d;
      docType = d.getDocumentType();
      d.initializeForRendering("");
      log("info", "kit_document_loaded", { ms: Math.round(performance.now() - t0) });
      return status(d);
    }
    case "view":
      return { viewId: addView(req.readOnly === true, typeof req.author === "string" ? req.author.slice(0, 256) : "") };
    case "viewlanguage": {
      // The language of what LibreOffice makes for this view (the spelling context menu…), from the session's `lang`.
      const d = useView(req.viewId);
      const viewId = req.viewId as number;
      const lang = String(req.lang ?? "");
      if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(lang)) throw new Error("lang must be a BCP 47 language tag");
      d.setViewLanguage(viewId, lang);
      setLook(viewId, { lang });
      // LibreOffice 7.4 took a view's language into its resources only when the view became the
      // current one (SfxLokHelper::setView), which does nothing for the view already current:
      // another view is made current for a moment (a new one, dropped at once, when this is the
      // only one). 25.2 applies it at once (the Vietnamese spelling menu test passes without the
      // switch on 25.2 and fails without it on 7.4): the switch is kept for engines before 25.
      if (!languageNeedsViewSwitch) return {};
      const other = [...views].find((v) => v !== viewId);
      if (other !== undefined) {
        d.setView(other);
        d.setView(viewId);
      } else {
        const temporary = d.createView();
        d.setView(viewId);
        d.destroyView(temporary);
        d.setView(viewId);
      }
      return {};
    }
    case "unview": {
      useView(req.viewId); // an unknown view fails at once, not after the wait
      // Input posted to this view is worked through later; destroyed first, it is lost.
      await engineIdle();
      if (windowsOf(req.viewId as number).length) {
        closeDialogs(req.viewId as number);
        await engineIdle();
      }
      // Selected again: a tile request (not ordered) may have switched the current view meanwhile.
      const d = useView(req.viewId);
      const viewId = req.viewId as number;
      d.unregisterCallback();
      views.delete(viewId);
      viewLooks.delete(viewId);
      unpainted.delete(viewId);
      sentTiles.delete(viewId);
      viewChains.delete(viewId);
      forgetView(viewId);
      if (d.getViewsCount() > 1) d.destroyView(viewId);
      const rest = [...views][0];
      if (rest !== undefined) d.setView(rest);
      return { views: views.size };
    }
    case "status":
      return status(useView(req.viewId));
    case "key": {
      useView(req.viewId); // an unknown view fails at once
      const type = req.type === "up" ? LOK_KEYEVENT_KEYUP : LOK_KEYEVENT_KEYINPUT;
      const char = num(req.char ?? 0, "char"), key = num(req.key ?? 0, "key");
      // A key LibreOffice runs as a command (a shortcut, an arrow) is queued behind the input
      // posted before it and runs before the input posted after it: no wait (kit-loop.ts).
      useView(req.viewId).postKeyEvent(type, char, key);
      return {};
    }
    case "mouse": {
      useView(req.viewId); // an unknown view fails at once
      const type = req.type === "buttonup" ? LOK_MOUSEEVENT_MOUSEBUTTONUP : req.type === "move" ? LOK_MOUSEEVENT_MOUSEMOVE : LOK_MOUSEEVENT_MOUSEBUTTONDOWN;
      const x = num(req.x, "x"), y = num(req.y, "y"), count = num(req.count ?? 1, "count"), buttons = num(req.buttons ?? 1, "buttons"), modifier = num(req.modifier ?? 0, "modifier");
      useView(req.viewId).postMouseEvent(type, x, y, count, buttons, modifier);
      return {};
    }
    case "textinput": {
      useView(req.viewId); // an unknown view fails at once
      // A composition update (end: false), or committed text, joined with the text of the same
      // view that arrived while it waited its turn (see joinTyping).
      const batch = req.batch instanceof TypedText ? req.batch : new TypedText(req.viewId, String(req.text ?? ""));
      if (req.end !== false) {
        if (batch.posted) return {}; // went in with an earlier request's text
        batch.posted = true;
      }
      const d = useView(req.viewId);
      d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT, batch.text);
      if (req.end !== false) d.postWindowExtTextInputEvent(0, LOK_EXT_TEXTINPUT_END, batch.text);
      return {};
    }
    case "uno": {
      useView(req.viewId); // an unknown view fails at once
      const command = String(req.command ?? "");
      // The second wall: a name the editing server's door does not know never reaches LibreOffice.
      if (!isAllowedUnoName(command)) throw new Error("uno command not allowed");
      // Without its dialog libraries (a -nogui LibreOffice) the engine aborts on a dialog command.
      if (!dialogsAvailable && isDialogCommand(command, typeof req.args === "string" ? req.args : "")) throw new Error("this engine has no dialogs");
      if (VIEW_LOOK_COMMAND.test(command)) setLook(req.viewId as number, { own: true });
      // LibreOffice runs a command at once but input later, from its queue: an undo sent right
      // after typing would otherwise undo an earlier step and let the typing land after it. And
      // what the command queues itself is worked through before the input sent after it.
      await engineIdle();
      useView(req.viewId).postUnoCommand(command, typeof req.args === "string" ? req.args : "", true);
      await engineIdle();
      return {};
    }
    case "dialogevent": {
      // A person's act on a widget of a dialog LibreOffice showed this view (JSDialog). The window
      // is one this view has open; in a replay (a new engine, other ids) the one of the same name.
      // Run like input: after what came before it, and what it queues (the dialog's next state,
      // or its close and the change to the document) is worked through before the answer.
      useView(req.viewId); // an unknown view fails at once
      const viewId = req.viewId as number;
      const json = String(req.json ?? "");
      if (json.length > 64 * 1024) throw new Error("dialog event too large");
      await engineIdle();
      const w = findWindow(viewId, String(req.windowId ?? ""), String(req.dialog ?? ""));
      if (!w || w.kind === "tunnelled") throw new Error("no such dialog open in this view");
      const event = JSON.parse(json) as { id?: unknown; type?: unknown; data?: unknown };
      if (!mayAct(w, String(event.id ?? ""), String(event.type ?? ""), String(event.data ?? ""))) throw new Error("that control is not shown or not enabled");
      useView(viewId).sendDialogEvent(BigInt(w.id), json);
      await engineIdle();
      return {};
    }
    case "paintwindow": {
      // A rectangle of a tunnelled window (a dialog LibreOffice does not describe as JSDialog),
      // in window pixels, as a PNG.
      const { id } = tunnelledWindow(req);
      const x = num(req.x ?? 0, "x"), y = num(req.y ?? 0, "y");
      const width = Math.min(num(req.width, "width"), MAX_WINDOW_PX), height = Math.min(num(req.height, "height"), MAX_WINDOW_PX);
      if (width < 1 || height < 1) throw new Error("empty rectangle");
      await engineIdle();
      const { d } = tunnelledWindow(req); // current again after the wait
      const pixels = new Uint8Array(width * height * 4);
      d.paintWindow(id, pixels, x, y, width, height);
      return { windowId: String(id), x, y, width, height, png: encodeTilePng(pixels, width, height, d.getTileMode()).toString("base64") };
    }
    case "windowmouse": {
      const { d, id } = tunnelledWindow(req);
      const type = req.type === "buttonup" ? LOK_MOUSEEVENT_MOUSEBUTTONUP : req.type === "move" ? LOK_MOUSEEVENT_MOUSEMOVE : LOK_MOUSEEVENT_MOUSEBUTTONDOWN;
      d.postWindowMouseEvent(id, type, num(req.x, "x"), num(req.y, "y"), num(req.count ?? 1, "count"), num(req.buttons ?? 1, "buttons"), num(req.modifier ?? 0, "modifier"));
      await engineIdle();
      return {};
    }
    case "windowkey": {
      const { d, id } = tunnelledWindow(req);
      d.postWindowKeyEvent(id, req.type === "up" ? LOK_KEYEVENT_KEYUP : LOK_KEYEVENT_KEYINPUT, num(req.char ?? 0, "char"), num(req.key ?? 0, "key"));
      await engineIdle();
      return {};
    }
    case "windowtext": {
      const { d, id } = tunnelledWindow(req);
      const text = String(req.text ?? "").slice(0, 4096);
      d.postWindowExtTextInputEvent(id, LOK_EXT_TEXTINPUT, text);
      d.postWindowExtTextInputEvent(id, LOK_EXT_TEXTINPUT_END, text);
      await engineIdle();
      return {};
    }
    case "windowclose": {
      const { d, id } = tunnelledWindow(req);
      d.postWindow(id, LOK_WINDOW_CLOSE);
      await engineIdle();
      return {};
    }
    case "a11y": {
      // A screen reader's page: LibreOffice tells this view the focused paragraph's text and where
      // its caret is (LOK_CALLBACK_A11Y_*), which the page puts where a screen reader reads.
      const d = useView(req.viewId);
      if (!d.has("setAccessibilityState")) throw new Error("this engine has no accessibility events");
      d.setAccessibilityState(req.viewId as number, req.enabled === true);
      await engineIdle();
      return {};
    }
    case "presentationinfo": {
      // The deck as a show sees it (LibreOffice's JSON: its slides, hidden ones left out).
      const d = useView(req.viewId);
      await engineIdle();
      return { json: d.has("getPresentationInfo") ? (d.getPresentationInfo() ?? "") : "" };
    }
    case "slideimage": {
      // A slide as the show draws it (not the editing view: no caret, no "Click to add Text",
      // no field placeholders), composed of LibreOffice's layers on white, as a PNG.
      const d = useView(req.viewId);
      if (!d.has("createSlideRenderer")) throw new Error("this engine cannot render a slideshow (LibreOffice 24.2 or later can)");
      const part = num(req.part, "part");
      const width = Math.max(16, Math.min(num(req.width, "width"), MAX_SLIDE_PX)), height = Math.max(16, Math.min(num(req.height, "height"), MAX_SLIDE_PX));
      await engineIdle();
      return renderSlide(useView(req.viewId), part, width, height);
    }
    case "closedialogs": {
      // What a view still has open, closed as its close box would (Cancel): a view leaving, or
      // the end of a replay whose dialogs nobody sees.
      useView(req.viewId);
      await engineIdle();
      closeDialogs(req.viewId as number);
      await engineIdle();
      return {};
    }
    case "selection": {
      // What a copy takes: the view's selection as HTML (formatting) and plain text, once the
      // input that made the selection has been processed.
      await engineIdle();
      const d = useView(req.viewId);
      const html = d.getTextSelection("text/html") ?? "";
      const text = d.getTextSelection("text/plain;charset=utf-8") ?? "";
      if (html.length + text.length > CLIPBOARD_MAX_BYTES) return { tooLarge: true };
      return { html, text };
    }
    case "commandvalues": {
      // The values a picker offers (fonts and their sizes, styles): LibreOffice's JSON, as is.
      const command = String(req.command ?? "");
      if (!COMMAND_VALUES.has(command) && !ROW_COLUMN_HEADERS.test(command)) throw new Error("unsupported command values");
      return { json: useView(req.viewId).getCommandValues(command) ?? "" };
    }
    case "thumbnail": {
      // A small picture of a whole slide or page for the part panel, painted without switching the view.
      const d = useView(req.viewId);
      const part = num(req.part, "part"), width = num(req.width, "width");
      if (part < 0 || part >= d.getParts() || width < 16 || width > 512) throw new Error("thumbnail out of range");
      if (docType === LOK_DOCTYPE.TEXT) throw new Error("thumbnails are for slides and drawings");
      // The slides of a deck share one size: the shown slide's is every slide's.
      const size = d.getDocumentSize();
      const height = Math.max(1, Math.round((width * size.height) / Math.max(1, size.width)));
      const buf = new Uint8Array(width * height * 4);
      d.paintPartTile(buf, part, width, height, 0, 0, size.width, size.height);
      return { width, height, png: encodeTilePng(buf, width, height, d.getTileMode()).toString("base64") };
    }
    case "moveparts": {
      // Reorders slides: the given parts are selected, then moved (or copied) to before `position`.
      const d = useView(req.viewId);
      const parts = Array.isArray(req.parts) ? req.parts.map((p) => num(p, "part")) : [];
      const position = num(req.position, "position");
      const n = d.getParts();
      if (!parts.length || parts.some((p) => p < 0 || p >= n) || position < 0 || position > n) throw new Error("parts out of range");
      await engineIdle();
      // LibreOffice copies nothing here (it ignores the flag; 7.4 and 25.2): a copy is .uno:DuplicatePage.
      if (req.duplicate === true) throw new Error("duplicating parts is not supported");
      for (let p = 0; p < n; p++) d.selectPart(p, parts.includes(p) ? 1 : 0);
      // The engine inserts the selection after the slide it is given (-1: before the first) and
      // reads a slide past the last one as a null page (the kit crashed on "move the last down").
      d.moveSelectedParts(position - 1, false);
      await engineIdle();
      // The view stays on the slide it showed, wherever it went: the first one moved, as a person
      // who moved a slide expects to keep looking at it.
      const landed = position - parts.filter((p) => p < position).length;
      const view = useView(req.viewId);
      // Left selected, the moved slides would all go with the next "delete slide": only the slide
      // shown stays selected. Impress makes the selected slide the shown one a little later (100 ms
      // after a move, measured at the kit): with none selected it went back to another slide.
      const shown = landed >= 0 && landed < view.getParts() ? landed : view.getPart();
      for (let p = 0; p < view.getParts(); p++) view.selectPart(p, p === shown ? 1 : 0);
      if (view.getPart() !== shown) view.setPart(shown);
      return status(view);
    }
    case "paste": {
      const mime = String(req.mime ?? "");
      if (!/^(text\/html|text\/plain|image\/png)(;charset=utf-8)?$/.test(mime)) throw new Error("unsupported paste type");
      let data: Uint8Array = Buffer.from(String(req.data ?? ""), "base64");
      if (data.byteLength > CLIPBOARD_MAX_BYTES) throw new Error("paste too large");
      if (mime.startsWith("text/html")) data = Buffer.from(confinePastedHtml(Buffer.from(data).toString("utf8")));
      await engineIdle();
      const ok = useView(req.viewId).paste(mime, data);
      await engineIdle();
      return { ok };
    }
    case "insertgraphic": {
      // An uploaded picture, inserted at the cursor from a file as Collabora's kit does (the
      // engine's paste takes no picture in LibreOffice's Writer: 7.4, and 25.2 still answers false).
      const ext = GRAPHIC_TYPES[String(req.mime ?? "")];
      if (!ext) throw new Error("unsupported image type");
      const data = Buffer.from(String(req.data ?? ""), "base64");
      if (!data.byteLength || data.byteLength > CLIPBOARD_MAX_BYTES) throw new Error("image empty or too large");
      useView(req.viewId); // an unknown view fails at once
      const file = join(kitTempDir, `insert-${++insertedGraphics}.${ext}`);
      writeFileSync(file, data);
      try {
        await engineIdle();
        useView(req.viewId).postUnoCommand(".uno:InsertGraphic", JSON.stringify({ FileName: { type: "string", value: fileUrl(file) } }), true);
        await engineIdle();
      } finally {
        rmSync(file, { force: true });
      }
      return {};
    }
    case "part": {
      const d = useView(req.viewId);
      const part = num(req.part, "part");
      if (part < 0 || part >= d.getParts()) throw new Error("part out of range");
      if (d.getPart() !== part) d.setPart(part);
      return status(d);
    }
    case "tiles": {
      const viewId = knownView(req.viewId);
      const d = viewForTiles(viewId);
      const width = num(req.width, "width"), height = num(req.height, "height");
      if (width < 1 || height < 1 || width > 2048 || height > 2048) throw new Error("tile size out of range");
      const w = Math.max(1, num(req.w, "w")), h = Math.max(1, num(req.h, "h"));
      // [x, y, wid]: the position in twips and the wire id of the copy the client holds (0: none).
      const at = Array.isArray(req.tiles) ? req.tiles.map((t: unknown) => (Array.isArray(t) ? [num(t[0], "x"), num(t[1], "y"), num(t[2] ?? 0, "wid")] : [NaN, NaN, 0])) : [];
      if (at.length < 1 || at.length > MAX_TILES_PER_PAINT) throw new Error(`tiles must list 1 to ${MAX_TILES_PER_PAINT} positions`);
      const part = req.part === undefined ? undefined : num(req.part, "part");
      // Tiles are painted for the part this view shows. A request for another part was sent
      // before the client's part switch reached the engine: switching the view back to paint it
      // would end what the user is doing there (a cell being typed into loses its text).
      if (part !== undefined && docType !== LOK_DOCTYPE.TEXT && d.getPart() !== part) return { stale: true, shown: d.getPart() };
      // Every invalidation the engine made before this paint goes out first, numbered at most the
      // version the tiles carry: the client then knows the tiles hold those changes.
      pump();
      unpainted.delete(viewId);
      return { ...paintTiles(d, viewId, part ?? 0, { width, height, w, h }, at as [number, number, number][], req.deltas === true), version: pixelVersion };
    }
    case "save": {
      const d = requireDoc();
      const path = String(req.path ?? "");
      const format = String(req.format ?? "").toLowerCase();
      if (!path.startsWith("/") || !/^[a-z0-9]{1,8}$/.test(format)) throw new Error("bad save request");
      await engineIdle();
      rmSync(path, { force: true });
      const t0 = performance.now();
      const options = format === "csv" ? csvFilterOptions(csvSource) : (SAVE_OPTIONS[format] ?? "");
      if (!d.saveAs(fileUrl(path), format, options) || !existsSync(path)) {
        throw new Error(`save failed: ${office.getError() || "no detail"}`);
      }
      if (format === "csv" && csvSource) writeInSourceDialect(path, csvSource);
      log("info", "kit_document_saved", { ms: Math.round(performance.now() - t0), format });
      return {};
    }
    case "ping":
      return { views: views.size, loaded: doc !== null };
    case "settle":
      // Answers once the engine has worked through every input posted before it (a journal
      // replay's careful mode: a crash then names the input that caused it).
      await engineIdle();
      return {};
    default:
      throw new Error(`unknown op ${JSON.stringify(req.op)}`);
  }
}

/** The dialect of the CSV (or TSV) file the document was opened from; null for any other file. */
let csvSource: CsvDialect | null = null;

/**
 * What the engine opens for the file at `path`: the file itself, or for CSV/TSV text (and text
 * named as a spreadsheet) a flat ODS made from it, as DocBuilder does (engine.ts). Opened as is,
 * CSV went to Calc's text-import dialog, which under LibreOfficeKit is cancelled (Batch=true):
 * "loadComponentFromURL returned an empty reference". A save as csv writes the sheet back with the
 * file's own delimiter, record separator, encoding and byte order mark (writeInSourceDialect).
 */
function loadableSource(path: string, name: string): string {
  const ext = extname(path).slice(1).toLowerCase();
  const spreadsheet = ext === "csv" || ext === "tsv" || formatOf(ext)?.family === "spreadsheet";
  if (!spreadsheet) return path;
  const fd = openSync(path, "r");
  const head = new Uint8Array(8192);
  const got = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  if (sniff(head.subarray(0, got)) !== "text") return path;
  const fods = join(kitTempDir, "source.fods");
  const dialect = csvFileToFods(path, fods, { delimiter: ext === "tsv" ? "\t" : undefined, fileName: name || path });
  const { rows, cols, ...source } = dialect;
  csvSource = source;
  log("info", "kit_csv_source", { encoding: dialect.encoding, delimiter: dialect.delimiter, rows, cols });
  return fods;
}

/** A CSV the engine wrote, written again as the file it was opened from was (see csvInDialect). */
function writeInSourceDialect(path: string, dialect: CsvDialect): void {
  writeFileSync(path, csvInDialect(new TextDecoder("utf-8").decode(readFileSync(path)), dialect));
}

/**
 * LibreOffice 7.4's Calc repaints a whole row (an invalidation wider than any sheet's used width)
 * when a cell's content changes, and invalidates nothing for the cells and charts that depend on
 * it: a SUM row kept its old value on every screen. Such a row is taken as "the sheet changed".
 * 25.2 invalidates the edited cell only (measured at the engine, 2026-11-27), so this never fires
 * there; it stays for the older engines SVC_ENGINE_PROGRAM_DIR may name (7.4 and later).
 * repaint.browser.test.ts's SUM test passes on 25.2.
 */
const SHEET_ROW_WIDTH = 10_000_000; // twips; Calc sends 32212230
function isSheetContentChange(payload: string): boolean {
  if (docType !== LOK_DOCTYPE.SPREADSHEET) return false;
  return (parseTileInvalidation(payload)?.rect?.w ?? 0) >= SHEET_ROW_WIDTH;
}

/** The most tiles one request paints (a 1920×1200 screen is 40). */
const MAX_TILES_PER_PAINT = 64;

/**
 * What each view's client was last sent at each tile: its wire id and a digest of each pixel row.
 * A tile painted again for a client that says it holds that wire id is answered without a picture
 * when no row changed (typing invalidates from the caret to the end of the line, and most of those
 * tiles do not change, nor do most tiles of a sheet repainted after a cell change), or, for a
 * client that applies deltas, with only the band of rows that changed: a typed character changes
 * one line, 15-20 of a tile's 256 rows, and the whole tile was encoded, sent and decoded by the
 * page for it (8-12 ms of a keystroke's way to the screen on 2 cores, most of it in the page).
 */
const sentTiles = new Map<number, Map<string, { wid: number; rows: BigUint64Array }>>();
let lastWid = 0;
/** Tiles remembered per view before forgetting (several screens; 2 KB each). */
const MAX_SENT_TILES = 2048;
/** A band of changed rows taller than this part of the tile is sent as the whole tile. */
const MAX_DELTA_PART = 0.75;

/** A painted tile: its wire id and PNG (base64); no PNG when the client holds these very pixels; with `delta`, the PNG is rows `dy`… of the copy `delta`. */
type PaintedTile = { wid: number; png?: string; delta?: number; dy?: number };

/**
 * How a view draws the document, as far as its pixels go: read-only or not, its language (an
 * empty placeholder's "Click to add Text" is in the view's language) and, once it has run a
 * command that changes only its own view (formatting marks, grid lines, zoom…), a look of its
 * own. Views of one look share painted tiles (Collabora's canonical view ids).
 */
interface ViewLook {
  readOnly: boolean;
  lang: string;
  /** The view ran a view-only command: it shares tiles with no other. */
  own: boolean;
}
const viewLooks = new Map<number, ViewLook>();
const VIEW_LOOK_COMMAND = /^\.uno:(ControlCodes|SpellOnline|Show|Hide|View|Toggle|Zoom|Grid|Ruler|Sidebar)/;
function setLook(viewId: number, change: Partial<ViewLook>): void {
  viewLooks.set(viewId, { readOnly: false, lang: "", own: false, ...viewLooks.get(viewId), ...change });
}
/** Views with the same key paint the same pixels. */
function lookKey(viewId: number): string {
  const look = viewLooks.get(viewId);
  return !look || look.own ? `v${viewId}` : `${look.readOnly ? "ro" : "rw"}:${look.lang}`;
}

const sharedTiles = new SharedTiles();
/** Where tiles are painted before SharedTiles keeps its own copy of each. */
const paintScratch = new Scratch();

/**
 * Paints tiles of one size and answers, in order, each one's wire id and PNG (see PaintedTile).
 * Tiles on one grid are painted as one rectangle and cut (Collabora's combined tiles): the
 * engine's set-up per paint cost more than the painting, measured at 0.5-0.9 ms for three tiles
 * apart against 0.2-0.3 ms as one. One pixel more each way is painted and cropped: the engine draws
 * a paint's last pixel column and row without the grid lines and borders that go on past it, a
 * white seam every tile in sheets. Tiles another view of the same look painted since the engine
 * last changed them are not painted again, and in a text document only the rows the engine changed
 * are painted again (shared-tiles.ts).
 */
function paintTiles(d: LokDocument, viewId: number, part: number, size: { width: number; height: number; w: number; h: number }, at: [number, number, number][], deltas: boolean): { tiles: PaintedTile[]; painted: { tiles: number; rows: number } } {
  const { width, height, w, h } = size;
  let sent = sentTiles.get(viewId);
  if (!sent) sentTiles.set(viewId, (sent = new Map()));
  if (sent.size > MAX_SENT_TILES) sent.clear();
  const mode = d.getTileMode();
  const look = lookKey(viewId);
  const sharedKey = (x: number, y: number) => `${look}|${part}:${x}:${y}:${w}:${h}:${width}:${height}`;

  const shared = new Map<string, SharedTile>();
  const missing: [number, number][] = [];
  const missingKeys = new Set<string>();
  const stale = new Set<SharedTile>();
  for (const [x, y] of at) {
    const key = sharedKey(x, y);
    const hit = sharedTiles.get(key);
    if (hit) {
      shared.set(key, hit);
      if (hit.stale) stale.add(hit);
    } else if (!missingKeys.has(key)) {
      missingKeys.add(key);
      missing.push([x, y]);
    }
  }
  const keep = (x: number, y: number, pixels: Uint8Array, stride: number) => {
    const key = sharedKey(x, y);
    shared.set(key, sharedTiles.put(key, { part, x, y, w, h, width, height }, pixels, stride));
  };
  if (missing.length) {
    const x0 = Math.min(...missing.map((t) => t[0])), y0 = Math.min(...missing.map((t) => t[1]));
    const cols = Math.round((Math.max(...missing.map((t) => t[0])) - x0) / w) + 1, rows = Math.round((Math.max(...missing.map((t) => t[1])) - y0) / h) + 1;
    const onGrid = missing.every(([x, y]) => (x - x0) % w === 0 && (y - y0) % h === 0);
    // As one rectangle when it is mostly tiles asked for and not huge; else tile by tile.
    if (onGrid && cols * rows <= 2 * missing.length && cols * width <= 4096 && rows * height <= 4096) {
      const bw = cols * width + 1, bh = rows * height + 1;
      const buf = paintScratch.zeroed(bw * bh * 4);
      d.paintTile(buf, bw, bh, x0, y0, Math.round((w * bw) / width), Math.round((h * bh) / height));
      for (const [x, y] of missing) keep(x, y, buf.subarray((((y - y0) / h) * height * bw + ((x - x0) / w) * width) * 4), bw);
    } else {
      const buf = paintScratch.zeroed((width + 1) * (height + 1) * 4);
      for (const [x, y] of missing) {
        d.paintTile(buf, width + 1, height + 1, x, y, Math.round((w * (width + 1)) / width), Math.round((h * (height + 1)) / height));
        keep(x, y, buf, width + 1);
      }
    }
  }
  const rowsPainted = repaintStaleRows((buf, bw, bh, x, y, tw, th) => d.paintTile(buf, bw, bh, x, y, tw, th), [...stale]);

  const tiles = at.map(([x, y, have]): PaintedTile => {
    const tile = shared.get(sharedKey(x, y))!;
    const key = `${part}:${x}:${y}:${w}:${width}`;
    const before = sent.get(key);
    // The rows top..bottom changed in the copy the client holds (the whole tile when it holds none).
    let top = 0, bottom = height - 1;
    const held = have !== 0 && before?.wid === have;
    if (held) {
      while (top < height && tile.rows[top] === before.rows[top]) top++;
      if (top === height) return { wid: have };
      while (tile.rows[bottom] === before.rows[bottom]) bottom--;
    }
    const wid = ++lastWid;
    sent.set(key, { wid, rows: tile.rows });
    const band = bottom - top + 1;
    const asDelta = held && deltas && band <= height * MAX_DELTA_PART;
    const bandKey = asDelta ? `${top}:${band}` : `0:${height}`;
    let png = tile.encoded.get(bandKey);
    if (png === undefined) {
      png = (asDelta ? encodeTilePng(tile.pixels.subarray(top * width * 4), width, band, mode, width) : encodeTilePng(tile.pixels, width, height, mode, width)).toString("base64");
      tile.encoded.set(bandKey, png);
    }
    return asDelta ? { wid, png, delta: have, dy: top } : { wid, png };
  });
  // What the engine painted for this request: whole tiles, and rows of tiles painted again in part.
  return { tiles, painted: { tiles: missing.length, rows: rowsPainted } };
}

/** The largest slide a show asks for, each way (a 4K screen). */
const MAX_SLIDE_PX = 3840;

/**
 * A slide rendered for the show: LibreOffice gives it as layers (background, master page, the
 * slide's objects; JSON-only layers such as text-field placeholders are not drawn), each in
 * premultiplied BGRA, laid one over the other here on an opaque white slide.
 */
function renderSlide(d: LokDocument, part: number, width: number, height: number): { part: number; width: number; height: number; png: string } {
  const size = d.createSlideRenderer(part, width, height, true, true);
  if (!size) throw new Error("the slide cannot be rendered");
  const out = new Uint8Array(size.width * size.height * 4).fill(255);
  const layer = new Uint8Array(out.length);
  try {
    for (let i = 0; i < 64; i++) {
      layer.fill(0);
      const l = d.renderNextSlideLayer(layer);
      if (l.done) break;
      if (!l.bitmap) continue;
      for (let p = 0; p < out.length; p += 4) {
        const a = layer[p + 3]!;
        if (a === 0) continue;
        if (a === 255) {
          out[p] = layer[p]!; out[p + 1] = layer[p + 1]!; out[p + 2] = layer[p + 2]!;
          continue;
        }
        const keep = 255 - a;
        out[p] = layer[p]! + ((out[p]! * keep + 127) / 255 | 0);
        out[p + 1] = layer[p + 1]! + ((out[p + 1]! * keep + 127) / 255 | 0);
        out[p + 2] = layer[p + 2]! + ((out[p + 2]! * keep + 127) / 255 | 0);
      }
    }
  } finally {
    d.postSlideshowCleanup();
  }
  return { part, width: size.width, height: size.height, png: encodeTilePng(out, size.width, size.height, d.getTileMode()).toString("base64") };
}

const LOK_CALLBACK_JSDIALOG = LOK_CALLBACK.JSDIALOG;
const LOK_CALLBACK_INVALIDATE_TILES = LOK_CALLBACK.INVALIDATE_TILES;

/** LibreOfficeKit's postWindow action that closes a tunnelled window. */
const LOK_WINDOW_CLOSE = 1;
/** The largest tunnelled window rectangle painted at once (a dialog is smaller than a screen). */
const MAX_WINDOW_PX = 2048;

/**
 * The tunnelled window a request names, one its view has open (by id, or by name in a replay),
 * with the view made current: the document to post to and the window's id.
 */
function tunnelledWindow(req: Record<string, unknown>): { d: LokDocument; id: number } {
  const d = useView(req.viewId); // an unknown view fails at once
  const w = findWindow(req.viewId as number, String(req.windowId ?? ""), String(req.dialog ?? ""));
  if (!w || w.kind !== "tunnelled") throw new Error("no such window open in this view");
  return { d, id: Number(w.id) };
}

/** Closes a view's open dialogs, the last opened first, as their close boxes would. */
function closeDialogs(viewId: number): void {
  const d = useView(viewId);
  for (const w of windowsOf(viewId)) {
    // The sidebar is the view's own panel, not a dialog: it goes with the view.
    if (w.kind === "sidebar") continue;
    if (w.kind === "tunnelled") d.postWindow(Number(w.id), LOK_WINDOW_CLOSE);
    else if (w.kind === "popup") d.sendDialogEvent(BigInt(w.id), JSON.stringify({ id: w.name, cmd: "close", data: "", type: "popover" }));
    else d.sendDialogEvent(BigInt(w.id), JSON.stringify({ id: "__DIALOG__", cmd: "close", data: "", type: "dialog" }));
    forgetWindow(viewId, w.id);
  }
}

function pump(): void {
  const events = drainCallbacks();
  let sheetChanged: Set<number> | null = null;
  let invalidated: Set<string> | null = null;
  const narrowed = docType === LOK_DOCTYPE.TEXT ? wholeDocumentStandIns(events) : null;
  for (const e of events) {
    if (!FORWARDED.has(e.type)) continue;
    if (e.type === LOK_CALLBACK_INVALIDATE_TILES) {
      const standIns = narrowed?.get(e);
      if (standIns) {
        // The rectangles another view of the same look was told (their tiles are already marked stale).
        if (unpainted.has(e.tag)) continue;
        for (const payload of standIns) {
          const key = `${e.tag} ${payload}`;
          if ((invalidated ??= new Set()).has(key)) continue;
          invalidated.add(key);
          send({ type: "cb", viewId: e.tag, cb: e.type, payload, version: ++pixelVersion });
        }
        continue;
      }
      sharedTiles.invalidate(parseTileInvalidation(e.payload), docType === LOK_DOCTYPE.TEXT);
      if (unpainted.has(e.tag)) continue;
      if (isSheetContentChange(e.payload)) {
        (sheetChanged ??= new Set()).add(e.tag);
        continue;
      }
      // The engine often reports the same rectangle twice in a row (the edit, then its layout).
      const key = `${e.tag} ${e.payload}`;
      if ((invalidated ??= new Set()).has(key)) continue;
      invalidated.add(key);
      send({ type: "cb", viewId: e.tag, cb: e.type, payload: e.payload, version: ++pixelVersion });
      if (docType === LOK_DOCTYPE.SPREADSHEET) {
        // A chart redrawn with new data is reported to the view that edited its cells only; the
        // other views would keep showing the old chart (7.4, and 25.2 still: repaint.browser.test.ts
        // fails without this). In a sheet every view hears of it.
        for (const other of views) {
          const otherKey = `${other} ${e.payload}`;
          if (other === e.tag || unpainted.has(other) || invalidated.has(otherKey)) continue;
          invalidated.add(otherKey);
          send({ type: "cb", viewId: other, cb: e.type, payload: e.payload, version: ++pixelVersion });
        }
      }
      continue;
    }
    const payload = e.type === LOK_CALLBACK_JSDIALOG ? offeredSidebar(e.payload) : e.payload;
    noteDialogCallback(e.tag, e.type, payload);
    send({ type: "cb", viewId: e.tag, cb: e.type, payload });
  }
  // Every view repaints every sheet (formulas on other sheets may depend on the changed cell).
  if (sheetChanged && doc) {
    sharedTiles.clear();
    const parts = doc.getParts();
    for (const viewId of sheetChanged) for (let p = 0; p < parts; p++) send({ type: "cb", viewId, cb: LOK_CALLBACK_INVALIDATE_TILES, payload: `EMPTY, ${p}`, version: ++pixelVersion });
  }
}

/**
 * LibreOffice 25.2 tells every other view of a text document "EMPTY" (the whole document) for each
 * change one view makes, where 7.4 told them the rectangle that changed: each other person's page
 * asked for its whole screen again on every key anyone typed, and the kit repainted it, which
 * doubled a kit's CPU per person and halved the people per core (docs/benchmarks.md, "LibreOffice
 * 7.4 and 25.2"). Views of one look show the same pixels, so what changed for them is what the
 * engine told the view that made the change. In one drained batch, a view's whole-document
 * invalidation is replaced by the rectangles a view of the same look was told in that batch, when
 * there is such a view and it was told no whole-document invalidation itself (a real one, a page
 * setup change, reaches every view, the acting one too, and is kept).
 * Answers, for each invalidation to replace, the payloads that stand in for it.
 */
function wholeDocumentStandIns(events: QueuedCallback[]): Map<QueuedCallback, string[]> | null {
  let rects: Map<string, Map<number, string[]>> | null = null;
  let whole: Set<number> | null = null;
  for (const e of events) {
    if (e.type !== LOK_CALLBACK_INVALIDATE_TILES || !views.has(e.tag)) continue;
    const inv = parseTileInvalidation(e.payload);
    if (!inv) continue;
    if (!inv.rect) (whole ??= new Set()).add(e.tag);
    else {
      const byView = (rects ??= new Map()).get(lookKey(e.tag)) ?? new Map<number, string[]>();
      rects.set(lookKey(e.tag), byView);
      byView.set(e.tag, [...(byView.get(e.tag) ?? []), e.payload]);
    }
  }
  if (!rects || !whole) return null;
  let out: Map<QueuedCallback, string[]> | null = null;
  for (const e of events) {
    if (e.type !== LOK_CALLBACK_INVALIDATE_TILES || !whole.has(e.tag) || parseTileInvalidation(e.payload)?.rect !== null) continue;
    const told = [...(rects.get(lookKey(e.tag)) ?? new Map<number, string[]>())].filter(([view]) => view !== e.tag && !whole!.has(view));
    if (told.length) (out ??= new Map()).set(e, [...new Set(told.flatMap(([, payloads]) => payloads))]);
  }
  return out;
}

/**
 * Committed text of one view that arrives while the ordered requests wait (a command, a copy or
 * a save waiting for the engine to fall idle) is posted as one input when its turn comes: the
 * engine spends 5-7 ms on each input it is given, and typing at automation speed behind such a
 * wait would otherwise be worked through a character at a time. Only consecutive text of one view
 * is joined: any other input (a shortcut, a click) closes the batch, so the order is kept.
 */
class TypedText {
  posted = false;
  constructor(
    readonly viewId: unknown,
    public text: string,
  ) {}
}
let openText: TypedText | null = null;

/** On arrival of an ordered request: committed text joins the open batch of its view, or opens one. */
function joinTyping(req: Record<string, unknown>): void {
  if (req.op !== "textinput" || req.end === false) {
    openText = null;
    return;
  }
  const text = String(req.text ?? "");
  if (openText && !openText.posted && openText.viewId === req.viewId) openText.text += text;
  else openText = new TypedText(req.viewId, text);
  req.batch = openText;
}

/**
 * Small real documents of each family: their import filters (OOXML, ODF) load on first use. The
 * deck is an empty one LibreOffice wrote (warm-up.pptx, its default layouts): LibreOffice 25.2
 * imports every slide layout of a pptx as a master page, and hello.pptx's 24, each with its
 * master's drawing, kept 180 MB in every idle kit after the warm-up (472 MB an idle kit, 296 MB
 * with this one; 7.4: 282 and 267).
 */
const WARM_DOCUMENTS = ["hello.docx", "hello.xlsx", "warm-up.pptx"].map((f) => resolve(import.meta.dir, "../fixtures", f));

/**
 * An idle kit loads, renders and closes a document of each family before it says ready: the first
 * load in a fresh engine pays the modules' and fonts' initialisation (300-700 ms for a one-page
 * docx on 2 cores), and the first load of a file format pays its import filter's (an empty
 * factory document does not load the OOXML filters: ~300 ms of the first docx open), which would
 * otherwise fall on the first user's document open. The warm documents are private copies (the
 * engine writes lock files beside what it opens).
 */
function warmUp(warmCopies: string[]): void {
  if (process.env.SVC_KIT_WARMUP === "0") return;
  const t0 = performance.now();
  const sources = [...["swriter", "scalc", "simpress"].map((f) => `private:factory/${f}`), ...warmCopies.map(fileUrl)];
  for (const url of sources) {
    try {
      const d = office.documentLoad(url, url.startsWith("private:") ? "" : loadOptions);
      if (!d) continue;
      d.initializeForRendering("");
      const tile = new Uint8Array(256 * 256 * 4);
      d.paintTile(tile, 256, 256, 0, 0, 3840, 3840);
      // The tile encoder runs interpreted until the JIT has seen it often: the first tiles of
      // the first document took 10-60 ms each to encode instead of 0.4 ms.
      for (let i = 0; i < 40; i++) encodeTilePng(tile, 256, 256, d.getTileMode());
      d.destroy();
    } catch {
      // warming is best effort
    }
  }
  drainCallbacks();
  log("info", "kit_warmed", { ms: Math.round(performance.now() - t0) });
}

function main(): void {
  // Busy or not, a kit never outlives the editing server that started it.
  dieWithParent();
  // No SIGTERM handler: inside the office's loop (kit-loop.ts) JavaScript signal handlers never
  // run, and the default action ends the process just as well.
  process.on("uncaughtException", (err) => {
    try {
      log("error", "kit_uncaught", { message: String((err as Error)?.message ?? err) });
    } catch {
      // nothing else to do
    }
  });
  const profileDir = resolve(process.env.SVC_KIT_PROFILE_DIR || join(tmpdir(), `svc-kit-profile-${process.pid}`));
  mkdirSync(profileDir, { recursive: true });
  writeProfileConfig(profileDir);
  const tempDir = (kitTempDir = join(profileDir, "tmp"));
  rmSync(tempDir, { recursive: true, force: true });
  mkdirSync(tempDir, { recursive: true });
  // Copied before the confinement: the repository's fixtures are not the kit's to read afterwards.
  const warmCopies = process.env.SVC_KIT_WARMUP === "0" ? [] : WARM_DOCUMENTS.filter((f) => existsSync(f)).map((f) => {
    const copy = join(tempDir, `warm-${f.split("/").pop()}`);
    copyFileSync(f, copy);
    return copy;
  });
  confineEngineProcess(profileDir, log);
  const t0 = performance.now();
  const programDir = engineProgramDir();
  let version = "";
  try {
    office = new LokOffice(fileUrl(profileDir), programDir, { ...engineEnvironment(profileDir, tempDir, { spelling: true }), ...UNIPOLL_ENVIRONMENT });
    const core = coreInfo(office, programDir);
    const unsupported = unsupportedReason(core, missingSlots(office));
    if (unsupported) throw new Error(`svc cannot drive the LibreOffice in ${programDir}: ${unsupported}`);
    version = core.version;
    languageNeedsViewSwitch = office.versionNumber()[0] < 25;
    dialogsAvailable = hasDialogLibraries(programDir);
    loadOptions = kitLoadOptions(dialogsAvailable);
    // The page lists the comments (its panel) and must hear of each one another person adds,
    // changes or removes: LibreOffice reports them only to a client that shows comments itself.
    office.setOptionalFeatures(LOK_FEATURE_NO_TILED_ANNOTATIONS);
  } catch (err) {
    log("error", "kit_start_failed", { message: String((err as Error)?.message ?? err) });
    process.exit(1);
  }
  // Documents can be loaded once the office's loop runs: the warm-up and everything after it
  // happen inside it. Input and saves finish in order (see ORDERED_OPS).
  runKitLoop(office, {
    start() {
      warmUp(warmCopies);
      send({ type: "ready", pid: process.pid, startMs: Math.round(performance.now() - t0), version });
    },
    line: start,
    poll() {
      if (doc) pump();
    },
  });
}

/** One person's keys, clicks and text: their own queue, so that one person's wait is not everyone's. */
const PER_VIEW_OPS = new Set(["key", "mouse", "textinput"]);
const viewChains = new Map<number, Promise<unknown>>();

/**
 * Ordered requests keep their order: a view's input after that view's earlier input and after
 * every request of the shared queue before it; every other ordered request (commands, copies,
 * pastes, saves, leaving) after everything sent before it, every view's input included.
 */
function enqueueOrdered(req: Record<string, unknown>): Promise<unknown> {
  const viewId = req.viewId;
  if (PER_VIEW_OPS.has(String(req.op)) && typeof viewId === "number") {
    const p = Promise.allSettled([viewChains.get(viewId), inputChain]).then(() => handle(req));
    viewChains.set(viewId, p);
    return p;
  }
  inputChain = Promise.allSettled([inputChain, ...viewChains.values()]).then(() => handle(req));
  return inputChain;
}

/** Parses one request line and starts it; its reply goes out when it finishes. */
function start(line: string): void {
  let req: Record<string, unknown>;
  try {
    req = JSON.parse(line);
    if (!req || typeof req !== "object") throw new Error("not an object");
  } catch {
    log("warn", "kit_request_malformed", { bytes: line.length });
    return;
  }
  const id = typeof req.id === "string" ? req.id : "";
  // Input and saves keep their order even when one request waits (an undo or a save settling);
  // tiles and status do not queue behind them.
  if (ORDERED_OPS.has(String(req.op))) joinTyping(req);
  const handled = ORDERED_OPS.has(String(req.op)) ? enqueueOrdered(req) : handle(req);
  handled.then(
    (result) => send({ type: "reply", id, ok: true, result }),
    (err) => send({ type: "reply", id, ok: false, error: String((err as Error)?.message ?? err) }),
  );
}

main();
