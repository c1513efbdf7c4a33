// What the editor page's scripts share through `window`: connect.js's early socket, the editor's
// state and hooks (read by ui.js, the tests and the benchmarks), the interface's state, and the
// PNG inflater that fflate.js (its UMD build) installs.

import type { EditorApi } from "./editor/api";
import type { EditorState } from "./editor/state";
import type { InterfaceState } from "./interface/state";

/** The socket connect.js opened in the page's <head>, and the frames that came before ed.js took it over. */
export interface EarlySocket {
  ws: WebSocket;
  /** A document socket with `load` sent as soon as it opens (see connect.ts). */
  connect(firstScreen: boolean, area?: string): WebSocket;
  frames: (string | ArrayBuffer)[];
  createdAt: number;
  openAt: number;
  closed: boolean;
}

/** The part of fflate's browser build the page uses. */
export interface Fflate {
  unzlibSync(data: Uint8Array, opts?: { out?: Uint8Array }): Uint8Array;
}

declare global {
  interface Window {
    edSocket: EarlySocket;
    edState: EditorState;
    edApi?: EditorApi;
    edUi: InterfaceState;
    fflate?: Fflate;
  }
}
