// Validates a svcscript against schemas/svcscript.schema.json (the one source of the language)
// and turns ajv's errors into the spec's `detail.errors = [{path, message}]`: `path` a JSON
// Pointer into the script, `message` a plain English sentence naming what to fix. Every error is
// reported, but the noise of unions is collapsed so that each mistake gives one line:
//  - element unions are discriminated by `type` (ajv `discriminator`), so a heading is checked
//    only as a heading, and an unknown or missing `type` gives one line listing the valid ones;
//  - a "string or object" value (runs, list items, cells) is one union type, so a wrong type is
//    one "must be a string or an object" line;
//  - "exactly one of text / runs" style rules are oneOf of bare `required`s, reported as one line;
//  - a `chart` anywhere says that charts are not available in v1.

import Ajv, { type ErrorObject } from "ajv";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Script } from "./types";

export interface FieldError {
  path: string;
  message: string;
}

export const SCHEMA_PATH = path.resolve(import.meta.dir, "../../schemas/svcscript.schema.json");

type JsonSchema = Record<string, unknown>;

/** The parsed JSON Schema, as served to editors. */
export const svcscriptSchema: JsonSchema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));

export const CHART_MESSAGE =
  "charts are not available in svcscript v1: remove the chart (you can insert a picture of it as an image)";

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** A real calendar date "YYYY-MM-DD", optionally with a wall-clock time "THH:MM[:SS]". */
export function parseScriptDate(s: string): Date | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h = "0", mi = "0", se = "0"] = m.slice(1).map((x) => x ?? "0") as string[];
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(se);
  if (year < 1900 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return undefined;
  return date;
}

let compiled: ReturnType<Ajv["compile"]> | undefined;

function validator() {
  if (compiled) return compiled;
  const ajv = new Ajv({
    allErrors: true,
    discriminator: true,
    verbose: true, // errors carry their schema, parent schema and data: the messages need them
    strict: true,
    strictRequired: false, // "exactly one of" rules are oneOf of bare `required`s
    allowUnionTypes: true,
  });
  ajv.addFormat("svc-date", { type: "string", validate: (s: string) => parseScriptDate(s) !== undefined });
  compiled = ajv.compile(svcscriptSchema);
  return compiled;
}

export type ValidationResult = { ok: true; script: Script } | { ok: false; errors: FieldError[] };

/** Deepest nesting of arrays and objects the language needs is about 20; refuse far deeper input
 * before ajv, whose recursive checks would otherwise run out of stack. */
export const MAX_DEPTH = 64;

/** The pointer of the first value nested deeper than `max`, or undefined. Iterative. */
function tooDeep(input: unknown, max: number): string | undefined {
  const stack: [unknown, string, number][] = [[input, "", 0]];
  while (stack.length) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= max) return at;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, child(at, i), depth + 1]));
    else for (const [k, x] of Object.entries(v)) stack.push([x, child(at, k), depth + 1]);
  }
  return undefined;
}

export function validateScript(input: unknown): ValidationResult {
  const deep = tooDeep(input, MAX_DEPTH);
  if (deep !== undefined) return { ok: false, errors: [{ path: deep, message: `nested too deeply (more than ${MAX_DEPTH} levels of arrays and objects)` }] };
  const validate = validator();
  if (validate(input)) return { ok: true, script: input as Script };
  return { ok: false, errors: readableErrors(validate.errors ?? []) };
}

// ---- turning ajv errors into readable ones -------------------------------------------------------

const escapePointer = (seg: string) => seg.replace(/~/g, "~0").replace(/\//g, "~1");
const child = (pointer: string, key: string | number) => `${pointer}/${escapePointer(String(key))}`;
const quoteList = (names: string[], last = "or") =>
  names.length <= 1 ? names.map((n) => `"${n}"`).join("") : `${names.slice(0, -1).map((n) => `"${n}"`).join(", ")} ${last} "${names.at(-1)}"`;
const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  null: "null",
  object: "an object",
  array: "an array",
};

