// What the page sends on the document socket: every command leaves here. A leaf on purpose: the
// parts that send (keys, mouse, tiles, commands) depend on it and on nothing of the connection's
// life (connection.ts), which gives it the socket to use.

import { edState as S } from "./state";

let socket: WebSocket | null = null;
/** When the person last edited (performance.now()): tiles arriving soon after are decoded at once. */
let lastInput = -1e9;

/** The socket to send on (the one connect.js opened, then each reconnection's). */
export function useSocket(ws: WebSocket): void {
  socket = ws;
}

export function send(text: string): void {
  if (socket && socket.readyState === 1) socket.send(text);
}

/** What tells the person their input waits for the connection (notices.ts sets it: the outbox stays a leaf). */
let tellOffline = (): void => {};
export function onOfflineInput(tell: () => void): void {
  tellOffline = tell;
}

/** An edit the person made: refused read-only or offline (with a word), timed for keystroke → tile. */
export function sendInput(text: string): void {
  // Behind a modal window (a dialog, a drop-down) the document takes nothing (the server refuses it too).
  if (S.readOnly || S.modalWindows) return;
  // Never dropped without a word: while the editor reconnects, input is refused and the person told.
  if (!S.connected) { tellOffline(); return; }
  lastInput = performance.now();
  if (!S.inputAt) S.inputAt = lastInput;
  send(text);
}

/** When the person last edited (performance.now()). */
export const lastInputAt = (): number => lastInput;

/** The host ended the session (Action_Close). */
export function closeSocket(): void {
  if (socket) socket.close();
}
