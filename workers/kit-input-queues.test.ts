// Capacity (issue 24 item 2): in a document several people type in, one person's key that LibreOffice
// runs as a command (an arrow, Backspace, a shortcut) waits for that person's own input to be done,
// not for the whole document to fall quiet. With one queue for everyone, an arrow key waited until
// nobody had typed for 25 ms (at most a second), and every keystroke behind it waited too.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";

const { dir, pool } = useKitPool("svc-queues-");

const KEY_LEFT = 1026;

test("while one person's arrow key waits for that person's input to settle, another person's typing goes on being answered", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "shared.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "B" })).viewId;
    // A types without a pause (a letter every 10 ms); the letters sent after B's command started
    // and answered before it ended are counted.
    let bStarted = false, bDone = false, answeredMeanwhile = 0, answered = 0;
    let typing = true;
    const typer = (async () => {
      const sent: Promise<unknown>[] = [];
      for (let i = 0; i < 300 && typing; i++) {
        const afterB = bStarted;
        sent.push(kit.request("textinput", { viewId: a, text: "a" }).then(() => { answered++; if (afterB && !bDone) answeredMeanwhile++; }));
        await Bun.sleep(10); // A's typing pace: the input under test, not a wait
      }
      await Promise.all(sent);
    })();
    await until(() => answered, (n) => n >= 5, "A's typing under way (letters answered)");
    // B has just typed too, so B's arrow key below waits for B's own engine work to settle, a
    // window wide enough for A's letters to be answered in on a loaded machine (with B idle the
    // key could end within a few milliseconds, before A's next letter; one run in the suite did).
    await kit.request("textinput", { viewId: b, text: "b" });
    // B presses an arrow key: LibreOffice runs it as a command, so it waits until B's own input is
    // done (25 ms of quiet at least).
    bStarted = true;
    await kit.request("key", { viewId: b, type: "input", char: 0, key: KEY_LEFT });
    bDone = true;
    await kit.request("key", { viewId: b, type: "up", char: 0, key: KEY_LEFT });
    typing = false;
    await typer;
    // One queue for all: A's letters sent meanwhile waited behind B's key, none answered before it.
    expect(answeredMeanwhile).toBeGreaterThan(0);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));

const KEY_END = 1029, KEY_MOD1 = 0x2000;

test("two people typing at once each see their own letters at their own cursor: the engine switching views for earlier input never sends one person's text to the other's cursor", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "two-typists.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request<{ viewId: number }>("view", { readOnly: false, author: "B" })).viewId;
    await kit.request("key", { viewId: b, type: "input", char: 0, key: KEY_END | KEY_MOD1 });
    await kit.request("key", { viewId: b, type: "up", char: 0, key: KEY_END | KEY_MOD1 });
    // A at the start of the document and B at its end type in turns, a letter every few ms each.
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      sent.push(kit.request("textinput", { viewId: a, text: "1" }));
      sent.push(kit.request("textinput", { viewId: b, text: "2" }));
      await Bun.sleep(3); // the typists' pace: the input under test, not a wait
    }
    await Promise.all(sent);
    await kit.request("uno", { viewId: a, command: ".uno:SelectAll" });
    const { text } = await kit.request<{ text: string }>("selection", { viewId: a });
    const flat = text.replace(/\s+/g, " ");
    expect(flat).toMatch(/^1{40}[^12]/);
    expect(flat).toMatch(/[^12]2{40}\s*$/);
    expect(flat.match(/[12]/g)!.length).toBe(80);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));