const PATTERN_MESSAGES: Record<string, string> = {
  "^#?[0-9A-Fa-f]{6}$": 'must be a colour #RRGGBB, e.g. "#1F4E79"',
  "^(https?://|mailto:)\\S+$": "must be an http://, https:// or mailto: address without spaces",
  "^[A-Za-z]{1,3}[1-9][0-9]{0,6}:[A-Za-z]{1,3}[1-9][0-9]{0,6}$": 'must be a range of cells such as "A1:D1"',
  "^[^'\\[\\]:*?/\\\\]([^\\[\\]:*?/\\\\]*[^'\\[\\]:*?/\\\\])?$": "a sheet name must not contain [ ] : * ? / \\ nor start or end with '",
  "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$": 'must be a date "YYYY-MM-DD" or a date and time "YYYY-MM-DDTHH:MM[:SS]"',
};

/** The `type` values a discriminated union accepts, read from its oneOf branches. */
function tagValues(union: JsonSchema): string[] {
  const out: string[] = [];
  for (const branch of (union.oneOf as JsonSchema[]) ?? []) {
    let sch = branch;
    const ref = branch.$ref as string | undefined;
    if (ref?.startsWith("#/definitions/")) sch = (svcscriptSchema.definitions as Record<string, JsonSchema>)[ref.slice(14)]!;
    const tag = (sch.properties as Record<string, JsonSchema> | undefined)?.type;
    if (tag && typeof tag.const === "string") out.push(tag.const);
  }
  return out;
}

