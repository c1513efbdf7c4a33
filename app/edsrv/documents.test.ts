// The WOPI client and document broker against a loopback WOPI host, with real kits: open, edit
// through key/text-input messages, save (headers), conflicts, 413, failing saves retried, the exit
// save, the idle save and read-only enforcement. Views and tiles: documents-views.test.ts; the
// admin channel and killed kits: documents-kits.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { docxText } from "../testing/office-files";
import { quietFor, until, scaled } from "../testing/until";
import { createEdsrv } from "./server";
import { documentsEnv, documentsHelpers, typeAndSave } from "./testing/documents-env";
import { openDocument } from "./testing/ws-client";
import { lmt } from "./testing/wopi-host";

const env = documentsEnv();
const { open, newDoc, fileId, brokerOf } = documentsHelpers(env);

describe("WOPI client and saves", () => {
  test("a save sends PutFile with X-WOPI-Override PUT, the X-COOL-WOPI headers and the typed text", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    expect(s.texts()).toContain("perm: edit");
    const r = await typeAndSave(s, "Zebra42 ");
    expect(r).toMatchObject({ success: true, result: "stored" });
    const put = env.host.puts.find((p) => p.fileId === fileId(src))!;
    expect(put.headers["x-wopi-override"]).toBe("PUT");
    expect(put.headers["x-cool-wopi-ismodifiedbyuser"]).toBe("true");
    expect(put.headers["x-cool-wopi-isautosave"]).toBe("false");
    expect(put.headers["x-cool-wopi-isexitsave"]).toBe("false");
    expect(put.headers["x-cool-wopi-timestamp"]).toBe("2026-01-02T03:04:06.000000Z");
    // The legacy name too: a host written for LibreOffice Online reads only that one.
    expect(put.headers["x-lool-wopi-timestamp"]).toBe("2026-01-02T03:04:06.000000Z");
    expect(put.headers.authorization).toBe("Bearer tok_edit_1");
    expect(docxText(put.bytes)).toContain("Zebra42");
    // After the save the document is unmodified again, and the log has no token.
    await s.waitText("statechanged: .uno:ModifiedStatus=false");
    expect(env.logger.lines.join("\n")).not.toContain("tok_edit_1");
    s.close();
  });

  test("a key event modifies the document and the next save carries the new LastModifiedTime as timestamp", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    await typeAndSave(s, "one ");
    const n = s.frames.length;
    s.send("key type=input char=65 key=0");
    s.send("key type=up char=65 key=0");
    await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
    s.send("save notify=1");
    await s.waitText("saveresult:", n);
    const puts = env.host.puts.filter((p) => p.fileId === fileId(src));
    expect(puts.length).toBe(2);
    expect(puts[1]!.headers["x-cool-wopi-timestamp"]).toBe("2026-01-02T03:04:07.000000Z");
    expect(docxText(puts[1]!.bytes)).toContain("one A");
    s.close();
  });

  test("input sent right before a save is in the stored file and the document is unmodified afterwards", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const states = () => s.texts().filter((t) => t.startsWith("statechanged: .uno:ModifiedStatus="));
    // Each round sends keys, a text input and a UNO edit, then the save, with no wait in between:
    // the save is requested before the kit has answered any of the edits it will contain.
    for (const [i, word] of ["Kiwi", "Lime", "Plum"].entries()) {
      const n = s.frames.length;
      for (const ch of word) s.send(`key type=input char=${ch.charCodeAt(0)} key=0`);
      s.send("textinput text=%20");
      s.send("uno .uno:InsertPara");
      s.send("save notify=1");
      expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true, result: "stored" });
      await until(() => states().at(-1), (st) => st === "statechanged: .uno:ModifiedStatus=false", `round ${i}: the document unmodified after its save`);
      // No late "modified" for input the save already holds.
      await quietFor(200, `round ${i}: no ModifiedStatus=true after the save`, () => states().at(-1) !== "statechanged: .uno:ModifiedStatus=false" && states().at(-1));
      expect([i, states().at(-1)]).toEqual([i, "statechanged: .uno:ModifiedStatus=false"]);
    }
    const stored = env.host.puts.filter((p) => p.fileId === fileId(src)).pop()!;
    expect(docxText(stored.bytes)).toContain("Plum");
    // Nothing is left to store: an unmodified document is not saved again.
    const n = s.frames.length;
    s.send("save dontSaveIfUnmodified=1 notify=1");
    expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true, result: "unmodified" });
    s.close();
  });

  test("an undo sent right after fast typing never overtakes it: no earlier step is undone, what remains is a prefix of the typing", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    await typeAndSave(s, "Base ");
    const n = s.frames.length;
    // No waiting between the keys and the undo: the kit must not let the undo overtake them.
    for (const ch of "QRS") {
      s.send(`key type=input char=${ch.charCodeAt(0)} key=0`);
      s.send(`key type=up char=${ch.charCodeAt(0)} key=0`);
    }
    for (const ch of "TUV") s.send(`textinput text=${ch}`); // how the browser sends typed text
    s.send("uno .uno:Undo");
    s.send("save notify=1 force=0");
    await s.waitText("saveresult:", n);
    const last = env.host.puts.filter((p) => p.fileId === fileId(src)).at(-1)!;
    const text = docxText(last.bytes);
    // In order, an undo removes the end of what was typed: what is left is a prefix of it.
    const typed = /Base ([A-Z]*)Hello/.exec(text)?.[1];
    expect(typed).toBeDefined();
    expect("QRSTUV".startsWith(typed!)).toBe(true);
    s.close();
  });

  test("a 409 from PutFile is a document conflict reported to the session; a forced save overwrites", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    env.host.files.get(fileId(src))!.version = 7; // someone else stored a new version
    const r = await typeAndSave(s, "mine ");
    expect(r).toMatchObject({ success: false, result: "conflict" });
    expect(s.texts()).toContain("error: cmd=storage kind=documentconflict");
    const n = s.frames.length;
    s.send("save force=1 notify=1");
    expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    const last = env.host.puts.filter((p) => p.fileId === fileId(src)).pop()!;
    expect(last.headers["x-cool-wopi-timestamp"]).toBeUndefined();
    expect(last.headers["x-lool-wopi-timestamp"]).toBeUndefined();
    s.close();
  });

  test("a conflict resolved for the storage's version: the unsaved one is quarantined, every view reopens the stored one", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const other = await open(src, "tok_view");
    const f = env.host.files.get(fileId(src))!;
    f.version = 7; // someone else stored a new version
    expect(await typeAndSave(s, "Mango77 ")).toMatchObject({ success: false, result: "conflict" });
    const workRoot = brokerOf(src)!.deps.workRoot;
    // A read-only view cannot choose for everyone.
    other.send("closedocument reason=documentconflict");
    s.send("closedocument reason=documentconflict");
    await s.waitText("close: documentconflict");
    await other.waitText("close: documentconflict");
    const line = env.logger.lines.find((l) => l.includes("document_quarantined") && l.includes("conflict"));
    expect(line).toBeDefined();
    const name = /"file":"([^"]+)"/.exec(line!)![1]!;
    expect(docxText(readFileSync(path.join(workRoot, "quarantine", name)))).toContain("Mango77");
    // Opened again: the storage's version, and a save of it is taken (its timestamp is the new one).
    const again = await open(src, "tok_edit_1");
    const r = await typeAndSave(again, "after ");
    expect(r).toMatchObject({ success: true, result: "stored" });
    const last = env.host.puts.filter((p) => p.fileId === fileId(src)).pop()!;
    expect(docxText(last.bytes)).not.toContain("Mango77");
    expect(last.headers["x-cool-wopi-timestamp"]).toBe(lmt(7));
    again.close();
    s.close();
    other.close();
  });

  test("a conflict choice that comes too late does nothing: the view stays", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    s.send("closedocument reason=documentconflict");
    const r = await typeAndSave(s, "still ");
    expect(r).toMatchObject({ success: true, result: "stored" });
    s.close();
  });

  for (const status of [401, 404]) test(`a PutFile ${status} keeps what was typed: the document waits for its person to come back with a new token, whose save stores it`, async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    env.host.putPlan.push(status);
    expect(await typeAndSave(s, "Papaya55 ")).toMatchObject({ success: false, result: "unauthorized" });
    expect(s.texts()).toContain("error: cmd=storage kind=saveunauthorized");
    const held = () => env.logger.lines.filter((l) => l.includes("document_held_for_token")).length;
    const before = held();
    s.close();
    await until(held, (x) => x > before, "the document held for a new token");
    // Reopened from the storage (a new token): the typed text is there and stored with it.
    const again = await open(src, "tok_edit_2");
    const n = again.frames.length;
    again.send("save notify=1");
    expect(JSON.parse((await again.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true, result: "stored" });
    const last = env.host.puts.filter((p) => p.fileId === fileId(src)).pop()!;
    expect(last.token).toBe("tok_edit_2");
    expect(docxText(last.bytes)).toContain("Papaya55");
    again.close();
  });

  test("a different LastModifiedTime in a new view's CheckFileInfo, with unsaved changes here, is a conflict the person decides", async () => {
    const src = newDoc();
    const s1 = await open(src, "tok_edit_1");
    const n = s1.frames.length;
    s1.send(`textinput text=${encodeURIComponent("Unsaved")}`);
    await s1.waitText("invalidatecursor:", n);
    env.host.files.get(fileId(src))!.version = 9;
    const s2 = await open(src, "tok_edit_2");
    await s1.waitText("error: cmd=storage kind=documentconflict");
    s1.close();
    s2.close();
  });

  test("a different LastModifiedTime with nothing unsaved here: every page is told close: documentconflict and opens the stored version, nobody is asked (Collabora's answer)", async () => {
    const src = newDoc();
    const s1 = await open(src, "tok_edit_1");
    env.host.files.get(fileId(src))!.version = 9;
    // The new page is told too; its open does not finish (what it waited for never comes).
    void open(src, "tok_edit_2").then((s2) => s2.close(), () => {});
    await s1.waitText("close: documentconflict");
    expect(s1.texts()).not.toContain("error: cmd=storage kind=documentconflict");
    s1.close();
    // Opened again: the stored version, loaded anew, with no conflict to decide.
    const again = await open(src, "tok_edit_1");
    expect(again.texts().some((t) => t.includes("documentconflict"))).toBe(false);
    again.close();
  });

  test("a 413 makes every session read-only", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    env.host.putPlan.push(413);
    const r = await typeAndSave(s, "big ");
    expect(r).toMatchObject({ success: false, result: "toolarge" });
    await s.waitText("perm: readonly");
    expect(s.texts()).toContain("error: cmd=storage kind=savetoolarge");
    const n = s.frames.length;
    s.send("textinput text=more");
    expect(await s.waitText("error:", n)).toBe("error: cmd=textinput kind=readonly");
    s.close();
  });

  test("a failing PutFile is retried until it is stored", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    env.host.putPlan.push(500, 503);
    const r = await typeAndSave(s, "retry me ");
    expect(r).toMatchObject({ success: false, result: "failed" });
    const stored = await env.host.waitPut((p) => p.fileId === fileId(src) && p.status === 200);
    expect(docxText(stored.bytes)).toContain("retry me");
    expect(env.host.puts.filter((p) => p.fileId === fileId(src)).map((p) => p.status)).toEqual([500, 503, 200]);
    // A person's save, tried again, is still theirs: never stored as an autosave.
    expect(env.host.puts.filter((p) => p.fileId === fileId(src)).map((p) => p.headers["x-cool-wopi-isautosave"])).toEqual(["false", "false", "false"]);
    s.close();
  });

  test("the last view leaving triggers an exit save (IsExitSave true), retried when it fails", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const n = s.frames.length;
    s.send(`textinput text=${encodeURIComponent("bye ")}`);
    await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
    env.host.putPlan.push(502);
    s.close();
    const put = await env.host.waitPut((p) => p.fileId === fileId(src) && p.status === 200);
    expect(put.headers["x-cool-wopi-isexitsave"]).toBe("true");
    expect(docxText(put.bytes)).toContain("bye");
    const all = env.host.puts.filter((p) => p.fileId === fileId(src));
    expect(all.map((p) => p.status)).toEqual([502, 200]);
    expect(all.every((p) => p.headers["x-cool-wopi-isexitsave"] === "true")).toBe(true);
  });
});

