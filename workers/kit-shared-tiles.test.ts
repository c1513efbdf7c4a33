// Capacity (issue 24 item 2): views of one document share painted tiles until the engine changes
// them (workers/kit/tiles.ts sharedTiles). What must hold: a view never shows another view's own
// look (formatting marks turned on in one view only), and every view sees an edit made in another.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";
import type { KitResult } from "./kit-protocol";

/** Painted tiles (not a stale answer: these tests paint the part each view shows). */
function painted(r: KitResult<"tiles">): Exclude<KitResult<"tiles">, { stale: true }> {
  if (r.stale) throw new Error("tiles answered stale");
  return r;
}

const { dir, pool } = useKitPool("svc-shared-tiles-");

/** The first tile of the page (256 px for 3840 twips, the editor's zoom), as a PNG from scratch (no copy held). */
async function firstTile(kit: Kit, viewId: number): Promise<string> {
  const r = painted(await kit.request("tiles", { viewId, part: 0, width: 256, height: 256, w: 3840, h: 3840, tiles: [[0, 0, 0]] }));
  return r.tiles[0]!.png!;
}

test("views share painted tiles but never another view's own look: formatting marks turned on in one view are not shown in the other", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "marks.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
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
      painted(await kit.request("tiles", { viewId, part: 0, width: 512, height: 512, w: 7680, h: 7680, tiles: [[0, 0, 0]] })).tiles[0]!.png!;
    const largerWithMarks = await larger(a);
    expect(await larger(b)).not.toBe(largerWithMarks);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("an edit in one view reaches the tiles every other view is given, shared or not", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "edit.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
    const before = await firstTile(kit, b);
    expect(await firstTile(kit, a)).toBe(before);
    await kit.request("textinput", { viewId: a, text: "Shared tiles " });
    // The engine reports the change when it has run the input: wait for B's tile to change.
    const after = await until(() => firstTile(kit, b), (t) => t !== before, "B's first tile changed by A's typing", 10_000);
    expect(after).not.toBe(before);
    expect(await firstTile(kit, a)).toBe(after);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

test("a typed character paints again only the rows it changed, and those tiles are what a whole paint of them shows", async () => {
  const kit: Kit = await pool().acquire();
  try {
    // Pictures, a table, colours and several fonts: what could paint differently from a band's origin.
    const doc = path.join(dir, "rows.docx");
    copyFileSync("/work/shared/corpus/docx/formatcorpus_fully_featured_layout.docx", doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    // Four by four tiles of 256 px at the editor's zoom (15 twips a pixel), whole PNGs (no copy held).
    const screen = Array.from({ length: 16 }, (_, i): [number, number, number] => [(i % 4) * 3840, Math.floor(i / 4) * 3840, 0]);
    const tiles = async (viewId: number) =>
      painted(await kit.request("tiles", { viewId, part: 0, width: 256, height: 256, w: 3840, h: 3840, tiles: screen }));
    const DOWN = 1024;
    let rowsPainted = 0;
    for (const [i, text] of ["Xy", "g̃Ấ", "quick ", "—é", "W"].entries()) {
      // A's tiles as they are now (a view coming or going makes the engine invalidate everything).
      await kit.request("settle", {});
      await tiles(a);
      for (let k = 0; k < 3; k++) {
        await kit.request("key", { viewId: a, type: "input", char: 0, key: DOWN });
        await kit.request("key", { viewId: a, type: "up", char: 0, key: DOWN });
      }
      await kit.request("textinput", { viewId: a, text });
      await kit.request("settle", {});
      const typed = await tiles(a);
      rowsPainted += typed.painted.rows;
      // A view of its own look (another language) shares no tile with A: it paints all of them whole.
      const fresh = (await kit.request("view", { readOnly: false, author: `F${i}` })).viewId;
      await kit.request("viewlanguage", { viewId: fresh, lang: ["fr-FR", "de-DE", "es-ES", "it-IT", "pt-BR"][i] });
      const whole = await tiles(fresh);
      expect(whole.painted.tiles).toBe(16);
      typed.tiles.forEach((t, n) => expect(t.png, `tile ${n} after "${text}"`).toBe(whole.tiles[n]!.png));
      await kit.request("unview", { viewId: fresh });
    }
    // The edits were painted as rows, not whole tiles.
    expect(rowsPainted).toBeGreaterThan(0);
  } finally {
    pool().release(kit);
  }
}, scaled(120_000));