/** Property names of an "exactly one of" oneOf: the `required` of its object branches. */
function requiredNames(branches: JsonSchema[]): string[] {
  return branches.flatMap((b) => (Array.isArray(b.required) ? (b.required as string[]) : []));
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

function unknownFieldMessage(name: string, known: string[]): string {
  if (/^charts?$/i.test(name)) return CHART_MESSAGE;
  const lower = name.toLowerCase();
  const close = known.filter((k) => k !== "$schema").map((k) => [k, editDistance(lower, k.toLowerCase())] as const).sort((x, y) => x[1] - y[1])[0];
  if (close && close[1] <= Math.max(1, Math.floor(name.length / 3))) return `unknown field "${clip(name)}": did you mean "${close[0]}"?`;
  const allowed = known.filter((k) => k !== "$schema");
  return `unknown field "${clip(name)}"; allowed fields: ${allowed.join(", ")}`;
}

function messageOf(e: ErrorObject): { path: string; message: string } {
  const p = e.params as Record<string, unknown>;
  const here = e.instancePath;
  switch (e.keyword) {
    case "required": {
      const name = p.missingProperty as string;
      const parent = e.parentSchema as JsonSchema | undefined;
      if (name === "type" && parent?.discriminator) return { path: child(here, name), message: `missing required field "type": one of ${tagValues(parent).join(", ")}` };
      if (name === "type" && here === "") return { path: "/type", message: 'missing required field "type": one of text, spreadsheet, presentation' };
      return { path: child(here, name), message: `missing required field "${name}"` };
    }
    case "additionalProperties": {
      const name = p.additionalProperty as string;
      const known = Object.keys(((e.parentSchema as JsonSchema)?.properties as JsonSchema) ?? {});
      return { path: child(here, name), message: unknownFieldMessage(name, known) };
    }
    case "discriminator": {
      const parent = e.parentSchema as JsonSchema;
      const values = here === "" ? ["text", "spreadsheet", "presentation"] : tagValues(parent);
      const tag = (e.data as Record<string, unknown> | undefined)?.type;
      if (p.error === "mapping" && typeof tag === "string" && /^charts?$/i.test(tag)) return { path: child(here, "type"), message: CHART_MESSAGE };
      if (p.error === "mapping") return { path: child(here, "type"), message: `unknown type "${clip(String(tag))}": one of ${values.join(", ")}` };
      return { path: child(here, "type"), message: `"type" must be a string: one of ${values.join(", ")}` };
    }
    case "type": {
      const types = (Array.isArray(p.type) ? p.type : [p.type]) as string[];
      const names = types.map((t) => TYPE_NAMES[t] ?? t);
      return { path: here, message: `must be ${names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0]}` };
    }
    case "enum":
      return { path: here, message: `must be one of: ${(p.allowedValues as unknown[]).map((v) => String(v)).join(", ")}` };
    case "const":
      return { path: here, message: `must be "${String(p.allowedValue)}"` };
    case "pattern":
      return { path: here, message: PATTERN_MESSAGES[p.pattern as string] ?? `must match the pattern ${String(p.pattern)}` };
    case "format":
      return { path: here, message: "is not a real date or time (check the day of the month and the hour)" };
    case "minimum":
      return { path: here, message: `must be at least ${String(p.limit)}` };
    case "maximum":
      return { path: here, message: `must be at most ${String(p.limit)}` };
    case "exclusiveMinimum":
      return { path: here, message: `must be greater than ${String(p.limit)}` };
    case "exclusiveMaximum":
      return { path: here, message: `must be less than ${String(p.limit)}` };
    case "minItems":
      return { path: here, message: `must have at least ${String(p.limit)} item${p.limit === 1 ? "" : "s"}` };
    case "maxItems":
      return { path: here, message: `must have at most ${String(p.limit)} items` };
    case "minLength":
      return { path: here, message: p.limit === 1 ? "must not be empty" : `must be at least ${String(p.limit)} characters long` };
    case "maxLength":
      return { path: here, message: `must be at most ${String(p.limit)} characters long` };
    case "uniqueItems": {
      const [first, again] = [Math.min(p.i as number, p.j as number), Math.max(p.i as number, p.j as number)];
      return { path: child(here, again), message: `repeats item ${first}: each value may appear only once` };
    }
    case "not": {
      const names = ((e.schema as JsonSchema).required as string[] | undefined) ?? [];
      return { path: here, message: names.length ? `give either ${quoteList(names)}, not both` : "is not allowed here" };
    }
    case "oneOf":
    case "anyOf": {
      const branches = e.schema as JsonSchema[];
      const names = requiredNames(branches);
      const data = e.data as Record<string, unknown> | undefined;
      if (Array.isArray(p.passingSchemas)) {
        const present = names.filter((n) => data && typeof data === "object" && n in data);
        return { path: here, message: `give only one of ${quoteList(names)} (found ${quoteList(present, "and")})` };
      }
      if (names.length) return { path: here, message: `needs ${names.length > 2 ? "one of " : ""}${quoteList(names)}` };
      return { path: here, message: "does not match any of the allowed forms" };
    }
    default:
      return { path: here, message: e.message ?? "is not valid" };
  }
}

export function readableErrors(raw: ErrorObject[]): FieldError[] {
  const drop = new Set<ErrorObject>();
  // Wrong type of the value itself, not of one branch of a union.
  const typeErrorAt = new Set(raw.filter((e) => e.keyword === "type" && !/\/(oneOf|anyOf)\/\d+\/type$/.test(e.schemaPath)).map((e) => e.instancePath));
  const requiredTypeAt = new Set(raw.filter((e) => e.keyword === "required" && (e.params as { missingProperty?: string }).missingProperty === "type").map((e) => e.instancePath));
  const patternAt = new Set(raw.filter((e) => e.keyword === "pattern").map((e) => e.instancePath));

  for (const e of raw) {
    if (e.keyword === "oneOf" || e.keyword === "anyOf") {
      // The branches are flat (a type or a required): their own errors are at the same path.
      for (const b of raw) if (b !== e && b.instancePath === e.instancePath && b.schemaPath.startsWith(`${e.schemaPath}/`)) drop.add(b);
      // A value of the wrong type already has its line from the union's `type`.
      if (typeErrorAt.has(e.instancePath)) drop.add(e);
    }
    // A missing `type` is said once, by `required`, with the list of valid values.
    if (e.keyword === "discriminator" && (e.params as { error?: string }).error === "tag" && requiredTypeAt.has(e.instancePath)) drop.add(e);
    // A date that does not even look like one is said by the pattern.
    if (e.keyword === "format" && patternAt.has(e.instancePath)) drop.add(e);
  }

  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of raw) {
    if (drop.has(e)) continue;
    const fe = messageOf(e);
    const key = `${fe.path}\n${fe.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fe);
  }
  return out;
}
