// The editing server's WebSockets: the upgrade (a document socket or the admin channel, the
// origin checked), the ClientSession a document socket stands for, and its frames handed to the
// document's broker. createEdsrv (server.ts) serves them next to the HTTP routes (routes.ts).

import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { matchGroup, type AliasGroup } from "../alias-groups";
import type { Config } from "../config";
import { parseWsUri, requestsReadOnly, type EditTarget } from "../editing-uri";
import type { Logger } from "../log";
import { parseHttpUrl } from "../net/http-url";
import type { AdminHub, AdminSocket } from "./admin";
import type { ClientSession, DocumentBroker } from "./documents";
import { isTyping, type InputLagMeter } from "./input-lag";
import { MAX_FRAME_BYTES, parseArgs } from "./view-commands";
import { wopiAuthFrom } from "./wopi-client";

/** `load`: the arguments of a `load` frame given in the socket's URL (our editor page: loading starts at the upgrade). */
type DocWsData = { kind: "doc"; session: ClientSession; wopiSrc: string; load: string | null; broker?: DocumentBroker; closed?: boolean };
type AdminWsData = { kind: "admin"; sock: AdminSocket };
export type WsData = DocWsData | AdminWsData;

export interface EdsrvSocketDeps {
  config: Config;
  log: Logger;
  groups: AliasGroup[];
  admin: AdminHub;
  inputLag: InputLagMeter;
  /** The document's broker, made when there is none open. */
  brokerFor: (wopiSrc: string, group: AliasGroup) => DocumentBroker;
}

/** The document, token and permission of a document WebSocket: the gate's own reader (one parser for both). */
export function parseDocWsUrl(rawUrl: string): EditTarget | null {
  return parseWsUri(rawUrl);
}

