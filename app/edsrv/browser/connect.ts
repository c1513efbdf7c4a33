// The editor page's first script (inlined in <head>, before the stylesheet): it opens the document
// WebSocket and sends `load` while the rest of the page is still being fetched, parsed and laid out,
// as Collabora's global.js does. The server loads the document and paints the first screen
// meanwhile; ed.js takes the socket over (window.edSocket) and reads the frames that came before it.

import { coolClientCommand, loadArguments, loadCommand } from "../protocol/frames";
import type { EarlySocket } from "./window";

const ds = document.documentElement.dataset;
const q = new URLSearchParams(location.search);
const wopiSrc = q.get("WOPISrc") || "";
const docUrl = (() => {
  try {
    return decodeURIComponent(wopiSrc);
  } catch {
    return wopiSrc;
  }
})();
const lang = q.get("lang") || "en-US";
// Collabora's URL form: /ed/<enc docURL?params>/ws?WOPISrc=<enc>&compat=/ws
let params = "access_token=" + encodeURIComponent(ds.accessToken || "") + "&access_token_ttl=" + encodeURIComponent(ds.accessTokenTtl || "0");
if (ds.noAuthHeader === "1") params += "&no_auth_header=1";
if (q.get("permission") === "readonly") params += "&permission=readonly";

/**
 * A document socket with `load` sent as soon as it opens. `firstScreen`: the server paints the
 * first screen ahead (the first connection); a reconnection (ed.js) asks for what it shows.
 */
function connect(firstScreen: boolean, area?: string): WebSocket {
  // The window's size stands for the document area until the page is laid out (100 %, twips):
  // the server paints that first screen ahead; ed.js sends the exact area once it has it.
  const w = Math.max(1, window.innerWidth) * 15, h = Math.max(1, window.innerHeight) * 15;
  const load = loadArguments(docUrl, lang, firstScreen, area || "0;0;" + w + ";" + h);
  // `load` is also in the URL: the page hears "open" only once it has parsed, laid out and run its
  // scripts, and our server starts the view at the upgrade (the frame then changes nothing).
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ed/" +
    encodeURIComponent(docUrl + "?" + params) + "/ws?WOPISrc=" + encodeURIComponent(wopiSrc) + "&compat=/ws&load=" + encodeURIComponent(load));
  ws.binaryType = "arraybuffer";
  ws.addEventListener("open", () => {
    ws.send(coolClientCommand(Date.now(), performance.now()));
    ws.send(loadCommand(load));
  });
  return ws;
}

const ws = connect(true);
const early: EarlySocket = (window.edSocket = { ws, connect, frames: [], createdAt: performance.now(), openAt: 0, closed: false });
ws.addEventListener("open", () => { early.openAt = performance.now(); });
ws.onmessage = (ev: MessageEvent<string | ArrayBuffer>) => { early.frames.push(ev.data); };
ws.onclose = () => { early.closed = true; };
