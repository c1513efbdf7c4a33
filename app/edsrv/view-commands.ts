// The commands a page sends on its document WebSocket once attached (docs/editing-protocol.md,
// "Page → server"), each turned into kit requests for the session's view. Read-only sessions are
// refused every command that could change the document; an edit is counted as it is sent.

import type { DocumentBroker, ClientSession, SaveOutcome } from "./documents";
import type { Kit } from "./kits";

/** VCL key codes that only move or select (they do not change the document). */
const NAVIGATION_KEYS = new Set([1024, 1025, 1026, 1027, 1028, 1029, 1030, 1031, 1281]);
/** UNO commands a session may send that do not modify the document (allowed for read-only views). */
const READONLY_UNO = new Set([".uno:Copy", ".uno:SelectAll", ".uno:Zoom", ".uno:ZoomIn", ".uno:ZoomOut"]);

export interface ViewCommandTarget {
  doc: Pick<DocumentBroker, "docType" | "modified" | "markEdited" | "requestSave">;
  kit: Kit;
  session: ClientSession;
}

/** Runs one command of a session; a failure throws (the broker answers `error: cmd=<c> kind=failed`). */
export async function runViewCommand(t: ViewCommandTarget, cmd: string, args: Record<string, string>): Promise<void> {
  const { doc, kit, session: s } = t;
  const viewId = s.viewId!;
  const refuse = () => s.send(`error: cmd=${cmd} kind=readonly`);
  switch (cmd) {
    case "tile": {
      const tile = {
        part: intArg(args.part, 0),
        width: intArg(args.width, 256),
        height: intArg(args.height, 256),
        x: intArg(args.x, 0),
        y: intArg(args.y, 0),
        w: intArg(args.w, 3840),
        h: intArg(args.h, 3840),
      };
      const r = await kit.request<{ png?: string; stale?: boolean; version?: number }>("tile", { viewId, ...tile });
      const where = `id=${args.id ?? ""} part=${tile.part} x=${tile.x} y=${tile.y} w=${tile.w} h=${tile.h}`;
      // Asked for a part the view no longer shows: the client forgets the request.
      if (r.stale || !r.png) return s.send(`tilestale: ${where}`);
      const head = Buffer.from(`tile: ${where} width=${tile.width} height=${tile.height} ver=${r.version ?? 0}\n`);
      s.send(new Uint8Array(Buffer.concat([head, Buffer.from(r.png, "base64")])));
      return;
    }
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
        type: args.type,
        x: intArg(args.x, 0),
        y: intArg(args.y, 0),
        count: intArg(args.count, 1),
        buttons: intArg(args.buttons, 1),
        modifier: intArg(args.modifier, 0),
      });
      return;
    }
    case "uno": {
      const command = (args._ ?? "").split(" ")[0] ?? "";
      if (s.readOnly && !READONLY_UNO.has(command)) return refuse();
      const sent = kit.request("uno", { viewId, command, args: "" });
      if (!READONLY_UNO.has(command)) doc.markEdited();
      await sent;
      return;
    }
    case "gettextselection": {
      // Copy: the selection as HTML and plain text (Collabora's answer to several types: JSON by type).
      const r = await kit.request<{ html?: string; text?: string; tooLarge?: boolean }>("selection", { viewId });
      if (r.tooLarge) return s.send("error: cmd=gettextselection kind=toolarge");
      s.send(`textselectioncontent: ${JSON.stringify({ "text/html": r.html ?? "", "text/plain;charset=utf-8": r.text ?? "" })}`);
      return;
    }
    case "paste": {
      if (s.readOnly) return refuse();
      const sent = kit.request("paste", { viewId, mime: args.mimetype ?? "", data: args.data ?? "" });
      doc.markEdited();
      await sent;
      return;
    }
    case "save": {
      if (s.readOnly) {
        if (args.notify === "1") s.send(`saveresult: ${JSON.stringify({ success: false, result: "readonly", errorMsg: "read-only session", notify: true })}`);
        return;
      }
      const out = args.dontSaveIfUnmodified === "1" && !doc.modified
        ? ({ success: true, result: "unmodified" } as SaveOutcome)
        : await doc.requestSave({ reason: "user", force: args.force === "1", extendedData: args.extendedData, session: s });
      s.send(`saveresult: ${JSON.stringify({ ...out, notify: args.notify === "1" })}`);
      return;
    }
    case "closedocument":
      s.close();
      return;
    case "coolclient":
    case "load":
      return;
    default:
      s.send(`error: cmd=${cmd} kind=unknown`);
  }
}

/** The `status:` frame of a view: the kit's status plus the view id and the document type. */
export function statusFrame(st: unknown, viewId: number, docType: string): string {
  return `status: ${JSON.stringify({ ...(st as object), viewid: viewId, docType })}`;
}

/** `name=value` pairs of a frame (values URI-decoded); `_` is the whole argument text. */
export function parseArgs(text: string): Record<string, string> {
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

function intArg(v: string | undefined, dflt: number): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : dflt;
}
