// The commands a page sends on its document WebSocket once attached (docs/editing-protocol.md,
// "Page → server"), each turned into kit requests for the session's view. Read-only sessions are
// refused every command that could change the document; an edit is counted as it is sent.

import type { ClientSession, SaveOutcome, ViewDocument } from "./session";
import type { Kit } from "./kits";
import type { KitFields } from "../../workers/kit-protocol";
import type { SentTile, TileRequest } from "./tile-push";
import { EXPORT_FORMATS } from "./exports";
import { decideUno, isDialogCommand } from "./protocol/uno-commands";
import { decideDialogEvent } from "./protocol/dialog-events";
import type { WindowPaint } from "./protocol/dialog-frames";
import {
  downloadAsFrame,
  errorFrame,
  parseCommandArgs,
  saveResultFrame,
  serverFrame,
  statusFrame,
  textSelectionContentFrame,
  thumbnailFrame,
  tileHeader,
  tileStaleFrame,
  type ClientCommand,
  type SlideImage,
} from "./protocol/frames";

export { statusFrame };

/** VCL key codes that only move or select (they do not change the document). */
const NAVIGATION_KEYS = new Set([1024, 1025, 1026, 1027, 1028, 1029, 1030, 1031, 1281]);
/**
 * The most a person may paste or insert at once, decoded. Past these LibreOffice stalls the whole
 * document while it takes the content in: a 10 MB plain-text paste held every co-editor for 23 s
 * and grew the kit to 1 GB. Text is the costliest per byte (every line is a paragraph to lay out).
 */
export const PASTE_LIMITS = { text: 1024 * 1024, html: 4 * 1024 * 1024, picture: 8 * 1024 * 1024 } as const;
/** The largest frame a page may send: a picture at PASTE_LIMITS.picture, as base64, with its command. */
export const MAX_FRAME_BYTES = Math.ceil((PASTE_LIMITS.picture * 4) / 3) + 4096;

function pasteLimit(cmd: string, mime: string): number {
  if (cmd === "insertgraphic" || mime.startsWith("image/")) return PASTE_LIMITS.picture;
  return mime.startsWith("text/html") ? PASTE_LIMITS.html : PASTE_LIMITS.text;
}

/** Dialog acts that may change the document (the rest change only the dialog's widgets). */
const APPLYING_DIALOG_ACTS = new Set(["click", "response", "activate", "dblclick"]);

/** The most tiles one request may ask for (the kit paints them in one go). */
const MAX_TILES_PER_REQUEST = 64;
/** The session's `lang` as LibreOfficeKit takes it: "vi" → "vi-VN", "en" → "en-US", a full tag as it is. */
export function lokLanguage(lang: string): string {
  const l = lang.trim().replace(/_/g, "-");
  if (/^vi$/i.test(l)) return "vi-VN";
  if (/^en$/i.test(l) || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/i.test(l)) return "en-US";
  const [first, ...rest] = l.split("-");
  return [first!.toLowerCase(), ...rest.map((p) => (p.length === 2 ? p.toUpperCase() : p))].join("-");
}

export interface ViewCommandTarget {
  doc: ViewDocument;
  kit: Kit;
  session: ClientSession;
}

