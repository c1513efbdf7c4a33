// The document socket: opened by connect.js in the page's <head> and taken over here; what the
// page sends on it, and reconnecting when the editing server restarted or the document's engine
// is being recovered (its server replays what was typed into a new one): the page comes back to
// its own view.

import { visible } from "./geometry";
import { post } from "./host";
import { clearMessage, loadFailed, showMessage, showState } from "./notices";
import { body, messageEl, pageData, stateEl } from "./page";
import { onMessage } from "./server-frames";
import { edState as S, editor, mark } from "./state";
import { forgetRequests } from "./tile-cache";
import { forgetSentArea } from "./canvas";
import { emit } from "./events";

const early = window.edSocket;
let ws: WebSocket = early.ws;
/** When the person last edited (performance.now()): tiles arriving soon after are decoded at once. */
export let lastInputAt = -1e9;

const RECONNECT_DELAYS = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000]; // about two minutes
let reconnectTries = 0, reconnectTimer: ReturnType<typeof setTimeout> | 0 = 0;

export function send(text: string): void {
  if (ws && ws.readyState === 1) ws.send(text);
}

/** An edit the user made: remembered for the keystroke → updated tile timing. */
export function sendInput(text: string): void {
  if (editor.readOnly) return;
  // Never dropped without a word: while the editor reconnects, input is refused and the person told.
  if (!editor.connected) { showMessage(pageData.textOffline, "offline"); return; }
  lastInputAt = performance.now();
  if (!S.inputAt) S.inputAt = lastInputAt;
  send(text);
}

/** The host ended the session (Action_Close). */
export function closeSocket(): void {
  if (ws) ws.close();
}

function onClose(): void {
  S.closed = true;
  if (S.leaving) return;
  if (!editor.docLoaded) return loadFailed(pageData.textLost);
  if (editor.stayClosed) { stateEl.textContent = pageData.textDisconnected || ""; return; }
  if (editor.connected) emit("disconnected", "");
  editor.connected = S.connected = false;
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
  const v = visible(), tpp = editor.twipsPerPx;
  ws = early.connect(false, [v.x, v.y, v.w, v.h].map((n) => Math.round(n * tpp)).join(";"));
  ws.onmessage = onMessage;
  ws.onclose = onClose;
  S.closed = false;
}

/** The view is back (its status arrived). */
export function backOnline(): void {
  if (editor.connected) return;
  editor.connected = S.connected = true;
  S.reconnects++;
  reconnectTries = 0;
  body.classList.remove("offline");
  clearMessage("reconnecting"); clearMessage("offline");
  stateEl.textContent = "";
  showState();
  emit("reconnected", "");
}

// The frames that came before this script ran are read once the interface script (ui.js) is
// there to hear them too: parser-blocking scripts have all run at DOMContentLoaded.
function takeOver(): void {
  ws.onmessage = onMessage;
  ws.onclose = onClose;
  const frames = early.frames;
  early.frames = [];
  for (let i = 0; i < frames.length; i++) onMessage({ data: frames[i]! });
  if (early.closed || ws.readyState === 3) onClose();
}

export function installSocket(): void {
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
