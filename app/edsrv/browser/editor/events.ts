// The interface's hooks on the editor, typed once: every server frame, decoded, after the editor's
// own handlers ran (frames-in.ts), and the editor's moments (the first status, the first paint, a
// save sent, the connection lost and back, a new zoom).

import type { DocStatus, ServerFrameName } from "../../protocol/frames";
import type { ServerFrameOf } from "../../protocol/server-frames";

/** What each event carries. */
export type EditorEvents = { [K in ServerFrameName]: ServerFrameOf<K> } & {
  firststatus: DocStatus;
  firstpaint: undefined;
  savesent: undefined;
  disconnected: undefined;
  reconnected: undefined;
  /** Twips per CSS pixel, after any zoom (a pinch included). */
  zoom: number;
};
export type EditorEventName = keyof EditorEvents;

const listeners: { [K in EditorEventName]?: ((e: EditorEvents[K]) => void)[] } = {};

export function on<K extends EditorEventName>(name: K, fn: (e: EditorEvents[K]) => void): void {
  ((listeners[name] ??= []) as ((e: EditorEvents[K]) => void)[]).push(fn);
}

export function emit<K extends EditorEventName>(name: K, ...[e]: EditorEvents[K] extends undefined ? [] : [EditorEvents[K]]): void {
  const fns = listeners[name] as ((e: EditorEvents[K]) => void)[] | undefined;
  if (!fns) return;
  for (let i = 0; i < fns.length; i++) {
    try {
      fns[i]!(e as EditorEvents[K]);
    } catch (err) {
      window.edState.errors.push("listener " + name + ": " + err);
    }
  }
}