function originAllowed(req: Request, config: Config): boolean {
  const origin = req.headers.get("origin");
  const o = origin ? parseHttpUrl(origin) : null;
  if (!o) return false;
  const allowed = new Set<string>();
  const host = req.headers.get("host");
  if (host) allowed.add(host.toLowerCase());
  if (config.online.serverName) allowed.add(config.online.serverName.replace(/^https?:\/\//, "").replace(/\/.*$/, "").toLowerCase());
  return allowed.has(o.host.toLowerCase());
}

let sessionCounter = 0;
const newSessionId = () => (++sessionCounter).toString(16).padStart(3, "0");

/** A `lang=` of a load frame: a language tag, as LibreOffice's (en-US) or a page's (vi, en_GB). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;
const loadLanguage = (args: Record<string, string>): string | undefined => (args.lang && LANGUAGE_TAG.test(args.lang) ? args.lang : undefined);

/** The session of a document socket, before its document is known to open: read-only, nobody yet. */
function newSession(target: EditTarget): ClientSession {
  const p = target.docParams;
  return {
    id: newSessionId(),
    send: () => {},
    close: () => {},
    auth: wopiAuthFrom((k) => p.get(k)),
    requestedReadOnly: requestsReadOnly(target),
    // The page's language, from the `load` arguments its URL carries (else the load frame's default).
    lang: (target.load && loadLanguage(parseArgs(target.load))) || "en-US",
    readOnly: true,
    userId: "",
    userName: "",
    joinedAt: Date.now(),
    lastActivity: Date.now(),
  };
}

/** The upgrade and the socket handlers, for Bun.serve. */
export function createEdsrvSockets(deps: EdsrvSocketDeps) {
  const { config, log, groups, admin, inputLag, brokerFor } = deps;

  function openDocSession(ws: ServerWebSocket<WsData>, data: DocWsData) {
    const s = data.session;
    s.send = (frame) => {
      if (data.closed) return;
      if (typeof frame === "string" && frame.startsWith("invalidatecursor:")) inputLag.answered(s);
      try {
        ws.send(frame);
      } catch {
        // socket gone
      }
    };
    s.close = () => {
      if (data.closed) return;
      data.closed = true;
      try {
        ws.close(1000);
      } catch {
        // already closed
      }
    };
  }

  function onDocMessage(data: DocWsData, text: string) {
    const s = data.session;
    if (text.startsWith("load ") || text === "load") {
      if (data.broker) return;
      const args = parseArgs(text.slice(5));
      s.tileDeltas = args.tiledeltas === "1";
      // The page's language, which its view is made in (a load in the socket's URL gave it at the upgrade).
      s.lang = loadLanguage(args) ?? s.lang;
      if (args.firstscreen === "1") s.firstScreenArea = args.clientvisiblearea;
      const group = matchGroup(groups, data.wopiSrc);
      if (!group) {
        log.warn("ws_refused", { reason: "unauthorized_wopi_host" });
        s.send("error: cmd=internal kind=unauthorized");
        s.close();
        return;
      }
      // A document whose last view left just before this one came closes first; the view then
      // opens it again in a new broker (once), rather than being told the document is unloading.
      const attachTo = (b: DocumentBroker, again: boolean) => {
        data.broker = b;
        void b.addSession(s).then((ok) => {
          if (ok === "closed" && again && !data.closed) return attachTo(brokerFor(data.wopiSrc, group), false);
          if (ok === "closed") {
            s.send("error: cmd=internal kind=docunloading");
            s.close();
          } else if (ok && data.closed) b.removeSession(s);
        });
      };
      attachTo(brokerFor(data.wopiSrc, group), true);
      return;
    }
    if (!data.broker) return;
    if (isTyping(text)) inputLag.typed(s);
    void data.broker.handleMessage(s, text);
  }

  /**
   * A WebSocket upgrade answered: undefined once upgraded, else the refusal. Null when the request
   * asks for no upgrade (it is the HTTP routes').
   */
  function upgrade(req: Request, srv: Server<WsData>): Response | undefined | null {
    if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") return null;
    const url = new URL(req.url);
    if (url.pathname === "/ed/adminws" || url.pathname === "/ed/adminws/") {
      if (!originAllowed(req, config)) return new Response("Forbidden", { status: 403 });
      const sock: AdminSocket = { authed: false, subscriptions: new Set(), send: () => {}, close: () => {} };
      if (srv.upgrade(req, { data: { kind: "admin", sock } })) return undefined;
      return new Response("Upgrade failed", { status: 400 });
    }
    const parsed = parseDocWsUrl(req.url);
    if (parsed) {
      if (!originAllowed(req, config)) {
        log.warn("ws_refused", { reason: "origin" });
        return new Response("Forbidden", { status: 403 });
      }
      if (srv.upgrade(req, { data: { kind: "doc", session: newSession(parsed), wopiSrc: parsed.wopiSrcAsGiven, load: parsed.load } })) return undefined;
      return new Response("Upgrade failed", { status: 400 });
    }
    return new Response("Bad request", { status: 400 });
  }

  const websocket: WebSocketHandler<WsData> = {
    // A larger frame closes that page's socket (1009) before it is read: nothing of it is kept or echoed.
    maxPayloadLength: MAX_FRAME_BYTES,
    idleTimeout: 960,
    open(ws) {
      const data = ws.data;
      if (data.kind === "admin") {
        data.sock.send = (t) => {
          try {
            ws.send(t);
          } catch {
            // gone
          }
        };
        data.sock.close = () => ws.close(1000);
        admin.sockets.add(data.sock);
      } else {
        openDocSession(ws, data);
        // The page's main thread hears "open" only after it has parsed, laid out and run its
        // scripts: with its `load` in the URL the document's view is made meanwhile.
        if (data.load !== null) onDocMessage(data, `load ${data.load}`);
      }
    },
    message(ws, message) {
      const text = typeof message === "string" ? message : Buffer.from(message).toString("utf8");
      const data = ws.data;
      if (data.kind === "admin") admin.handle(data.sock, text);
      else onDocMessage(data, text);
    },
    close(ws) {
      const data = ws.data;
      if (data.kind === "admin") {
        admin.sockets.delete(data.sock);
        return;
      }
      data.closed = true;
      data.broker?.removeSession(data.session);
    },
  };

  return { upgrade, websocket };
}