/** Runs one command of a session; a failure throws (the broker answers `error: cmd=<c> kind=failed`). */
export async function runViewCommand(t: ViewCommandTarget, cmd: string, args: Record<string, string>): Promise<void> {
  const { doc, kit, session: s } = t;
  const viewId = s.viewId!;
  const refuse = () => s.send(errorFrame(cmd, "readonly"));
  // The wire name may be anything; the cases are checked against the protocol's commands.
  switch (cmd as ClientCommand) {
    case "tile":
    case "tilecombine": {
      // `tile part= width= height= x= y= w= h= [need=] [have=]` or Collabora's combined form
      // `tilecombine part= width= height= tileposx=x1,x2 tileposy=y1,y2 tilewidth= tileheight= [need=n1,n2] [have=w1,w2]`.
      const combined = cmd === "tilecombine";
      const xs = combined ? listArg(args.tileposx) : [intArg(args.x, 0)];
      const ys = combined ? listArg(args.tileposy) : [intArg(args.y, 0)];
      const needs = listArg(args.need), haves = listArg(args.have);
      if (xs.length !== ys.length || xs.length < 1 || xs.length > MAX_TILES_PER_REQUEST || [...xs, ...ys].some(Number.isNaN)) return s.send(errorFrame(cmd, "badtiles"));
      const size = {
        part: intArg(args.part, 0),
        width: intArg(args.width, 256),
        height: intArg(args.height, 256),
        w: intArg(combined ? args.tilewidth : args.w, 3840),
        h: intArg(combined ? args.tileheight : args.h, 3840),
      };
      const tiles: TileRequest[] = xs.map((x, i) => ({ ...size, x, y: ys[i]!, have: haves[i]! > 0 ? haves[i]! : 0 }));
      s.tiles?.noteRequest(tiles[0]!);
      // Asked after an invalidation (`need=` its version): a tile pushed for it answers.
      const covered = await Promise.all(tiles.map((t, i) => (s.tiles && needs[i]! >= 0 ? s.tiles.covered(t, needs[i]!) : false)));
      const rest = tiles.filter((_, i) => !covered[i]);
      if (!rest.length) return;
      // Every tile asked for is answered: a page awaits each one and asks for none of them again
      // until then. If painting failed it is told so, and asks again.
      const id = args.id ?? "";
      await sendTiles(kit, s, rest, id).catch((err: unknown) => {
        sendTilesStale(s, rest, id);
        throw err;
      });
      return;
    }
    case "clientvisiblearea":
      s.tiles?.setVisibleArea(intArg(args.x, NaN), intArg(args.y, NaN), intArg(args.width, NaN), intArg(args.height, NaN));
      return;
    case "status": {
      const st = await kit.request("status", { viewId });
      s.send(statusFrame(st, viewId, doc.docType));
      return;
    }
    case "setclientpart": {
      const st = await kit.request("part", { viewId, part: intArg(args.part, 0) });
      s.send(statusFrame(st, viewId, doc.docType));
      return;
    }
    case "key": {
      if (s.readOnly) return refuse();
      const key = intArg(args.key, 0), ch = intArg(args.char, 0);
      const sent = kit.request("key", { viewId, type: args.type === "up" ? "up" : "input", char: ch, key });
      if (args.type !== "up" && (ch !== 0 || !NAVIGATION_KEYS.has(key & 0x0fff))) doc.markEdited();
      await sent;
      return;
    }
    case "textinput": {
      if (s.readOnly) return refuse();
      const t = args.text ?? "";
      const sent = kit.request("textinput", { viewId, text: t, end: args.end !== "0" });
      if (args.end !== "0" && t) doc.markEdited();
      await sent;
      return;
    }
    case "mouse": {
      if (s.readOnly) return refuse();
      await kit.request("mouse", {
        viewId,
        type: args.type as KitFields<"mouse">["type"], // the kit reads anything else as a button press
        x: intArg(args.x, 0),
        y: intArg(args.y, 0),
        count: intArg(args.count, 1),
        buttons: intArg(args.buttons, 1),
        modifier: intArg(args.modifier, 0),
      });
      return;
    }
    case "uno": {
      // The door (protocol/uno-commands.ts): only the commands our interface sends, with the
      // arguments each may carry; LibreOffice gets the checked arguments, serialised anew.
      const u = decideUno(args._ ?? "");
      if (!u.ok) {
        doc.log.warn("uno_refused", { session: s.id, command: u.command || undefined, reason: u.reason });
        return s.send(errorFrame("uno", u.reason === "malformed" ? "badcommand" : u.reason));
      }
      if (s.readOnly && !u.viewOnly) return refuse();
      const sent = kit.request("uno", { viewId, command: u.command, args: u.args });
      // Opening a dialog changes nothing yet: its OK does (a dialog event, below).
      if (!u.viewOnly && !isDialogCommand(u.command, u.args)) doc.markEdited();
      await sent;
      return;
    }
    case "dialogevent": {
      // `dialogevent <windowId> <JSON>`: a person's act on a widget of one of LibreOffice's
      // dialogs open in this view (protocol/dialog-events.ts checks the event's form).
      if (s.readOnly) return refuse();
      const e = decideDialogEvent(args._ ?? "");
      if (!e) return s.send(errorFrame("dialogevent", "badargs"));
      const dialog = s.dialogs?.get(e.windowId);
      if (dialog === undefined) return s.send(errorFrame("dialogevent", "nodialog"));
      const sent = kit.request("dialogevent", { viewId, windowId: e.windowId, dialog, json: e.json });
      // A button (OK, Insert, Apply) or a double click may apply what the dialog holds.
      if (APPLYING_DIALOG_ACTS.has(JSON.parse(e.json).cmd)) doc.markEdited();
      await sent;
      return;
    }
    case "paintwindow":
    case "windowmouse":
    case "windowkey":
    case "windowtext":
    case "windowclose": {
      // A tunnelled window (a dialog LibreOffice paints rather than describes): painted on
      // request, driven by mouse and keys in window pixels. Only a window open in this view.
      if (s.readOnly) return refuse();
      const windowId = /^\d{1,19}$/.test(args.id ?? "") ? args.id! : "";
      const dialog = s.dialogs?.get(windowId);
      if (dialog === undefined) return s.send(errorFrame(cmd, "nodialog"));
      const target = { viewId, windowId, dialog };
      if (cmd === "paintwindow") {
        const r = await kit.request("paintwindow", { ...target, x: intArg(args.x, 0), y: intArg(args.y, 0), width: intArg(args.width, 0), height: intArg(args.height, 0) });
        s.send(serverFrame("windowpaint", JSON.stringify({ id: windowId, x: r.x, y: r.y, width: r.width, height: r.height, png: r.png } satisfies WindowPaint)));
        return;
      }
      if (cmd === "windowmouse") {
        const type = args.type === "buttonup" || args.type === "move" ? args.type : "buttondown";
        const sent = kit.request("windowmouse", { ...target, type, x: intArg(args.x, 0), y: intArg(args.y, 0), count: intArg(args.count, 1), buttons: intArg(args.buttons, 1), modifier: intArg(args.modifier, 0) });
        if (type === "buttonup") doc.markEdited();
        await sent;
        return;
      }
      if (cmd === "windowkey") {
        const sent = kit.request("windowkey", { ...target, type: args.type === "up" ? "up" : "input", char: intArg(args.char, 0), key: intArg(args.key, 0) });
        if (args.type !== "up") doc.markEdited();
        await sent;
        return;
      }
      if (cmd === "windowtext") {
        await kit.request("windowtext", { ...target, text: (args.text ?? "").slice(0, 4096) });
        return;
      }
      await kit.request("windowclose", target);
      return;
    }
    case "commandvalues": {
      // `commandvalues command=.uno:CharFontName` → `commandvalues: <LibreOffice's JSON>` (Collabora's form).
      const r = await kit.request("commandvalues", { viewId, command: args.command ?? "" });
      if (r.json) s.send(serverFrame("commandvalues", r.json));
      return;
    }
    case "thumbnail": {
      // `thumbnail part= width=` → `thumbnail: part=N width= height= <PNG as a data URL>` (the slide panel).
      const r = await kit.request("thumbnail", { viewId, part: intArg(args.part, -1), width: intArg(args.width, 0) });
      s.send(thumbnailFrame(intArg(args.part, -1), r.width, r.height, r.png));
      return;
    }
    case "a11ystate": {
      // `a11ystate true|false` (Collabora's form): screen reader support for this view.
      await kit.request("a11y", { viewId, enabled: (args._ ?? "").trim() === "true" });
      return;
    }
    case "presentationinfo": {
      // The slideshow: the slides it goes through, then each slide drawn as a show draws it.
      const r = await kit.request("presentationinfo", { viewId });
      s.send(serverFrame("presentationinfo", r.json || "{}"));
      return;
    }
    case "slideimage": {
      const r = await kit.request("slideimage", { viewId, part: intArg(args.part, 0), width: intArg(args.width, 1280), height: intArg(args.height, 720) });
      s.send(serverFrame("slideimage", JSON.stringify({ part: r.part, width: r.width, height: r.height, png: r.png } satisfies SlideImage)));
      return;
    }
    case "moveparts": {
      // `moveparts parts=2,3 position=0 [duplicate=1]`: reorder (or copy) slides; answers the new status.
      if (s.readOnly) return refuse();
      const parts = listArg(args.parts);
      if (!parts.length || parts.length > 1000 || parts.some(Number.isNaN)) return s.send(errorFrame("moveparts", "badparts"));
      const st = await kit.request("moveparts", { viewId, parts, position: intArg(args.position, -1), duplicate: args.duplicate === "1" });
      doc.markEdited();
      s.send(statusFrame(st, viewId, doc.docType));
      return;
    }
    case "downloadas": {
      // `downloadas name= id=export|print|slideshow format= [options=]` → `downloadas: downloadid= port= id=`.
      const format = (args.format ?? "").toLowerCase();
      const purpose = /^[a-z]{1,16}$/.test(args.id ?? "") ? args.id! : "export";
      if (s.info?.DisableExport === true || (purpose === "print" && s.info?.DisablePrint === true)) return s.send(errorFrame("downloadas", "notallowed"));
      if (!(EXPORT_FORMATS[doc.docType] ?? []).includes(format)) return s.send(errorFrame("downloadas", "badformat"));
      const id = await doc.exportAs(format);
      s.send(downloadAsFrame(id, purpose));
      return;
    }
    case "gettextselection": {
      // Copy: the selection as HTML and plain text (Collabora's answer to several types: JSON by type).
      const r = await kit.request("selection", { viewId });
      if (r.tooLarge) return s.send(errorFrame("gettextselection", "toolarge"));
      s.send(textSelectionContentFrame(r.html ?? "", r.text ?? ""));
      return;
    }
    case "paste":
    case "insertgraphic": {
      // `paste mimetype= data=<base64>` (the clipboard's content) or `insertgraphic mimetype= data=`
      // (a picture the person uploaded): the kit checks the type; the size is bounded here, before
      // anything is decoded, so that one person's paste cannot stall the document for everyone.
      if (s.readOnly) return refuse();
      const limit = pasteLimit(cmd, args.mimetype ?? "");
      const bytes = Math.floor(((args.data ?? "").length * 3) / 4);
      if (bytes > limit) {
        doc.log.warn("input_refused", { session: s.id, cmd, mime: (args.mimetype ?? "").slice(0, 64), bytes, limit_bytes: limit });
        return s.send(errorFrame(cmd, "toolarge"));
      }
      const sent = kit.request(cmd as "paste" | "insertgraphic", { viewId, mime: args.mimetype ?? "", data: args.data ?? "" });
      doc.markEdited();
      await sent;
      return;
    }
    case "save": {
      if (s.readOnly) {
        if (args.notify === "1") s.send(saveResultFrame({ success: false, result: "readonly", errorMsg: "read-only session", notify: true }));
        return;
      }
      const out = args.dontSaveIfUnmodified === "1" && !doc.modified
        ? ({ success: true, result: "unmodified" } as SaveOutcome)
        : await doc.requestSave({ reason: "user", force: args.force === "1", extendedData: args.extendedData, session: s });
      s.send(saveResultFrame({ ...out, notify: args.notify === "1" }));
      return;
    }
    case "viewlanguage":
      // Once a page has its view: the menus LibreOffice makes for it in the page's language
      // (`viewlanguage lang=vi`), else the session's.
      await kit.request("viewlanguage", { viewId, lang: lokLanguage(args.lang || s.lang) });
      return;
    case "closedocument":
      s.close();
      return;
    case "coolclient":
    case "load":
      return;
    default:
      s.send(errorFrame(cmd, "unknown"));
  }
}

