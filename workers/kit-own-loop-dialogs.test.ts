// LibreOffice's dialogs that run a loop of their own (issues 44 and 45): Data > Validity in a
// sheet; Character, Paragraph, Bullets and Edit Style in a deck (25.2). The kit hands a
// window-opening command to the office's own loop (workers/kit/own-loop-dialogs.ts), so such a
// dialog stays open for its person while every other person is served, its OK takes effect, and a
// second one is refused while another person's is open. Before, the kit ran them inside its own
// call: it read nothing until it closed the dialog after two seconds (modal-wall.ts), and Edit
// Style in a deck (which nobody can answer there, now refused) stopped the engine until the
// watchdog ended it.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit, KitCallback } from "../app/edsrv/kits";
import { KIT_REFUSALS } from "./kit-protocol";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";

const { dir, pool } = useKitPool("svc-own-loop-");
const LOK_CALLBACK_JSDIALOG = 46, LOK_CALLBACK_WINDOW = 36;

interface Opened {
  kit: Kit;
  /** The person who opens the dialogs, and a co-editor. */
  alice: number;
  bob: number;
  windows: KitCallback[];
}

async function openWithTwo(kit: Kit, fixture: string): Promise<Opened> {
  const windows: KitCallback[] = [];
  kit.onCallback = (e) => {
    if (e.cb === LOK_CALLBACK_JSDIALOG || e.cb === LOK_CALLBACK_WINDOW) windows.push(e);
  };
  const doc = path.join(dir, `${crypto.randomUUID()}-${fixture}`);
  copyFileSync(path.join(import.meta.dir, "../fixtures", fixture), doc);
  await kit.request("load", { path: doc });
  const alice = (await kit.request("view", { readOnly: false, author: "Alice" })).viewId;
  const bob = (await kit.request("view", { readOnly: false, author: "Bob" })).viewId;
  return { kit, alice, bob, windows };
}

/** The window a view was told of as opened: a JSDialog dialog's description or a painted window's `created`. */
function openedWindow(o: Opened, viewId: number, from: number): { id: string; name: string } | undefined {
  for (const e of o.windows.slice(from)) {
    if (e.viewId !== viewId) continue;
    const m = JSON.parse(e.payload) as Record<string, unknown>;
    if (e.cb === LOK_CALLBACK_JSDIALOG && m.jsontype === "dialog" && typeof m.dialogid === "string" && m.action === undefined) return { id: String(m.id), name: m.dialogid };
    if (e.cb === LOK_CALLBACK_WINDOW && m.action === "created" && m.type === "dialog") return { id: String(m.id), name: String(m.title ?? "") };
  }
  return undefined;
}

const closed = (o: Opened, id: string): boolean =>
  o.windows.some((e) => {
    const m = JSON.parse(e.payload) as Record<string, unknown>;
    return String(m.id) === id && m.action === "close";
  });

/** Bob types a letter: answered while Alice's dialog is open. */
async function bobTypes(o: Opened): Promise<void> {
  await o.kit.request("key", { viewId: o.bob, type: "input", char: 98, key: 0 });
  await o.kit.request("key", { viewId: o.bob, type: "up", char: 98, key: 0 });
  expect(await o.kit.request("ping", {})).toMatchObject({ views: 2, loaded: true });
}

async function opens(o: Opened, viewId: number, command: string): Promise<{ id: string; name: string }> {
  const from = o.windows.length;
  await o.kit.request("uno", { viewId, command });
  // Opened by the time the command is answered, and not closed by the kit.
  const w = openedWindow(o, viewId, from);
  expect(w, `${command} opened its window`).toBeDefined();
  return w!;
}

test("a dialog LibreOffice runs in a loop of its own (Data > Validity) stays open for its person while a co-editor types, and its OK sets the cell's rule", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.xlsx");
    const dialog = await opens(o, o.alice, ".uno:Validation");
    expect(dialog.name).toBe("ValidationDialog");
    await bobTypes(o);
    expect(closed(o, dialog.id)).toBe(false);
    const event = (e: Record<string, string>) => kit.request("dialogevent", { viewId: o.alice, windowId: dialog.id, dialog: dialog.name, json: JSON.stringify(e) });
    await event({ id: "allow", cmd: "selected", data: "1;Integer", type: "combobox" });
    await event({ id: "data", cmd: "selected", data: "6;valid range", type: "combobox" });
    await event({ id: "min", cmd: "change", data: "1", type: "edit" });
    await event({ id: "max", cmd: "change", data: "10", type: "edit" });
    await event({ id: "ok", cmd: "click", data: "", type: "responsebutton" });
    await until(() => closed(o, dialog.id), Boolean, "the Validity dialog closed by its OK");
    const out = path.join(dir, "validity-out.xlsx");
    await kit.request("save", { path: out, format: "xlsx" });
    const sheet = Bun.spawnSync(["unzip", "-p", out, "xl/worksheets/sheet1.xml"]).stdout.toString();
    expect(sheet).toMatch(/<dataValidation [^>]*type="whole"/);
    expect(sheet).toContain("<formula1>1</formula1>");
    expect(sheet).toContain("<formula2>10</formula2>");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("in a deck, Character, Paragraph and Bullets open and stay open while a co-editor types, and close when their person cancels; Edit Style, which nobody could answer there, is refused", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.pptx");
    for (const command of [".uno:FontDialog", ".uno:ParagraphDialog", ".uno:OutlineBullet"]) {
      const dialog = await opens(o, o.alice, command);
      await bobTypes(o);
      expect(closed(o, dialog.id), `${command}'s window still open`).toBe(false);
      await kit.request("closedialogs", { viewId: o.alice });
      await until(() => closed(o, dialog.id), Boolean, `${command}'s window closed by its person`);
    }
    await expect(kit.request("uno", { viewId: o.alice, command: ".uno:EditStyle" })).rejects.toThrow(KIT_REFUSALS.notallowed);
    await bobTypes(o);
  } finally {
    pool().release(kit);
  }
}, scaled(90_000));

