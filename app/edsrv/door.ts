// The editing server's door: every frame a page may send once attached (docs/editing-protocol.md,
// "Page → server"), ONE row a frame, as the kit's KIT_OPS is one row an op. A row says:
// - `maxLength`: the most its argument text may hold (everything after the frame's name). Every
//   frame is bounded, so that no single frame can keep the engine busy for everyone (a 5 MB
//   `textinput` kept a kit at 70 % CPU for 12 minutes); past it: `error: cmd=<c> kind=toolarge`;
// - `who`: whether a read-only view may send it (`editors`: refused `kind=readonly`), or whether
//   the handler decides by what the frame asks (`handler`: a find is not a replace);
// - `check`: what is refused before anything reaches the engine, beyond its length: the key door
//   (key-door.ts: a shortcut is checked like the command it runs), the rate of keys per view, the
//   size of decoded fields, a dialog's URL field;
// - `handler`: the kit requests the frame becomes, for the session's view.
// A frame with no row is answered `kind=unknown`. Refusals go to the sending view only, are logged
// by sizes and names, never by content, and never echo what was sent.

import type { ClientSession, SaveOutcome, ViewDocument } from "./session";
import type { Kit } from "./kits";
import { clientZoomInRange, type KitFields } from "../../workers/kit-protocol";
import type { TileRequest } from "./tile-push";
import { EXPORT_FORMATS } from "./exports";
import { decideUno, isDialogCommand, MAX_UNO_ARGUMENT_BYTES } from "./protocol/uno-commands";
import { decideDialogEvent, refusedLinkField } from "./protocol/dialog-events";
import type { WindowPaint } from "./protocol/dialog-frames";
import { decideKey } from "./key-door";
import { fetchPicture } from "./picture-url";
import { sendTiles, sendTilesStale } from "./tile-sending";
import {
  downloadAsFrame,
  errorFrame,
  saveResultFrame,
  serverFrame,
  statusFrame,
  textSelectionContentFrame,
  thumbnailFrame,
  type ClientCommand,
  type SlideImage,
} from "./protocol/frames";

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
/**
 * The most text one `textinput` (or a tunnelled window's `windowtext`) may carry, decoded: typing
 * and an input method's commit are a few characters, a word completion a few words; text at large
 * comes in through `paste`, bounded above.
 */
export const INPUT_LIMITS = { textinput: 16 * 1024, windowtext: 4096 } as const;
/**
 * Keys per view (`key` and `windowkey` frames, a press and a release each): a token bucket that
 * lets a burst of BURST frames through and refills at PER_SECOND. Fast human typing is 10-20
 * keys a second, automation a few hundred; a page sending faster is refused `kind=toofast` until
 * the bucket refills.
 */
export const KEY_RATE = { burst: 1000, perSecond: 500 } as const;

function pasteLimit(cmd: string, mime: string): number {
  if (cmd === "insertgraphic" || mime.startsWith("image/")) return PASTE_LIMITS.picture;
  return mime.startsWith("text/html") ? PASTE_LIMITS.html : PASTE_LIMITS.text;
}

/** Dialog acts that may change the document (the rest change only the dialog's widgets). */
const APPLYING_DIALOG_ACTS = new Set(["click", "response", "activate", "dblclick"]);
/** The buttons that leave a dialog without applying it (LibreOffice's ids for them). */
const LEAVING_BUTTONS = new Set(["cancel", "close", "help"]);
/** LibreOffice's response codes that apply nothing: RET_CANCEL, RET_CLOSE, RET_HELP. */
const LEAVING_RESPONSES = new Set(["0", "7", "10"]);

/**
 * Whether a dialog act may apply what the dialog holds (OK, Insert, Apply, a double click): looking
 * is free, so Cancel, Close, Help and Escape (the page's Cancel) count no edit, store no version and
 * send the host no callback.
 */
