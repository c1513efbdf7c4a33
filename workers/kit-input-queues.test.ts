// Capacity (issue 24 item 2): in a document several people type in, one person's key that
// LibreOffice runs as a command (an arrow, Backspace, a shortcut) does not wait for the others to
// stop typing. With one queue for everyone, an arrow key waited until nobody had typed for 25 ms
// (at most a second), and every keystroke behind it waited too. Since the engine's loop runs in the
// kit (workers/kit-loop.ts) such a key waits for nothing at all: it is queued behind the input
// before it and runs before the input after it.
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import path from "node:path";
import type { Kit } from "../app/edsrv/kits";
import { useKitPool } from "../app/edsrv/testing/kit-pool";
import { until, scaled } from "../app/testing/until";

const { dir, pool } = useKitPool("svc-queues-");

const KEY_LEFT = 1026;

test("while another person types without a pause, one person's arrow key is answered without waiting for the typing to stop", async () => {
  const kit: Kit = await pool().acquire();
  try {
    const doc = path.join(dir, "shared.docx");
    copyFileSync(path.join(import.meta.dir, "../fixtures/hello.docx"), doc);
    await kit.request("load", { path: doc });
    const a = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
    // A types a letter every 10 ms until B's arrow key is answered (at most 300 letters).
    let bStarted = false, bDone = false, sentWhileBWaited = 0, answered = 0;
    const typer = (async () => {
      const sent: Promise<unknown>[] = [];
      for (let i = 0; i < 300 && !bDone; i++) {
        if (bStarted) sentWhileBWaited++;
        sent.push(kit.request("textinput", { viewId: a, text: "a" }).then(() => answered++));
        await Bun.sleep(10); // A's typing pace: the input under test, not a wait
      }
      await Promise.all(sent);
    })();
    await until(() => answered, (n) => n >= 5, "A's typing under way (letters answered)");
    await kit.request("textinput", { viewId: b, text: "b" });
    bStarted = true;
    await kit.request("key", { viewId: b, type: "input", char: 0, key: KEY_LEFT });
    bDone = true;
    await kit.request("key", { viewId: b, type: "up", char: 0, key: KEY_LEFT });
    await typer;
    // Waiting for the document to fall quiet, B's key would be answered only after A stopped (the
    // 300th letter) or after the old wait's one-second bound (100 letters); answered at once, A
    // sends a few at most, even on a slow machine.
    expect(sentWhileBWaited).toBeLessThan(50);
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
    const a = (await kit.request("view", { readOnly: false, author: "A" })).viewId;
    const b = (await kit.request("view", { readOnly: false, author: "B" })).viewId;
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
    const { text } = await kit.request("selection", { viewId: a });
    const flat = text!.replace(/\s+/g, " ");
    expect(flat).toMatch(/^1{40}[^12]/);
    expect(flat).toMatch(/[^12]2{40}\s*$/);
    expect(flat.match(/[12]/g)!.length).toBe(80);
  } finally {
    pool().release(kit);
  }
}, scaled(60_000));