describe("leaving", () => {
  test("what a user typed right before leaving is kept, whether other views stay or the exit save stores it", async () => {
    const src = newDoc();
    const stays = await open(src, "tok_edit_1");
    const leaves = await open(src, "tok_edit_2");
    // Typed, then the tab closed at once: no answer from the server is awaited in between.
    leaves.send(`textinput text=${encodeURIComponent("Leaving2 ")}`);
    leaves.close();
    // The leaver is gone (its view removed in the kit) once the view list names one view.
    const viewsListed = () => {
      const last = stays.texts().filter((t) => t.startsWith("viewinfo: ")).at(-1);
      return last === undefined ? null : JSON.parse(last.slice(10)).length;
    };
    await until(viewsListed, (n) => n === 1, "the view list names one view (the leaver's view removed in the kit)");
    const n = stays.frames.length;
    stays.send("save notify=1");
    expect(JSON.parse((await stays.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
    expect(docxText(env.host.puts.filter((p) => p.fileId === fileId(src)).pop()!.bytes)).toContain("Leaving2");
    // The last view does the same: the exit save holds it.
    const before = env.host.puts.length;
    stays.send(`textinput text=${encodeURIComponent("Last1 ")}`);
    stays.close();
    const exit = await env.host.waitPut((p) => p.fileId === fileId(src) && env.host.puts.indexOf(p) >= before);
    expect(exit.headers["x-cool-wopi-isexitsave"]).toBe("true");
    expect(docxText(exit.bytes)).toContain("Last1");
    expect(docxText(exit.bytes)).toContain("Leaving2");
  });
});

describe("idle save", () => {
  test("a modified document is stored a set time after its last input (the idle save), as an autosave, once", async () => {
    // The idle save's timer is the test's: it sees each input arm it (and call off the one before),
    // and fires it itself, so no wall-clock gap between inputs races the product's delay.
    type Armed = { fire: () => void; ms: number; cleared: boolean };
    const armed: Armed[] = [];
    const own = await createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-idle-")), SVC_ONLINE_ALIASGROUP1: env.host.origin }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 1,
      autosaveSeconds: 0,
      idleSaveSeconds: 1,
      idleSaveTimers: {
        set: (fire, ms) => {
          const t: Armed = { fire, ms, cleared: false };
          armed.push(t);
          return t;
        },
        clear: (t) => {
          (t as Armed).cleared = true;
        },
      },
    });
    try {
      const src = newDoc();
      const s = await openDocument(own.url, src, "tok_edit_1", { origin: `http://${new URL(own.url).host}` });
      let n = s.frames.length;
      s.send(`textinput text=${encodeURIComponent("Idle ")}`);
      await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
      await until(() => armed.length, (k) => k === 1, "the first input arms the idle save");
      expect(armed[0]!.ms).toBe(1000);
      n = s.frames.length;
      s.send(`textinput text=${encodeURIComponent("save")}`);
      await s.waitText("invalidatecursor:", n);
      // Not while typing goes on: the next input calls off the first one's save and arms its own.
      await until(() => armed.length, (k) => k === 2, "the second input arms the idle save again");
      expect(armed.map((t) => [t.ms, t.cleared])).toEqual([[1000, true], [1000, false]]);
      expect(env.host.puts.filter((p) => p.fileId === fileId(src))).toHaveLength(0);
      // The idle time after the last input has passed: one store.
      armed[1]!.fire();
      const put = await env.host.waitPut((p) => p.fileId === fileId(src), "the idle save's PutFile");
      expect(put.headers["x-cool-wopi-isautosave"]).toBe("true");
      expect(docxText(put.bytes)).toContain("Idle save");
      await s.waitText("statechanged: .uno:ModifiedStatus=false");
      // Once: the store arms nothing, and the timer firing again finds nothing to store.
      expect(armed).toHaveLength(2);
      armed[1]!.fire();
      await quietFor(1500, "no second idle save", () => {
        const k = env.host.puts.filter((p) => p.fileId === fileId(src)).length;
        return k > 1 && k;
      });
      expect(env.host.puts.filter((p) => p.fileId === fileId(src))).toHaveLength(1);
      s.close();
    } finally {
      await own.close();
    }
  }, scaled(60_000));
});

describe("a person's save meeting the idle save", () => {
  test("joins it: one version is stored, and the person's save is answered with its outcome (issue 45 item 3)", async () => {
    const armed: (() => void)[] = [];
    const own = await createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-idle-join-")), SVC_ONLINE_ALIASGROUP1: env.host.origin }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 1,
      autosaveSeconds: 0,
      idleSaveSeconds: 1,
      idleSaveTimers: { set: (fire) => armed.push(fire), clear: () => {} },
    });
    let release!: () => void;
    try {
      const src = newDoc();
      const s = await openDocument(own.url, src, "tok_edit_1", { origin: `http://${new URL(own.url).host}` });
      let n = s.frames.length;
      s.send(`textinput text=${encodeURIComponent("Saved once ")}`);
      await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
      await until(() => armed.length, (k) => k >= 1, "the input arms the idle save");
      // The host is slow to answer: the idle save is under way when the person presses Save.
      env.host.holdPuts = new Promise<void>((r) => (release = r));
      armed.at(-1)!();
      await env.host.waitPut((p) => p.fileId === fileId(src), "the idle save's PutFile");
      n = s.frames.length;
      s.send("save dontTerminateEdit=1 notify=1");
      // Frames are taken in order: once a later one is answered, the server has the save request.
      s.send("status");
      await s.waitText("status:", n);
      release();
      env.host.holdPuts = null;
      expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
      await s.waitText("statechanged: .uno:ModifiedStatus=false");
      await quietFor(1000, "no second version", () => {
        const k = env.host.puts.filter((p) => p.fileId === fileId(src)).length;
        return k > 1 && k;
      });
      expect(env.host.puts.filter((p) => p.fileId === fileId(src))).toHaveLength(1);
      s.close();
    } finally {
      release?.();
      env.host.holdPuts = null;
      await own.close();
    }
  }, scaled(60_000));
});

describe("read-only sessions", () => {
  test("UserCanWrite false gives perm readonly and the server drops edits and saves", async () => {
    const src = newDoc();
    const s = await open(src, "tok_view");
    expect(s.texts()).toContain("perm: readonly");
    let n = s.frames.length;
    s.send("key type=input char=66 key=0");
    expect(await s.waitText("error:", n)).toBe("error: cmd=key kind=readonly");
    n = s.frames.length;
    s.send("uno .uno:Delete");
    expect(await s.waitText("error:", n)).toBe("error: cmd=uno kind=readonly");
    n = s.frames.length;
    s.send("save notify=1");
    expect(JSON.parse((await s.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: false, result: "readonly" });
    expect(env.host.puts.some((p) => p.fileId === fileId(src))).toBe(false);
    expect(s.texts()).not.toContain("statechanged: .uno:ModifiedStatus=true");
    s.close();
  });

  test("permission=readonly in the document URL gives a read-only view", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1", "&permission=readonly");
    expect(s.texts()).toContain("perm: readonly");
    s.close();
  });
});
