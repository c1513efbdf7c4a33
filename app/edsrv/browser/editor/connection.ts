// The document socket's life: opened by connect.js in the page's <head> and taken over here, and
// reconnecting when the editing server restarted or the document's engine is being recovered (its
// server replays what was typed into a new one): the page comes back to its own view. What the
// page sends goes through outbox.ts, which this module points at each new socket.

import { handle } from "./frames-in";
import { emit } from "./events";
import { visible } from "./geometry";
import { post } from "./host";
import { clearMessage, loadFailed, showMessage } from "./notices";
import { useSocket } from "./outbox";
import { body, messageEl, pageData, stateEl } from "./page";
import { edState as S, mark, update } from "./state";
import { forgetRequests } from "./tile-cache";
import { forgetSentArea } from "./canvas";

type FrameListener = (ev: { data: string | ArrayBuffer }) => void;

const early = window.edSocket;
let ws: WebSocket = early.ws;
let onFrame: FrameListener = () => {};

const RECONNECT_DELAYS = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000]; // about two minutes
let reconnectTries = 0, reconnectTimer: ReturnType<typeof setTimeout> | 0 = 0;

function onClose(): void {
  S.closed = true;
  if (S.leaving) return;
  if (!S.loaded) return loadFailed(pageData.textLost);
  if (S.stayClosed) { stateEl.textContent = pageData.textDisconnected || ""; return; }
  if (S.connected) emit("disconnected");
  update({ connected: false });
  body.classList.add("offline");
  if (messageEl.dataset.kind !== "offline") showMessage(pageData.textReconnecting, "reconnecting");
  if (reconnectTries >= RECONNECT_DELAYS.length) {
    showMessage(pageData.textGaveUp, "gaveup");
    stateEl.textContent = pageData.textDisconnected || "";
    post("Session_Closed", { Reason: "Disconnected" });
    return;
  }
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(reconnect, RECONNECT_DELAYS[reconnectTries++]);
}

function reconnect(): void {
  // What the page holds was drawn by the old view: kept on screen, asked again once the view is back.
  forgetRequests();
  forgetSentArea();
  const v = visible(), tpp = S.twipsPerPx;
  ws = early.connect(false, [v.x, v.y, v.w, v.h].map((n) => Math.round(n * tpp)).join(";"));
  useSocket(ws);
  ws.onmessage = onFrame;
  ws.onclose = onClose;
  S.closed = false;
}

/** `close:` reasons → the host's Session_Closed reasons. */
const CLOSE_REASONS: Record<string, string> = { ownertermination: "OwnerTermination", idle: "DocumentIdle", oom: "OOM", docdisconnected: "DocumentDisconnected", replaced: "SessionReplaced" };

/** `close:` the server ends the view: for good, or while it restarts or recovers the engine (the page reconnects). */
function onCloseFrame(why: string): void {
  if (why === "recovering" || why === "shuttingdown") { showMessage(pageData.textReconnecting, "reconnecting"); return; }
  // The storage's version was chosen over unsaved changes (a document conflict): the page opens it
  // again, as Collabora's does (its socket reconnects to a document loaded anew from storage).
  if (why === "documentconflict") { showMessage(pageData.textConflictReloading, "reconnecting"); return; }
  update({ stayClosed: true });
  post("Session_Closed", { Reason: CLOSE_REASONS[why] || why });
  showMessage(why === "replaced" ? pageData.textReplaced : (pageData.textClosed || "") + " (" + why + ")", "closed");
}

/** The view is back (its status arrived). */
function backOnline(): void {
  if (S.connected) return;
  S.reconnects++;
  reconnectTries = 0;
  body.classList.remove("offline");
  clearMessage("reconnecting"); clearMessage("offline");
  stateEl.textContent = "";
  update({ connected: true });
  emit("reconnected");
}

// The frames that came before this script ran are read once the interface script (ui.js) is
// there to hear them too: parser-blocking scripts have all run at DOMContentLoaded.
function takeOver(): void {
  ws.onmessage = onFrame;
  ws.onclose = onClose;
  const frames = early.frames;
  early.frames = [];
  for (let i = 0; i < frames.length; i++) onFrame({ data: frames[i]! });
  if (early.closed || ws.readyState === 3) onClose();
}

/**
 * Takes the socket over, with the function that reads what arrives. Installed after the document's
 * status handler (document-status.ts): what listens for the reconnection (place.ts) compares the
 * new view's status with where the person was, and read the old view's part (a sheet's second tab
 * was not gone back to).
 */
export function installConnection(frameListener: FrameListener): void {
  onFrame = frameListener;
  useSocket(ws);
  handle("status", backOnline);
  handle("close", (f) => { onCloseFrame(f.reason); });
  S.marks.socketCreated = early.createdAt;
  if (early.openAt) S.marks.socket = early.openAt;
  else ws.addEventListener("open", () => { mark("socket"); });
  // Leaving the page ends the view at once: a page kept in the back/forward cache would otherwise hold
  // its socket (and the document, the kit and a counted connection) until the browser evicts it.
  window.addEventListener("pagehide", () => {
    S.leaving = true;
    try { ws.close(1000); } catch { /* closing */ }
  });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) location.reload(); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", takeOver);
  else takeOver();
}
