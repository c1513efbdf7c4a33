// The server's check of a `dialogevent` (page → server): its form, with zod; LibreOffice and the
// kit get the checked event re-serialised, so they read exactly what was checked (as the UNO door
// does). The frames themselves are in dialog-frames.ts, which the page imports.

import { z } from "zod";
import { DIALOG_EVENT_COMMANDS, DIALOG_EVENT_TYPES, type DialogEvent } from "./dialog-frames";

export { windowLife, type WindowLife } from "./dialog-frames";

export const dialogEventSchema = z.strictObject({
  id: z.string().max(256),
  cmd: z.enum(DIALOG_EVENT_COMMANDS),
  data: z.union([z.string().max(4096), z.number(), z.boolean()]).transform(String).optional(),
  type: z.enum(DIALOG_EVENT_TYPES),
});
// The schema checks the wire type written once in dialog-frames.ts: this stops compiling if they part.
const schemaMatchesWireType: z.output<typeof dialogEventSchema> extends DialogEvent ? true : never = true;
void schemaMatchesWireType;

/** The window id and the checked event of a `dialogevent` frame's argument text, or null. */
export function decideDialogEvent(argumentText: string): { windowId: string; json: string } | null {
  const m = /^(\d{1,19}) (\{.*\})$/s.exec(argumentText.trim());
  if (!m || m[2]!.length > 8192) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(m[2]!);
  } catch {
    return null;
  }
  const checked = dialogEventSchema.safeParse(parsed);
  if (!checked.success) return null;
  return { windowId: m[1]!, json: JSON.stringify({ ...checked.data, data: checked.data.data ?? "" }) };
}

