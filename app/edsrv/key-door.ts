// The door for keys (issue 44): a `key` frame is a command too. LibreOffice runs its shortcut keys
// (accelerators) as UNO commands without asking anyone: Ctrl+K opened the Hyperlink dialog (through
// which `file:` and script targets were stored), Ctrl+P printing, Alt+F11 the Basic macros and
// Ctrl+Shift+F5 the Navigator (both stopped the kit). So a key is checked like the command it runs.
//
// Which command a key runs is LibreOffice's own accelerator configuration, read once from the
// engine's installation (`org.openoffice.Office.Accelerators` in share/registry/main.xcd: primary
// and secondary keys, global and per module), so that the table is the engine's, whatever its
// version. A key is let through when every command it is bound to in the document's module or
// globally is one the door allows (protocol/uno-commands.ts, the one list), or when it is bound to
// none. Key codes the page never sends (punctuation and special keys, whose names in the
// configuration we would have to map by hand) are refused outright, and so is any key with a
// modifier when the configuration cannot be read.

import { readFileSync } from "node:fs";
import path from "node:path";
import { decideUno, isDialogCommand } from "./protocol/uno-commands";
import { MOD1, MOD2, SHIFT } from "./protocol/keys";

const MOD3 = 0x8000;
const MODIFIERS = SHIFT | MOD1 | MOD2 | MOD3;

/** The VCL key codes a key may have (awt::Key), by the name the accelerator configuration gives them. */
const KEY_CODES: Record<string, number> = {
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [String(i), 256 + i])),
  ...Object.fromEntries(Array.from({ length: 26 }, (_, i) => [String.fromCharCode(65 + i), 512 + i])),
  ...Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`F${i + 1}`, 768 + i])),
  DOWN: 1024, UP: 1025, LEFT: 1026, RIGHT: 1027, HOME: 1028, END: 1029, PAGEUP: 1030, PAGEDOWN: 1031,
  RETURN: 1280, ESCAPE: 1281, TAB: 1282, BACKSPACE: 1283, SPACE: 1284, INSERT: 1285, DELETE: 1286,
  ADD: 1287, SUBTRACT: 1288, MULTIPLY: 1289, DIVIDE: 1290, POINT: 1291, COMMA: 1292, LESS: 1293, GREATER: 1294, EQUAL: 1295,
};
const KNOWN_CODES = new Set(Object.values(KEY_CODES));
const FUNCTION_KEYS = (code: number) => code >= 768 && code < 768 + 26;

/** LibreOffice's module of each document type (the accelerator configuration's names). */
const MODULES: Record<string, string> = {
  "com.sun.star.text.TextDocument": "text",
  "com.sun.star.sheet.SpreadsheetDocument": "spreadsheet",
  "com.sun.star.presentation.PresentationDocument": "presentation",
  "com.sun.star.drawing.DrawingDocument": "drawing",
};

/** Key (code with modifier bits) → every command it is bound to, globally and per document type. */
export interface KeyTable {
  global: Map<number, string[]>;
  modules: Map<string, Map<number, string[]>>;
  /** Every binding as the configuration names it (the profile's removals: workers/profile.ts). */
  bindings: { set: "PrimaryKeys" | "SecondaryKeys"; module: string | null; name: string; command: string }[];
}

/** `K_SHIFT_MOD1` → 512 + 10 + SHIFT + MOD1; null for a name we do not map. */
export function keyFromName(name: string): number | null {
  const parts = name.split("_");
  let mods = 0;
  while (parts.length > 1 && /^(SHIFT|MOD1|MOD2|MOD3)$/.test(parts[parts.length - 1]!)) {
    const m = parts.pop()!;
    mods |= m === "SHIFT" ? SHIFT : m === "MOD1" ? MOD1 : m === "MOD2" ? MOD2 : MOD3;
  }
  const code = KEY_CODES[parts.join("_")];
  return code === undefined ? null : code | mods;
}

