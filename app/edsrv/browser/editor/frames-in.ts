// The server's frames in: each text frame decoded once (protocol/server-frames.ts), counted, handed
// to the editor's handlers in the order they registered, then to the interface's listeners
// (events.ts); binary frames are tiles. Handlers register from their parts' install functions, so
// this module knows none of them: the order they run in is the order ed.ts installs the parts.

import type { ServerFrameName } from "../../protocol/frames";
import { decodeServerFrame, type ServerFrame, type ServerFrameOf } from "../../protocol/server-frames";
import { emit } from "./events";
import { edState as S } from "./state";

const handlers: { [K in ServerFrameName]?: ((f: ServerFrameOf<K>) => void)[] } = {};
let onTileFrame: (bytes: Uint8Array<ArrayBuffer>) => void = () => {};

/** The editor's own handler of a frame, before the interface hears it. */
export function handle<K extends ServerFrameName>(name: K, fn: (f: ServerFrameOf<K>) => void): void {
  ((handlers[name] ??= []) as ((f: ServerFrameOf<K>) => void)[]).push(fn);
}

/** The handler of binary (tile) frames. */
export function handleTiles(fn: (bytes: Uint8Array<ArrayBuffer>) => void): void {
  onTileFrame = fn;
}

export function onServerMessage(ev: { data: string | ArrayBuffer }): void {
  if (typeof ev.data !== "string") return onTileFrame(new Uint8Array(ev.data));
  const decoded = decodeServerFrame(ev.data);
  const name = decoded.frame ? decoded.frame.name : decoded.name;
  S.received[name] = (S.received[name] || 0) + 1;
  if (!decoded.frame) {
    S.errors.push("frame " + name + ": " + decoded.problem);
    return;
  }
  dispatch(decoded.frame);
}

function dispatch<K extends ServerFrameName>(frame: ServerFrameOf<K>): void {
  const name = frame.name as K;
  const fns = handlers[name] as ((f: ServerFrameOf<K>) => void)[] | undefined;
  if (fns) {
    for (let i = 0; i < fns.length; i++) {
      try {
        fns[i]!(frame);
      } catch (err) {
        S.errors.push("handler of " + name + ": " + err);
      }
    }
  }
  (emit as (n: K, f: ServerFrame) => void)(name, frame);
}
