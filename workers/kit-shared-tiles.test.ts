// Capacity (issue 24 item 2): views of one document share painted tiles until the engine changes
// them (workers/kit-main.ts sharedTiles). What must hold: a view never shows another view's own
// look (formatting marks turned on in one view only), and every view sees an edit made in another.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";

const { dir, pool } = useKitPool("svc-shared-tiles-");

/** The first tile of the page (256 px for 3840 twips, the editor's zoom), as a PNG from scratch (no copy held). */
async function firstTile(kit: Kit, viewId: number): Promise<string> {
  const r = await kit.request<{ tiles: { wid: number; png?: string }[] }>("tiles", { viewId, part: 0, width: 256, height: 256, w: 3840, h: 3840, tiles: [[0, 0, 0]] });
  return r.tiles[0]!.png!;
}

test("views share painted tiles but never another view's own look: formatting marks turned on in one view are not shown in the other", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "marks.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "B" })).viewId;
    const plain = await firstTile(kit, a);
    expect(await firstTile(kit, b)).toBe(plain);
    await kit.request("uno", { viewId: a, command: ".uno:ControlCodes" });
    // A's tile now shows the marks, painted after A's command; B's is still the plain one.
    const withMarks = await firstTile(kit, a);
    expect(withMarks).not.toBe(plain);
    expect(await firstTile(kit, b)).toBe(plain);
    // A tile nobody has painted yet, asked for by B while A (the marks) is the engine's current
    // view: a text document's tiles are painted through the current view when it looks the same
    // (no view switch), never when it does not.
    const larger = async (viewId: number) =>
      (await kit.request<{ tiles: { png?: string }[] }>("tiles", { viewId, part: 0, width: 512, height: 512, w: 7680, h: 7680, tiles: [[0, 0, 0]] })).tiles[0]!.png!;
    const largerWithMarks = await larger(a);
    expect(await larger(b)).not.toBe(largerWithMarks);
  } finally {
    pool().release(kit);
  }
}, 60_000);

test("an edit in one view reaches the tiles every other view is given, shared or not", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "edit.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "B" })).viewId;
    const before = await firstTile(kit, b);
    expect(await firstTile(kit, a)).toBe(before);
    await kit.request("textinput", { viewId: a, text: "Shared tiles " });
    // The engine reports the change when it has run the input: wait for B's tile to change.
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await Bun.sleep(50);
      after = await firstTile(kit, b);
    }
    expect(after).not.toBe(before);
    expect(await firstTile(kit, a)).toBe(after);
  } finally {
    pool().release(kit);
  }
}, 60_000);
