// svcscript: the declarative JSON language of POST /v1/build (docs/svcscript.md). The schema in
// schemas/svcscript.schema.json is the one source; this module validates against it, counts
// units, writes the native file (docx, xlsx, pptx) in-process, and maps failures to the spec's
// three errors. Converting the native file to the other requested outputs is the caller's job.
//
// Order for a request: prepareScript (units, then schema) → writeNative → convert to outputs.

import { ServiceError } from "../errors";
import { targetsOf, type Family } from "../../workers/formats";
import { writePresentation } from "./presentation";
import { writeSpreadsheet } from "./spreadsheet";
import { writeText } from "./text";
import { ScriptRunError, type Script } from "./types";
import { countUnits } from "./units";
import { validateScript, type FieldError } from "./validate";

export { countUnits } from "./units";
export { validateScript, svcscriptSchema, SCHEMA_PATH, CHART_MESSAGE, type FieldError, type ValidationResult } from "./validate";
export { ScriptRunError } from "./types";
export type * from "./types";

export type NativeFormat = "docx" | "xlsx" | "pptx";

const NATIVE: Record<Family, NativeFormat> = { text: "docx", spreadsheet: "xlsx", presentation: "pptx" };

export function familyOf(script: Script): Family {
  return script.type;
}

export function nativeFormat(script: Script): NativeFormat {
  return NATIVE[script.type];
}

/** The formats the script asks for, in its order (validated: each a target of its family, no repeats). */
export function requestedOutputs(script: Script): string[] {
  return [...script.outputs];
}

/** The formats a script of this family may ask for (what the schema's `outputs` enum lists). */
export function allowedOutputs(family: Family): string[] {
  return targetsOf(family);
}

/** Builds the native file of the script. Throws ScriptRunError (path, message) for run-time failures. */
export async function writeNative(script: Script): Promise<Uint8Array> {
  switch (script.type) {
    case "text":
      return writeText(script);
    case "spreadsheet":
      return writeSpreadsheet(script);
    case "presentation":
      return writePresentation(script);
  }
}

// ---- the spec's errors ---------------------------------------------------------------------------

/** detail.errors holds at most this many entries; detail.error_count has the full count. */
export const MAX_REPORTED_ERRORS = 200;

export function scriptInvalid(errors: FieldError[]): ServiceError {
  const shown = errors.slice(0, MAX_REPORTED_ERRORS);
  const first = errors[0];
  const message =
    errors.length === 1 && first
      ? `Kịch bản svcscript không hợp lệ tại ${first.path || "/"}: xem detail.errors.`
      : `Kịch bản svcscript không hợp lệ: có ${errors.length} lỗi, xem detail.errors (mỗi lỗi có path là JSON Pointer).`;
  return new ServiceError("script_invalid", message, { errors: shown, error_count: errors.length });
}

export function scriptTooLarge(units: number, limit: number): ServiceError {
  return new ServiceError(
    "script_too_large",
    `Kịch bản có ${units} đơn vị, vượt giới hạn ${limit} đơn vị của phiên bản này: hãy chia thành nhiều kịch bản nhỏ hơn.`,
    { units, limit },
  );
}

export function scriptRunFailed(err: ScriptRunError): ServiceError {
  return new ServiceError("script_error", `Kịch bản lỗi khi chạy tại ${err.path || "/"}: ${err.message}.`, { path: err.path, reason: err.message });
}

/**
 * Checks a parsed JSON body before any work: units first (cheap, on the raw input, so an
 * oversized script is refused without validating it), then the schema. Returns the script or
 * throws ServiceError script_too_large / script_invalid. The edition's max_outputs_per_build is
 * the caller's check (requestedOutputs).
 */
export function prepareScript(input: unknown, maxUnits: number): Script {
  const units = countUnits(input);
  if (units > maxUnits) throw scriptTooLarge(units, maxUnits);
  const v = validateScript(input);
  if (!v.ok) throw scriptInvalid(v.errors);
  return v.script;
}

/** writeNative with run-time failures as ServiceError script_error. */
export async function buildNative(script: Script): Promise<Uint8Array> {
  try {
    return await writeNative(script);
  } catch (e) {
    if (e instanceof ScriptRunError) throw scriptRunFailed(e);
    throw e;
  }
}
