// The commands a page sends on its document WebSocket once attached (docs/editing-protocol.md,
// "Page → server"), each turned into kit requests for the session's view. What each frame may
// carry, who may send it and what is refused before it reaches the engine is the door's one table
// (door.ts, DOOR); an edit is counted as it is sent.

import { passDoor, type ViewCommandTarget } from "./door";
import { parseCommandArgs, statusFrame } from "./protocol/frames";

export { INPUT_LIMITS, KEY_RATE, lokLanguage, MAX_FRAME_BYTES, PASTE_LIMITS, type ViewCommandTarget } from "./door";
export { sendTiles, sendTilesStale } from "./tile-sending";
export { statusFrame };

/** Runs one command of a session through the door; a failure throws (the broker answers `error: cmd=<c> kind=failed`). */
export function runViewCommand(t: ViewCommandTarget, cmd: string, args: Record<string, string>): Promise<void> {
  return passDoor(t, cmd, args);
}

/** `name=value` pairs of a command (values URI-decoded); `_` is the whole argument text. */
export const parseArgs = parseCommandArgs;