export function dialogActMayApply(json: string): boolean {
  const e = JSON.parse(json) as { id?: unknown; cmd?: unknown; data?: unknown };
  if (!APPLYING_DIALOG_ACTS.has(String(e.cmd))) return false;
  if (LEAVING_BUTTONS.has(String(e.id))) return false;
  return !(e.cmd === "response" && LEAVING_RESPONSES.has(String(e.data)));
}

/** Buttons that end a dialog (OK and the leaving ones): LibreOffice's ids for them. */
const ENDING_BUTTONS = new Set(["ok", "cancel", "close"]);

/**
 * Whether a dialog act ends the dialog (OK, Cancel, Close, a response, the popup's own close): the
 * view's input after it is the document's again. LibreOffice tells the window's end a moment
 * later; a person who presses Cancel and types at once must not lose the first letters.
 */
export function dialogActEnds(json: string): boolean {
  const e = JSON.parse(json) as { id?: unknown; cmd?: unknown };
  if (e.cmd === "response" || e.cmd === "close") return true;
  return e.cmd === "click" && ENDING_BUTTONS.has(String(e.id));
}

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

type Args = Record<string, string>;
/** What a check refuses: the error kind sent back, and what is logged (sizes and names only). */
type Refusal = { kind: string; event: string; fields?: Record<string, unknown> };

interface DoorRow {
  /** The longest argument text (after the frame's name) it may carry, in characters. */
  maxLength: number;
  /** Who may send it: anyone, edit views only, or the handler decides by what it asks. */
  who: "anyone" | "editors" | "handler";
  /** What is refused before the handler runs, beyond the length and who. */
  check?: (t: ViewCommandTarget, args: Args, cmd: string) => Refusal | null;
  handler: (t: ViewCommandTarget, args: Args, cmd: string) => Promise<void> | void;
}

/** Per view: the keys it may still send now, and when the bucket was last filled. */
const keyBuckets = new WeakMap<ClientSession, { tokens: number; at: number; refusing: boolean }>();

/** Takes one key from the view's bucket; false when it is empty (logged once per episode). */
function keyRateCheck(t: ViewCommandTarget, _args: Args, cmd: string): Refusal | null {
  const now = performance.now();
  let b = keyBuckets.get(t.session);
  if (!b) keyBuckets.set(t.session, (b = { tokens: KEY_RATE.burst, at: now, refusing: false }));
  b.tokens = Math.min(KEY_RATE.burst, b.tokens + ((now - b.at) / 1000) * KEY_RATE.perSecond);
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    b.refusing = false;
    return null;
  }
  const first = !b.refusing;
  b.refusing = true;
  // Logged once per episode: a flood of refused keys is not a flood of log lines.
  return { kind: "toofast", event: first ? "input_refused" : "", fields: { cmd, reason: "rate", burst: KEY_RATE.burst, per_second: KEY_RATE.perSecond } };
}

function keyCheck(t: ViewCommandTarget, args: Args, cmd: string): Refusal | null {
  const modal = modalCheck(t);
  if (modal) return modal;
  const rate = keyRateCheck(t, args, cmd);
  if (rate) return rate;
  const k = decideKey(t.doc.docType, intArg(args.key, 0), intArg(args.char, 0));
  return k.ok ? null : { kind: "notallowed", event: "key_refused", fields: { key: intArg(args.key, 0), command: k.command || undefined } };
}

/**
 * The document behind a modal window (a dialog open in this view) takes none of the view's keys,
 * text or clicks: what a person types goes to the dialog (`dialogevent`, `windowkey`, `windowtext`),
 * never past it into the document, whatever the page sends. Refused `kind=modal`, not logged
 * (a page racing its dialog's opening is no attack).
 */
function modalCheck(t: ViewCommandTarget): Refusal | null {
  return t.session.modal?.size ? { kind: "modal", event: "" } : null;
}

