// The interface's hooks on the editor: every server frame, after the editor handled it, and the
// editor's own moments (firststatus, firstpaint, savesent).

import type { DocStatus } from "../../protocol/frames";

type Listener = (arg: string) => void;
const listeners: Record<string, Listener[]> = {};

/** Every server frame named `name` ("statechanged", "status", …) or editor moment, after the editor handled it. */
export function on(name: "firststatus", fn: (status: DocStatus) => void): void;
export function on(name: string, fn: (arg: string) => void): void;
export function on(name: string, fn: (arg: never) => void): void {
  (listeners[name] = listeners[name] || []).push(fn as Listener);
}

export function emit(name: "firststatus", status: DocStatus): void;
export function emit(name: string, arg: string): void;
export function emit(name: string, arg: string | DocStatus): void {
  const fns = listeners[name];
  if (fns) {
    for (let i = 0; i < fns.length; i++) {
      try {
        fns[i]!(arg as string);
      } catch (err) {
        window.edState.errors.push("listener " + name + ": " + err);
      }
    }
  }
}