/** Reads the Accelerators component of a main.xcd's text. Unmapped key names are left out (their codes are refused anyway). */
export function parseAccelerators(xcd: string): KeyTable {
  const start = xcd.search(/<oor:component-data[^>]*oor:name="Accelerators"[^>]*oor:package="org.openoffice.Office"/);
  if (start < 0) throw new Error("no Accelerators component");
  const end = xcd.indexOf("</oor:component-data>", start);
  const body = xcd.slice(start, end < 0 ? undefined : end);
  const table: KeyTable = { global: new Map(), modules: new Map(), bindings: [] };
  const stack: string[] = [];
  const re = /<node oor:name="([^"]+)"[^>]*?(\/?)>|<\/node>|<value(?: xml:lang="([^"]*)")?>([^<]*)<\/value>/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (m[0] === "</node>") {
      stack.pop();
      continue;
    }
    if (m[1] !== undefined) {
      if (m[2] !== "/") stack.push(m[1]);
      continue;
    }
    if (m[3] !== undefined && m[3] !== "en-US") continue;
    const command = m[4]!.trim();
    // [PrimaryKeys|SecondaryKeys, Global, key] or [PrimaryKeys|SecondaryKeys, Modules, module, key]
    if (!command || stack.length < 3) continue;
    const into = stack[1] === "Global" ? table.global : stack[1] === "Modules" && MODULES[stack[2]!] ? moduleMap(table, MODULES[stack[2]!]!) : null;
    if (!into || (stack[0] !== "PrimaryKeys" && stack[0] !== "SecondaryKeys")) continue;
    const name = stack[stack.length - 1]!;
    const cmd = command.replace(/&amp;/g, "&");
    table.bindings.push({ set: stack[0], module: stack[1] === "Global" ? null : stack[2]!, name, command: cmd });
    const key = keyFromName(name);
    if (key !== null) into.set(key, [...(into.get(key) ?? []), cmd]);
  }
  return table;
}

function moduleMap(table: KeyTable, module: string): Map<number, string[]> {
  let m = table.modules.get(module);
  if (!m) table.modules.set(module, (m = new Map()));
  return m;
}

let table: KeyTable | null = null;
let loadedFrom = "";

/** Reads the engine's accelerator configuration once (the editing server's start); false when it cannot (keys with modifiers are then refused). */
export function loadKeyTable(programDir: string): boolean {
  const file = path.join(programDir, "..", "share", "registry", "main.xcd");
  if (loadedFrom === file && table) return true;
  try {
    table = parseAccelerators(readFileSync(file, "utf8"));
    loadedFrom = file;
    return true;
  } catch {
    table = null;
    return false;
  }
}

/** The keys bound in the table (tests; the door's log at start). */
export function keyTableSize(): number {
  return table ? table.global.size + [...table.modules.values()].reduce((n, m) => n + m.size, 0) : 0;
}

export type KeyDecision = { ok: true } | { ok: false; /** The first command off the list it would run (logged), or "" for a key code refused outright. */ command: string };

/**
 * Whether a key (VCL code with its modifier bits, as the `key` frame carries it) may reach the
 * engine of a document of `docType` ("text", "spreadsheet"…).
 */
export function decideKey(docType: string, key: number, char: number): KeyDecision {
  if (!Number.isInteger(key) || key < 0 || key > 0xffff) return { ok: false, command: "" };
  const code = key & ~MODIFIERS & 0xffff;
  const mods = key & MODIFIERS;
  // A character with no key code: typing, as long as no modifier makes it a shortcut.
  if (code === 0) return mods === 0 && char > 0 ? { ok: true } : { ok: false, command: "" };
  if (!KNOWN_CODES.has(code) || (mods & MOD3) !== 0) return { ok: false, command: "" };
  if (!table) return (mods & (MOD1 | MOD2)) === 0 && !FUNCTION_KEYS(code) ? { ok: true } : { ok: false, command: "" };
  const bound = [...(table.modules.get(docType)?.get(key) ?? []), ...(table.global.get(key) ?? [])];
  // A dialog opens from the page's own command only (the kit closes any other window: workers/kit/windows.ts).
  for (const command of bound) if (!keyMayRun(command)) return { ok: false, command: decideUno(command).command || command.slice(0, 64) };
  return { ok: true };
}

/** Whether a key bound to `command` may run it: a command on the door's list that opens no dialog. */
export function keyMayRun(command: string): boolean {
  const d = decideUno(command);
  return d.ok && !isDialogCommand(d.command, d.args);
}

/**
 * The bindings of LibreOffice's accelerator configuration that run a command a key may not (the
 * Hyperlink dialog, Print, Macros…), as [configuration set path, key node name]: the kits'
 * profile removes them (workers/profile.ts), a wall behind the door's own check of each key.
 * Empty when the configuration cannot be read.
 */
export function refusedBindings(programDir: string): [string, string][] {
  let t: KeyTable;
  try {
    t = parseAccelerators(readFileSync(path.join(programDir, "..", "share", "registry", "main.xcd"), "utf8"));
  } catch {
    return [];
  }
  const root = "/org.openoffice.Office.Accelerators";
  return t.bindings
    .filter((b) => !keyMayRun(b.command))
    .map((b) => [b.module === null ? `${root}/${b.set}/Global` : `${root}/${b.set}/Modules/org.openoffice.Office.Accelerators:Module['${b.module}']`, b.name]);
}

/** For tests: the table as loaded, or null. */
export function keyTable(): KeyTable | null {
  return table;
}