function textCheck(field: string, limit: number) {
  return (_t: ViewCommandTarget, args: Args, cmd: string): Refusal | null => {
    const length = (args[field] ?? "").length;
    return length > limit ? { kind: "toolarge", event: "input_refused", fields: { cmd, chars: length, limit_chars: limit } } : null;
  };
}

/** A tunnelled window (a dialog LibreOffice paints rather than describes), one open in this view. */
function tunnelled(t: ViewCommandTarget, args: Args): { viewId: number; windowId: string; dialog: string } | null {
  const windowId = /^\d{1,19}$/.test(args.id ?? "") ? args.id! : "";
  const dialog = t.session.dialogs?.get(windowId);
  return dialog === undefined ? null : { viewId: t.session.viewId!, windowId, dialog };
}

/** A tunnelled window's frame: refused `nodialog` for a window this view does not have open. */
function windowRow(maxLength: number, run: (t: ViewCommandTarget, target: { viewId: number; windowId: string; dialog: string }, args: Args) => Promise<void>, check?: DoorRow["check"]): DoorRow {
  return {
    maxLength,
    who: "editors",
    check,
    handler: (t, args, cmd) => {
      const target = tunnelled(t, args);
      if (!target) return t.session.send(errorFrame(cmd, "nodialog"));
      return run(t, target, args);
    },
  };
}

const tileRequest = async ({ kit, session: s }: ViewCommandTarget, args: Args, cmd: string): Promise<void> => {
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
};

const pasteRow: DoorRow = {
  // `paste mimetype= data=<base64>` (the clipboard's content) or `insertgraphic mimetype= data=`
  // (a picture the person uploaded): the kit checks the type; the size is bounded here, before
  // anything is decoded, so that one person's paste cannot stall the document for everyone.
  maxLength: MAX_FRAME_BYTES,
  who: "editors",
  check: (_t, args, cmd) => {
    const limit = pasteLimit(cmd, args.mimetype ?? "");
    const bytes = Math.floor(((args.data ?? "").length * 3) / 4);
    return bytes > limit ? { kind: "toolarge", event: "input_refused", fields: { cmd, mime: (args.mimetype ?? "").slice(0, 64), bytes, limit_bytes: limit } } : null;
  },
  handler: async ({ doc, kit, session: s }, args, cmd) => {
    const sent = kit.request(cmd as "paste" | "insertgraphic", { viewId: s.viewId!, mime: args.mimetype ?? "", data: args.data ?? "" });
    doc.markEdited();
    await sent;
  },
};

const tileRow: DoorRow = { maxLength: 16 * 1024, who: "anyone", handler: tileRequest };

