// LibreOffice's dialogs in a kit (issue 33): a dialog command opens the dialog as JSDialog JSON
// for the view that ran it, dialog events change its widgets, its OK applies the change to the
// document; a dialog is its view's own; a view that leaves with a dialog open closes it.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit, KitCallback } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";

const { dir, pool } = useKitPool("svc-dialogs-");
const LOK_CALLBACK_JSDIALOG = 46, LOK_CALLBACK_WINDOW = 36;

/** A document open in a kit with one view, every JSDialog callback of the kit kept. */
async function openLetter(kit: Kit, name: string): Promise<{ viewId: number; dialogs: KitCallback[] }> {
  const dialogs: KitCallback[] = [];
  kit.onCallback = (e) => {
    if (e.cb === LOK_CALLBACK_JSDIALOG || e.cb === LOK_CALLBACK_WINDOW) dialogs.push(e);
  };
  const doc = path.join(dir, name);
  copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
  await kit.request("load", { path: doc });
  const viewId = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
  return { viewId, dialogs };
}

/** The whole description of the dialog named `dialogid`, once the engine has sent it. */
async function dialogShown(dialogs: KitCallback[], dialogid: string): Promise<{ id: number; viewId: number }> {
  const e = await until(() => dialogs.find((d) => d.payload.includes(`"dialogid": "${dialogid}"`)), (d) => d !== undefined, `${dialogid} described`);
  return { id: JSON.parse(e!.payload).id, viewId: e!.viewId };
}

function documentXml(file: string): string {
  return Bun.spawnSync(["unzip", "-p", file, "word/document.xml"]).stdout.toString();
}

test("a paragraph's indents, line spacing and spacing option set in Format > Paragraph reach the stored file when the dialog's OK is pressed", async () => {
  const kit = await pool().acquire();
  try {
    const { viewId, dialogs } = await openLetter(kit, "paragraph.docx");
    await kit.request("uno", { viewId, command: ".uno:ParagraphDialog" });
    const dialog = await dialogShown(dialogs, "ParagraphPropertiesDialog");
    expect(dialog.viewId).toBe(viewId);
    const event = (o: Record<string, string>) => kit.request("dialogevent", { viewId, windowId: String(dialog.id), dialog: "ParagraphPropertiesDialog", json: JSON.stringify(o) });
    await event({ id: "spinED_LEFTINDENT", cmd: "value", data: "1", type: "spinfield" });
    await event({ id: "checkCB_CONTEXTUALSPACING", cmd: "change", data: "true", type: "checkbox" });
    await event({ id: "comboLB_LINEDIST", cmd: "selected", data: "3;Double", type: "combobox" });
    await event({ id: "ok", cmd: "click", data: "", type: "responsebutton" });
    expect(dialogs.some((d) => d.payload.includes('"action": "close"') && d.payload.includes(`"id": ${dialog.id}`))).toBe(true);
    const out = path.join(dir, "paragraph-out.docx");
    await kit.request("save", { path: out, format: "docx" });
    const xml = documentXml(out);
    expect(xml).toContain('w:left="1440"');
    expect(xml).toContain('w:line="480"');
    expect(xml).toContain("<w:contextualSpacing/>");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a dialog event is refused for a window the view does not have open (another person's dialog), and found by its name in a replay", async () => {
  const kit = await pool().acquire();
  try {
    const { viewId: a, dialogs } = await openLetter(kit, "two-views.docx");
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
    await kit.request("uno", { viewId: a, command: ".uno:ParagraphDialog" });
    const dialog = await dialogShown(dialogs, "ParagraphPropertiesDialog");
    const json = JSON.stringify({ id: "spinED_LEFTINDENT", cmd: "value", data: "2", type: "spinfield" });
    await expect(kit.request("dialogevent", { viewId: b, windowId: String(dialog.id), dialog: "", json })).rejects.toThrow(/no such dialog/);
    // A replay in a new engine knows the dialog's name, not its window id.
    await kit.request("dialogevent", { viewId: a, windowId: "999999", dialog: "ParagraphPropertiesDialog", json });
    await kit.request("dialogevent", { viewId: a, windowId: "999999", dialog: "ParagraphPropertiesDialog", json: JSON.stringify({ id: "ok", cmd: "click", data: "", type: "responsebutton" }) });
    const out = path.join(dir, "two-views-out.docx");
    await kit.request("save", { path: out, format: "docx" });
    expect(documentXml(out)).toContain('w:left="2880"');
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a view that leaves with a dialog open closes it, and the document goes on for the others", async () => {
  const kit = await pool().acquire();
  try {
    const { viewId: a, dialogs } = await openLetter(kit, "leaving.docx");
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
    await kit.request("uno", { viewId: b, command: ".uno:FontDialog" });
    const dialog = await dialogShown(dialogs, "CharacterPropertiesDialog");
    await kit.request("unview", { viewId: b });
    expect(dialogs.some((d) => d.payload.includes('"action": "close"') && d.payload.includes(`"id": ${dialog.id}`))).toBe(true);
    await kit.request("textinput", { viewId: a, text: "still here " });
    const out = path.join(dir, "leaving-out.docx");
    await kit.request("save", { path: out, format: "docx" });
    expect(documentXml(out)).toContain("still here");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a control LibreOffice hid is refused: Area > Image's Add / Import (a file dialog) cannot be pressed through a crafted event", async () => {
  const kit = await pool().acquire();
  try {
    const { viewId, dialogs } = await openLetter(kit, "hidden.docx");
    await kit.request("uno", { viewId, command: ".uno:ParagraphDialog" });
    const dialog = await dialogShown(dialogs, "ParagraphPropertiesDialog");
    const event = (o: Record<string, string>) => kit.request("dialogevent", { viewId, windowId: String(dialog.id), dialog: "ParagraphPropertiesDialog", json: JSON.stringify(o) });
    await event({ id: "tabcontrol", cmd: "selecttab", data: "7", type: "tabcontrol" });
    await event({ id: "btnbitmap", cmd: "toggle", data: "", type: "pushbutton" });
    const hid = await until(() => dialogs.some((d) => d.payload.includes('"control_id": "BTN_IMPORT", "action_type": "hide"')), (h) => h, "LibreOffice hiding Add / Import");
    expect(hid).toBe(true);
    const seen = dialogs.length;
    await expect(event({ id: "BTN_IMPORT", cmd: "click", data: "", type: "pushbutton" })).rejects.toThrow(/not shown/);
    // No file dialog came up (it would be a window callback titled "Open").
    expect(dialogs.slice(seen).some((d) => d.payload.includes("Add Image"))).toBe(false);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));
