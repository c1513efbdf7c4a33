// How the engine's callbacks reach a view's page: their protocol names (Collabora's frames), and
// the order in which they are sent against the tiles pushed for an invalidation.

import type { ClientSession } from "./session";
import type { ServerFrameName } from "./protocol/frames";
import { FORWARDED_CALLBACKS } from "../../workers/kit-protocol";

/**
 * LibreOfficeKit callback types → the frame names of Collabora's protocol that pages understand:
 * the callbacks the kit forwards (workers/kit-protocol.ts, one table for both processes), less
 * those the server acts on itself.
 */
export const CALLBACK_NAMES: Readonly<Record<number, ServerFrameName>> = Object.fromEntries(
  Object.entries(FORWARDED_CALLBACKS).filter((entry): entry is [string, ServerFrameName] => entry[1] !== null),
);

/** The longest a view's callbacks wait for pushed tiles (a kit busy with a save, say). */
const MAX_HOLD_MS = 250;

/**
 * Sends a view's callback frame, after the tiles being pushed for an earlier invalidation: the
 * invalidation and what followed it (the caret) wait until the tiles that show the change are
 * sent, and then go in their order. The page receives the new pixels first, so the invalidation
 * finds them current and asks for nothing, and it is not woken to handle the invalidation and the
 * caret while the kit paints (on 2 cores that doubled the paint's time: 3-6 ms instead of 1-2).
 * Frames wait at most MAX_HOLD_MS, also while invalidations keep coming.
 */
export function deliverAfterPushes(s: ClientSession, frame: string, pushed: Promise<void> | null): void {
  let held = s.held;
  if (pushed && !held) {
    const fresh: NonNullable<ClientSession["held"]> = { frames: [], pushes: 0, timer: setTimeout(() => releaseHeld(s, fresh), MAX_HOLD_MS) };
    held = s.held = fresh;
  }
  if (!held) return s.send(frame);
  held.frames.push(frame);
  if (!pushed) return;
  const batch = held;
  batch.pushes++;
  void pushed.then(() => {
    if (--batch.pushes === 0) releaseHeld(s, batch);
  });
}

function releaseHeld(s: ClientSession, held: NonNullable<ClientSession["held"]>): void {
  if (s.held !== held) return; // released already (by its timer, or its last push)
  clearTimeout(held.timer);
  s.held = undefined;
  for (const f of held.frames) s.send(f);
}