/** THE door: every frame a page may send once attached. A frame not here is answered `kind=unknown`. */
export const DOOR: Record<ClientCommand, DoorRow> = {
  coolclient: { maxLength: 256, who: "anyone", handler: () => {} },
  load: { maxLength: 64 * 1024, who: "anyone", handler: () => {} },
  tile: tileRow,
  tilecombine: tileRow,
  clientvisiblearea: {
    maxLength: 256,
    who: "anyone",
    handler: ({ kit, session: s }, args) => {
      const [x, y, width, height] = [args.x, args.y, args.width, args.height].map((v) => intArg(v, NaN)) as [number, number, number, number];
      s.tiles?.setVisibleArea(x, y, width, height);
      // LibreOffice is told too (the kit's `visiblearea`): it places a new chart beside the
      // selected data inside what the person sees, and pages by its height. Only a change is
      // sent, and nothing waits for it (a scroll is no one's input).
      if (s.viewId === undefined || ![x, y, width, height].every((n) => Number.isFinite(n) && n >= 0 && n <= MAX_TWIPS) || width < 1 || height < 1) return;
      const area = `${x} ${y} ${width} ${height}`;
      if (s.visibleArea === area) return;
      s.visibleArea = area;
      kit.request("visiblearea", { viewId: s.viewId, x, y, width, height }).catch(() => {});
    },
  },
  clientzoom: {
    // `clientzoom tilepixelwidth=256 tilepixelheight=256 tiletwipwidth=T tiletwipheight=T` (Collabora's).
    maxLength: 256,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      const pixels = intArg(args.tilepixelwidth, NaN), twips = intArg(args.tiletwipwidth, NaN);
      if (!clientZoomInRange(pixels, twips)) return s.send(errorFrame("clientzoom", "badzoom"));
      await kit.request("clientzoom", { viewId: s.viewId!, pixels, twips });
    },
  },
  status: {
    maxLength: 256,
    who: "anyone",
    handler: async ({ doc, kit, session: s }) => {
      const st = await kit.request("status", { viewId: s.viewId! });
      s.send(statusFrame(st, s.viewId!, doc.docType));
    },
  },
  setclientpart: {
    maxLength: 256,
    who: "anyone",
    handler: async ({ doc, kit, session: s }, args) => {
      const st = await kit.request("part", { viewId: s.viewId!, part: intArg(args.part, 0) });
      s.send(statusFrame(st, s.viewId!, doc.docType));
    },
  },
  key: {
    maxLength: 128,
    who: "editors",
    check: keyCheck,
    handler: async ({ doc, kit, session: s }, args) => {
      const key = intArg(args.key, 0), ch = intArg(args.char, 0);
      const sent = kit.request("key", { viewId: s.viewId!, type: args.type === "up" ? "up" : "input", char: ch, key });
      if (args.type !== "up" && (ch !== 0 || !NAVIGATION_KEYS.has(key & 0x0fff))) doc.markEdited();
      await sent;
    },
  },
  textinput: {
    // Encoded on the wire: a character is at most 12 characters of percent-encoding.
    maxLength: INPUT_LIMITS.textinput * 12 + 64,
    who: "editors",
    check: (t, args, cmd) => modalCheck(t) ?? textCheck("text", INPUT_LIMITS.textinput)(t, args, cmd),
    handler: async ({ doc, kit, session: s }, args) => {
      const text = args.text ?? "";
      const sent = kit.request("textinput", { viewId: s.viewId!, text, end: args.end !== "0" });
      if (args.end !== "0" && text) doc.markEdited();
      await sent;
    },
  },
  mouse: {
    maxLength: 256,
    who: "editors",
    check: modalCheck,
    handler: async ({ kit, session: s }, args) => {
      await kit.request("mouse", {
        viewId: s.viewId!,
        type: args.type as KitFields<"mouse">["type"], // the kit reads anything else as a button press
        x: intArg(args.x, 0),
        y: intArg(args.y, 0),
        count: intArg(args.count, 1),
        buttons: intArg(args.buttons, 1),
        modifier: intArg(args.modifier, 0),
      });
    },
  },
  uno: {
    // The UNO door (protocol/uno-commands.ts): only the commands our interface sends, with the
    // arguments each may carry; LibreOffice gets the checked arguments, serialised anew.
    maxLength: MAX_UNO_ARGUMENT_BYTES + 256,
    who: "handler",
    handler: async ({ doc, kit, session: s }, args) => {
      const u = decideUno(args._ ?? "");
      if (!u.ok) {
        doc.log.warn("uno_refused", { session: s.id, command: u.command || undefined, reason: u.reason });
        return s.send(errorFrame("uno", u.reason === "malformed" ? "badcommand" : u.reason));
      }
      if (s.readOnly && !u.viewOnly) return s.send(errorFrame("uno", "readonly"));
      const sent = kit.request("uno", { viewId: s.viewId!, command: u.command, args: u.args });
      // Opening a dialog changes nothing yet: its OK does (a dialog event, below).
      if (!u.viewOnly && !isDialogCommand(u.command, u.args)) doc.markEdited();
      await sent;
    },
  },
  dialogevent: {
    // `dialogevent <windowId> <JSON>`: a person's act on a widget of one of LibreOffice's
    // dialogs open in this view (protocol/dialog-events.ts checks the event's form).
    maxLength: 8192 + 32,
    who: "editors",
    handler: async ({ doc, kit, session: s }, args) => {
      const e = decideDialogEvent(args._ ?? "");
      if (!e) return s.send(errorFrame("dialogevent", "badargs"));
      const dialog = s.dialogs?.get(e.windowId);
      if (dialog === undefined) return s.send(errorFrame("dialogevent", "nodialog"));
      // A link typed into a dialog's URL field keeps to the targets `.uno:SetHyperlink` allows.
      const field = refusedLinkField(e.json);
      if (field) {
        doc.log.warn("input_refused", { session: s.id, cmd: "dialogevent", reason: "link", widget: field });
        return s.send(errorFrame("dialogevent", "notallowed"));
      }
      const sent = kit.request("dialogevent", { viewId: s.viewId!, windowId: e.windowId, dialog, json: e.json });
      // The document takes this view's input again from the act that ends the window, not from
      // LibreOffice's word of it (the kit works the act before any input sent after it).
      if (dialogActEnds(e.json)) s.modal?.delete(e.windowId);
      // A button (OK, Insert, Apply) or a double click may apply what the dialog holds.
      if (dialogActMayApply(e.json)) doc.markEdited();
      await sent;
    },
  },
  // A tunnelled window (a dialog LibreOffice paints rather than describes): painted on request,
  // driven by mouse and keys in window pixels. Only a window open in this view.
  paintwindow: windowRow(256, async ({ kit, session: s }, target, args) => {
    const r = await kit.request("paintwindow", { ...target, x: intArg(args.x, 0), y: intArg(args.y, 0), width: intArg(args.width, 0), height: intArg(args.height, 0) });
    s.send(serverFrame("windowpaint", JSON.stringify({ id: target.windowId, x: r.x, y: r.y, width: r.width, height: r.height, png: r.png } satisfies WindowPaint)));
  }),
  windowmouse: windowRow(256, async ({ doc, kit }, target, args) => {
    const type = args.type === "buttonup" || args.type === "move" ? args.type : "buttondown";
    const sent = kit.request("windowmouse", { ...target, type, x: intArg(args.x, 0), y: intArg(args.y, 0), count: intArg(args.count, 1), buttons: intArg(args.buttons, 1), modifier: intArg(args.modifier, 0) });
    if (type === "buttonup") doc.markEdited();
    await sent;
  }),
  windowkey: windowRow(
    128,
    async ({ doc, kit }, target, args) => {
      const sent = kit.request("windowkey", { ...target, type: args.type === "up" ? "up" : "input", char: intArg(args.char, 0), key: intArg(args.key, 0) });
      if (args.type !== "up") doc.markEdited();
      await sent;
    },
    keyRateCheck,
  ),
  windowtext: windowRow(
    INPUT_LIMITS.windowtext * 12 + 64,
    async ({ kit }, target, args) => {
      await kit.request("windowtext", { ...target, text: args.text ?? "" });
    },
    textCheck("text", INPUT_LIMITS.windowtext),
  ),
  windowclose: windowRow(128, async ({ kit }, target) => {
    await kit.request("windowclose", target);
  }),
  commandvalues: {
    // `commandvalues command=.uno:CharFontName` → `commandvalues: <LibreOffice's JSON>` (Collabora's form).
    maxLength: 1024,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      const r = await kit.request("commandvalues", { viewId: s.viewId!, command: args.command ?? "" });
      if (r.json) s.send(serverFrame("commandvalues", r.json));
    },
  },
  thumbnail: {
    // `thumbnail part= width=` → `thumbnail: part=N width= height= <PNG as a data URL>` (the slide panel).
    maxLength: 256,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      const r = await kit.request("thumbnail", { viewId: s.viewId!, part: intArg(args.part, -1), width: intArg(args.width, 0) });
      s.send(thumbnailFrame(intArg(args.part, -1), r.width, r.height, r.png));
    },
  },
  a11ystate: {
    // `a11ystate true|false` (Collabora's form): screen reader support for this view.
    maxLength: 64,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      await kit.request("a11y", { viewId: s.viewId!, enabled: (args._ ?? "").trim() === "true" });
    },
  },
  presentationinfo: {
    // The slideshow: the slides it goes through, then each slide drawn as a show draws it.
    maxLength: 256,
    who: "anyone",
    handler: async ({ kit, session: s }) => {
      const r = await kit.request("presentationinfo", { viewId: s.viewId! });
      s.send(serverFrame("presentationinfo", r.json || "{}"));
    },
  },
  slideimage: {
    maxLength: 256,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      const r = await kit.request("slideimage", { viewId: s.viewId!, part: intArg(args.part, 0), width: intArg(args.width, 1280), height: intArg(args.height, 720) });
      s.send(serverFrame("slideimage", JSON.stringify({ part: r.part, width: r.width, height: r.height, png: r.png } satisfies SlideImage)));
    },
  },
  moveparts: {
    // `moveparts parts=2,3 position=0 [duplicate=1]`: reorder (or copy) slides; answers the new status.
    maxLength: 16 * 1024,
    who: "editors",
    handler: async ({ doc, kit, session: s }, args) => {
      const parts = listArg(args.parts);
      if (!parts.length || parts.length > 1000 || parts.some(Number.isNaN)) return s.send(errorFrame("moveparts", "badparts"));
      const st = await kit.request("moveparts", { viewId: s.viewId!, parts, position: intArg(args.position, -1), duplicate: args.duplicate === "1" });
      doc.markEdited();
      s.send(statusFrame(st, s.viewId!, doc.docType));
    },
  },
  downloadas: {
    // `downloadas name= id=export|print|slideshow format= [options=]` → `downloadas: downloadid= port= id=`.
    maxLength: 4096,
    who: "anyone",
    handler: async ({ doc, session: s }, args) => {
      const format = (args.format ?? "").toLowerCase();
      const purpose = /^[a-z]{1,16}$/.test(args.id ?? "") ? args.id! : "export";
      if (s.info?.DisableExport === true || (purpose === "print" && s.info?.DisablePrint === true)) return s.send(errorFrame("downloadas", "notallowed"));
      if (!(EXPORT_FORMATS[doc.docType] ?? []).includes(format)) return s.send(errorFrame("downloadas", "badformat"));
      const id = await doc.exportAs(format);
      s.send(downloadAsFrame(id, purpose));
    },
  },
  gettextselection: {
    // Copy: the selection as HTML and plain text (Collabora's answer to several types: JSON by type).
    maxLength: 1024,
    who: "anyone",
    handler: async ({ kit, session: s }) => {
      const r = await kit.request("selection", { viewId: s.viewId! });
      if (r.tooLarge) return s.send(errorFrame("gettextselection", "toolarge"));
      s.send(textSelectionContentFrame(r.html ?? "", r.text ?? ""));
    },
  },
  paste: pasteRow,
  insertgraphic: pasteRow,
  insertgraphicurl: {
    // Collabora's Action_InsertGraphic {url}: `insertgraphicurl url=<percent-encoded URL>`. The
    // server fetches the picture under the SSRF rules, bounded as a pasted picture, a picture by
    // its bytes only (picture-url.ts), then inserts it at the cursor as the person's own
    // `insertgraphic`: journalled with its bytes, so a recovery replays it without fetching again.
    // Answered `insertgraphicurl: ok` or `error: cmd=insertgraphicurl kind=notallowed|toolarge|badtype|failed`.
    maxLength: 8192,
    who: "editors",
    check: modalCheck,
    handler: async ({ doc, kit, session: s }, args, cmd) => {
      let url = "";
      try {
        url = decodeURIComponent(args.url ?? "");
      } catch {
        return s.send(errorFrame(cmd, "notallowed"));
      }
      const r = await fetchPicture(url, { allow: doc.fetchAllow, maxBytes: PASTE_LIMITS.picture, log: doc.log });
      if (!r.ok) return s.send(errorFrame(cmd, r.kind));
      if (s.readOnly) return s.send(errorFrame(cmd, "readonly")); // made read-only while fetching
      const sent = kit.request("insertgraphic", { viewId: s.viewId!, mime: r.mime, data: Buffer.from(r.bytes).toString("base64") });
      doc.markEdited();
      await sent;
      s.send(serverFrame("insertgraphicurl", "ok"));
    },
  },
  save: {
    maxLength: 16 * 1024,
    who: "handler",
    handler: async ({ doc, session: s }, args) => {
      if (s.readOnly) {
        if (args.notify === "1") s.send(saveResultFrame({ success: false, result: "readonly", errorMsg: "read-only session", notify: true }));
        return;
      }
      const out = args.dontSaveIfUnmodified === "1" && !doc.modified
        ? ({ success: true, result: "unmodified" } as SaveOutcome)
        : await doc.requestSave({ reason: "user", force: args.force === "1", extendedData: args.extendedData, session: s });
      s.send(saveResultFrame({ ...out, notify: args.notify === "1" }));
    },
  },
  viewlanguage: {
    // Once a page has its view: the menus LibreOffice makes for it in the page's language
    // (`viewlanguage lang=vi`), else the session's.
    maxLength: 256,
    who: "anyone",
    handler: async ({ kit, session: s }, args) => {
      await kit.request("viewlanguage", { viewId: s.viewId!, lang: lokLanguage(args.lang || s.lang) });
    },
  },
  closedocument: {
    // `closedocument`: this view leaves. `closedocument reason=documentconflict` from an editing
    // view of a document in conflict: the storage's version is chosen over the unsaved one (kept
    // in the quarantine folder), and every view opens the document again.
    maxLength: 256,
    who: "anyone",
    handler: async ({ doc, session: s }, args) => {
      if (args.reason !== "documentconflict") return s.close();
      // A choice that came too late (another person chose first, or a save resolved it) does nothing.
      if (doc.conflict && !s.readOnly) await doc.reloadFromStorage(s);
    },
  },
};