/**
 * Paints tiles of the session's view (one part and size) and sends each: a binary frame, the header
 * line `tile: id= part= x= y= w= h= width= height= ver= wid=` and the PNG, or no PNG when the page
 * holds that wire id's pixels unchanged (`have=`), or, to a page that applies deltas, `delta=<the
 * wire id held> dy=<first row>` and a PNG of the rows that changed, `width` wide. Answers the pixel version and what each frame
 * carried, or null when the view no longer shows the tiles' part (a request then gets `tilestale:`
 * for each, a push nothing).
 */
export async function sendTiles(kit: Kit, s: ClientSession, tiles: TileRequest[], id: string): Promise<{ version: number; sent: SentTile[] } | null> {
  const { part, width, height, w, h } = tiles[0]!;
  const r = await kit.request("tiles", {
    viewId: s.viewId!,
    part,
    width,
    height,
    w,
    h,
    tiles: tiles.map((t) => [t.x, t.y, t.have]),
    deltas: s.tileDeltas === true,
  });
  if (r.stale || !r.tiles || r.tiles.length !== tiles.length) {
    // Asked for a part the view no longer shows: the client forgets the request.
    if (id !== "push") sendTilesStale(s, tiles, id);
    return null;
  }
  const version = r.version ?? 0;
  const sent = tiles.map((t, i) => {
    const { wid, png, delta, dy } = r.tiles![i]!;
    const head = Buffer.from(tileHeader(t, id, width, height, version, wid, delta !== undefined ? { delta, dy: dy ?? 0 } : undefined));
    s.send(new Uint8Array(png ? Buffer.concat([head, Buffer.from(png, "base64")]) : head));
    s.tiles?.noteSent(t, wid);
    return delta !== undefined ? { wid, picture: true, base: delta } : { wid, picture: png !== undefined };
  });
  return { version, sent };
}

/** Tells the page that tiles it asked for (or was told were coming) will not come: it asks again if it needs them. */
export function sendTilesStale(s: ClientSession, tiles: TileRequest[], id: string): void {
  for (const t of tiles) s.send(tileStaleFrame(t, id));
}

/** `name=value` pairs of a command (values URI-decoded); `_` is the whole argument text. */
export const parseArgs = parseCommandArgs;

/** A comma-separated list of integers (`tileposx=0,3840`); anything else in it is NaN. */
function listArg(v: string | undefined): number[] {
  return v === undefined || v === "" ? [] : v.split(",").map((x) => (/^-?\d+$/.test(x.trim()) ? Number(x) : NaN));
}

function intArg(v: string | undefined, dflt: number): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : dflt;
}
