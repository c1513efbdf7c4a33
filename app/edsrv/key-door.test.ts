// The key door (issue 44): which command each shortcut key runs, read from the engine's own
// accelerator configuration, and which keys may reach the engine. The refusals end to end, with
// real kits, are in hostile-editor.test.ts.
import { describe, expect, test } from "bun:test";
import { DEFAULT_PROGRAM_DIR } from "../../workers/lok-abi";
import { decideKey, keyFromName, loadKeyTable, parseAccelerators } from "./key-door";
import { MOD1, MOD2, SHIFT } from "./protocol/keys";

const K = (c: string) => 512 + c.charCodeAt(0) - 65, F = (n: number) => 768 + n - 1;

describe("the key door", () => {
  test("key names of the configuration map to the VCL codes the page sends", () => {
    expect(keyFromName("K_MOD1")).toBe(K("K") | MOD1);
    expect(keyFromName("F5_SHIFT_MOD1")).toBe(F(5) | SHIFT | MOD1);
    expect(keyFromName("F11_MOD2")).toBe(F(11) | MOD2);
    expect(keyFromName("RETURN_SHIFT")).toBe(1280 | SHIFT);
    expect(keyFromName("SEMICOLON_MOD1")).toBeNull();
  });

  test("the configuration's bindings: module first, global too, en-US values, empty commands skipped", () => {
    const xcd = `<oor:component-data xmlns:install="x" oor:name="Accelerators" oor:package="org.openoffice.Office"><node oor:name="PrimaryKeys"><node oor:name="Global">
      <node oor:name="K_MOD1" oor:op="replace"><prop oor:name="Command"><value xml:lang="en-US">.uno:HyperlinkDialog</value></prop></node>
      <node oor:name="B_MOD1" oor:op="replace"><prop oor:name="Command"/></node></node>
      <node oor:name="Modules"><node oor:name="com.sun.star.text.TextDocument" oor:op="replace">
      <node oor:name="B_MOD1" oor:op="replace"><prop oor:name="Command"><value xml:lang="en-US">.uno:Bold</value></prop></node></node></node></node></oor:component-data>`;
    const t = parseAccelerators(xcd);
    expect(t.global.get(K("K") | MOD1)).toEqual([".uno:HyperlinkDialog"]);
    expect(t.global.has(K("B") | MOD1)).toBe(false);
    expect(t.modules.get("text")?.get(K("B") | MOD1)).toEqual([".uno:Bold"]);
  });

  test("with LibreOffice's own configuration: the shortcuts of issue 44 are refused, typing and formatting keys pass", () => {
    expect(loadKeyTable(DEFAULT_PROGRAM_DIR)).toBe(true);
    for (const doc of ["text", "spreadsheet", "presentation", "drawing"]) {
      for (const key of [K("K") | MOD1, K("P") | MOD1, F(11) | MOD2, K("S") | MOD1]) expect(decideKey(doc, key, 0)).toMatchObject({ ok: false });
      for (const key of [1280, 1283, 1286, 1026, 1026 | SHIFT, 1026 | MOD1, 1028 | MOD1, K("B") | MOD1, K("Z") | MOD1, K("A") | MOD1]) expect(decideKey(doc, key, 0)).toEqual({ ok: true });
      // A character with no key code is typing; with a modifier it is not.
      expect(decideKey(doc, 0, 97)).toEqual({ ok: true });
      expect(decideKey(doc, MOD1, 97)).toMatchObject({ ok: false });
      // Codes the page never sends (punctuation, special keys) and out-of-range values.
      for (const key of [1315 | MOD1, 1317, 0x8000 | K("K"), 70000, -1]) expect(decideKey(doc, key, 0)).toMatchObject({ ok: false });
    }
    expect(decideKey("text", F(2) | MOD1, 0)).toEqual({ ok: false, command: ".uno:InsertField" });
    expect(decideKey("text", F(12) | MOD1, 0)).toEqual({ ok: false, command: ".uno:InsertTable" });
    expect(decideKey("text", F(5) | MOD1 | SHIFT, 0)).toEqual({ ok: false, command: ".uno:GotoPage" });
    expect(decideKey("presentation", F(5) | MOD1 | SHIFT, 0)).toEqual({ ok: false, command: ".uno:Navigator" });
    expect(decideKey("spreadsheet", F(2), 0)).toEqual({ ok: true });
  });

  test("without a readable configuration, keys with Ctrl or Alt and function keys are refused; typing passes", () => {
    expect(loadKeyTable("/nonexistent/program")).toBe(false);
    try {
      expect(decideKey("text", K("B") | MOD1, 0)).toMatchObject({ ok: false });
      expect(decideKey("text", F(2), 0)).toMatchObject({ ok: false });
      expect(decideKey("text", 1280, 13)).toEqual({ ok: true });
      expect(decideKey("text", 1026 | SHIFT, 0)).toEqual({ ok: true });
    } finally {
      loadKeyTable(DEFAULT_PROGRAM_DIR);
    }
  });
});
