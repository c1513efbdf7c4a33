// A painted dialog's controls (issue 45 item 6): LibreOffice 25.2 paints some dialogs rather than
// describing them as JSDialog; the kit reads their controls from VCL and tells the dialog's view
// each control's id, text, state, place in the window and which has the keyboard
// (workers/kit/window-widgets.ts). The page mirrors them for a screen reader
// (dialogs.browser.test.ts) and presses a control at its place.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { KitCallback } from "../app/edsrv/kits";
import type { WindowControl, WindowMessage } from "../app/edsrv/protocol/dialog-frames";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";

const { dir, pool } = useKitPool("svc-window-widgets-");
const LOK_CALLBACK_WINDOW = 36;

const find = (n: WindowControl, id: string): WindowControl | undefined => (n.id === id ? n : n.children?.map((c) => find(c, id)).find(Boolean));

test("a painted dialog's controls are told to its view: ids, labels, values, places and the focused one; a click at a control's place presses it", async () => {
  const kit = await pool().acquire();
  try {
    const windows: KitCallback[] = [];
    kit.onCallback = (e) => {
      if (e.cb === LOK_CALLBACK_WINDOW) windows.push(e);
    };
    const doc = path.join(dir, "conditions.xlsx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.xlsx"), doc);
    await kit.request("load", { path: doc });
    const viewId = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    const other = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
    await kit.request("uno", { viewId, command: ".uno:ConditionalFormatDialog" });
    const described = (): (WindowMessage & { viewId: number })[] => windows.flatMap((e) => {
      const m = JSON.parse(e.payload) as WindowMessage;
      return m.action === "widgets" ? [{ ...m, viewId: e.viewId }] : [];
    });
    const first = (await until(() => described()[0], (m) => m !== undefined, "the dialog's controls told"))!;
    const created = windows.map((e) => JSON.parse(e.payload) as WindowMessage).find((m) => m.action === "created")!;
    expect(String(first.id)).toBe(String(created.id));
    // Only the view whose dialog it is.
    expect(described().every((m) => m.viewId === viewId && m.viewId !== other)).toBe(true);
    const tree = first.widgets!;
    expect(find(tree, "ok")).toMatchObject({ type: "pushbutton", text: "~OK" });
    expect(find(tree, "edassign")).toMatchObject({ type: "edit", text: "A1", labelledBy: "ftassign" });
    expect(find(tree, "typeis")?.entries?.length).toBeGreaterThan(10);
    const [x, y, w, h] = find(tree, "add")!.rect!;
    expect(w > 20 && h > 10 && x >= 0 && y >= 0).toBe(true);
    // A click where Add is painted adds a condition, and the keyboard is then on Add.
    const at = { viewId, windowId: String(created.id), x: x + w / 2, y: y + h / 2, count: 1, buttons: 1, modifier: 0 };
    await kit.request("windowmouse", { ...at, type: "buttondown" });
    await kit.request("windowmouse", { ...at, type: "buttonup" });
    const after = await until(() => described().at(-1)!, (m) => JSON.stringify(m.widgets).includes("Condition 2"), "a second condition told");
    expect(after.focused).toBe("add");
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));
