// The server's check of a `dialogevent` (page → server): its form, with zod; LibreOffice and the
// kit get the checked event re-serialised, so they read exactly what was checked (as the UNO door
// does). The frames themselves are in dialog-frames.ts, which the page imports.

import { z } from "zod";
import { DIALOG_EVENT_COMMANDS, DIALOG_EVENT_TYPES, type DialogEvent } from "./dialog-frames";
import { isAllowedLinkTarget } from "./uno-commands";

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


/** Widgets whose text LibreOffice takes as a link's target or a file's name (the Hyperlink dialog's, a picture's link…). */
const LINK_FIELD = /url|uri|link|target|href|path|file/i;

/**
 * The widget of a checked event (decideDialogEvent's JSON) that would give a link a target
 * `.uno:SetHyperlink` refuses (`file:`, `javascript:`, `vnd.sun.star.script:`…): a text field whose
 * id names a URL and whose value starts with a scheme; null for every other event.
 */
export function refusedLinkField(json: string): string | null {
  const e = JSON.parse(json) as { id: string; type: string; data?: string };
  if (!["edit", "combobox", "formattedfield"].includes(e.type) || !LINK_FIELD.test(e.id)) return null;
  const value = (e.data ?? "").replace(/^\d+;/, "").replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && !isAllowedLinkTarget(value) ? e.id.slice(0, 64) : null;
}