/** Runs one frame of a session through the door; a handler's failure throws (the broker answers `error: cmd=<c> kind=failed`). */
export async function passDoor(t: ViewCommandTarget, cmd: string, args: Args): Promise<void> {
  const { doc, session: s } = t;
  const row = Object.hasOwn(DOOR, cmd) ? DOOR[cmd as ClientCommand] : undefined;
  if (!row) return s.send(errorFrame(cmd, "unknown"));
  const length = (args._ ?? "").length;
  if (length > row.maxLength) {
    doc.log.warn("input_refused", { session: s.id, cmd, chars: length, limit_chars: row.maxLength });
    return s.send(errorFrame(cmd, "toolarge"));
  }
  if (row.who === "editors" && s.readOnly) return s.send(errorFrame(cmd, "readonly"));
  const refused = row.check?.(t, args, cmd);
  if (refused) {
    if (refused.event) doc.log.warn(refused.event, { session: s.id, cmd, ...refused.fields });
    return s.send(errorFrame(cmd, refused.kind));
  }
  await row.handler(t, args, cmd);
}

/** A comma-separated list of integers (`tileposx=0,3840`); anything else in it is NaN. */
function listArg(v: string | undefined): number[] {
  return v === undefined || v === "" ? [] : v.split(",").map((x) => (/^-?\d+$/.test(x.trim()) ? Number(x) : NaN));
}

/** The largest coordinate in twips LibreOfficeKit takes (a 32-bit int). */
const MAX_TWIPS = 2 ** 31 - 1;

function intArg(v: string | undefined, dflt: number): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : dflt;
}
