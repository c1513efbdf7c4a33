// Turns zod issues into the spec's `detail.errors = [{path, message}]`, path a JSON Pointer.

import type { z } from "zod";

export interface FieldError {
  path: string;
  message: string;
}

const escapePointer = (seg: PropertyKey) => String(seg).replace(/~/g, "~0").replace(/\//g, "~1");

export function zodErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    let path = issue.path.map(escapePointer).join("/");
    let message = issue.message;
    // An unknown key is reported on the object; point at the key itself, it is what to fix.
    if (issue.code === "unrecognized_keys") {
      const keys = (issue as { keys: string[] }).keys;
      path = [path, escapePointer(keys[0]!)].filter(Boolean).join("/");
      message = `unknown field${keys.length > 1 ? "s" : ""}: ${keys.join(", ")}`;
    }
    return { path: path ? `/${path}` : "", message };
  });
}