test("a second dialog that runs its own loop is refused while another person's is open (dialogbusy), and opens once that one is closed", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.pptx");
    const first = await opens(o, o.alice, ".uno:FontDialog");
    await expect(kit.request("uno", { viewId: o.bob, command: ".uno:ParagraphDialog" })).rejects.toThrow(KIT_REFUSALS.dialogbusy);
    // A dialog that runs no loop of its own is not refused.
    const area = await opens(o, o.bob, ".uno:FormatArea");
    await kit.request("closedialogs", { viewId: o.bob });
    await until(() => closed(o, area.id), Boolean, "Bob's Area dialog closed");
    await kit.request("closedialogs", { viewId: o.alice });
    await until(() => closed(o, first.id), Boolean, "Alice's Character dialog closed");
    await opens(o, o.bob, ".uno:ParagraphDialog");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a person who leaves with such a dialog open takes it with them: the engine goes on serving the others", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.xlsx");
    const dialog = await opens(o, o.alice, ".uno:Validation");
    await kit.request("unview", { viewId: o.alice });
    expect(closed(o, dialog.id)).toBe(true);
    await kit.request("key", { viewId: o.bob, type: "input", char: 98, key: 0 });
    expect(await kit.request("ping", {})).toMatchObject({ views: 1, loaded: true });
    // And Bob may open it in turn.
    await opens(o, o.bob, ".uno:Validation");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

/** A person's act on a widget of a described dialog. */
const act = (o: Opened, viewId: number, dialog: { id: string; name: string }, e: { id: string; cmd: string; data?: string; type: string }) =>
  o.kit.request("dialogevent", { viewId, windowId: dialog.id, dialog: dialog.name, json: JSON.stringify({ data: "", ...e }) });

/** The window `viewId` was told of after frame `from` other than `except`. */
async function nextWindow(o: Opened, viewId: number, from: number, except: string): Promise<{ id: string; name: string }> {
  return (await until(() => {
    for (let i = from; i < o.windows.length; i++) {
      const w = openedWindow(o, viewId, i);
      if (w && w.id !== except) return w;
    }
    return undefined;
  }, (w) => w !== undefined, "a second window opened"))!;
}

test("a dialog that a dialog's button opens in a loop of its own (Font Features from Character) stays open while a co-editor types; its Cancel goes back to Character, whose OK still applies", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.docx");
    const character = await opens(o, o.alice, ".uno:FontDialog");
    const from = o.windows.length;
    await act(o, o.alice, character, { id: "btnWestFeatures", cmd: "click", type: "pushbutton" });
    const features = await nextWindow(o, o.alice, from, character.id);
    expect(features.name).toBe("FontFeaturesDialog");
    await bobTypes(o);
    expect(closed(o, features.id)).toBe(false);
    await act(o, o.alice, features, { id: "cancel", cmd: "click", type: "responsebutton" });
    await until(() => closed(o, features.id), Boolean, "Font Features closed by its Cancel");
    expect(closed(o, character.id)).toBe(false);
    await act(o, o.alice, character, { id: "ok", cmd: "click", type: "responsebutton" });
    await until(() => closed(o, character.id), Boolean, "Character closed by its OK");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a painted dialog a dialog's button opens in a loop of its own (Find & Replace's Attributes) closes with its close box, and the engine serves the co-editor meanwhile (it used to hold everyone until the watchdog ended the engine)", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.docx");
    const find = await opens(o, o.alice, ".uno:SearchDialog");
    const from = o.windows.length;
    await act(o, o.alice, find, { id: "attributes", cmd: "click", type: "pushbutton" });
    const attributes = await nextWindow(o, o.alice, from, find.id);
    await bobTypes(o);
    await kit.request("windowclose", { viewId: o.alice, windowId: attributes.id });
    await until(() => closed(o, attributes.id), Boolean, "Attributes closed by its close box");
    await bobTypes(o);
    // Alice leaves with Find & Replace open: Bob goes on.
    await kit.request("unview", { viewId: o.alice });
    await kit.request("key", { viewId: o.bob, type: "input", char: 98, key: 0 });
    expect(await kit.request("ping", {})).toMatchObject({ views: 1, loaded: true });
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("loops inside loops: a person who leaves while a co-editor's sub-dialog runs inside their Validity dialog's loop, and the co-editor who closes theirs, cost the others nothing", async () => {
  const kit = await pool().acquire();
  try {
    const o = await openWithTwo(kit, "hello.xlsx");
    const carol = (await kit.request("view", { readOnly: false, author: "Carol" })).viewId;
    await opens(o, o.alice, ".uno:Validation");
    // Bob's Format Cells, then its Font Features: a loop of its own, inside Alice's.
    const formatCells = await opens(o, o.bob, ".uno:FormatCellDialog");
    const from = o.windows.length;
    await act(o, o.bob, formatCells, { id: "btnWestFeatures", cmd: "click", type: "pushbutton" });
    const features = await nextWindow(o, o.bob, from, formatCells.id);
    expect(features.name).toBe("FontFeaturesDialog");
    await kit.request("unview", { viewId: o.alice });
    await kit.request("closedialogs", { viewId: o.bob });
    await until(() => closed(o, formatCells.id) && closed(o, features.id), Boolean, "Bob's two dialogs closed");
    await kit.request("key", { viewId: carol, type: "input", char: 98, key: 0 });
    expect(await kit.request("ping", {})).toMatchObject({ views: 2, loaded: true });
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));
