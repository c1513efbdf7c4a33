// The door's table (issue 44): every frame a page may send has one row, bounded, with who may send
// it. What each row refuses, end to end with real kits, is in hostile-editor.test.ts.
import { describe, expect, test } from "bun:test";
import { DOOR, MAX_FRAME_BYTES } from "./door";
import { refusedLinkField } from "./protocol/dialog-events";

describe("the door's table", () => {
  test("every frame is bounded, none past the largest frame a socket takes", () => {
    for (const [cmd, row] of Object.entries(DOOR)) {
      expect({ cmd, bounded: Number.isFinite(row.maxLength) && row.maxLength > 0 && row.maxLength <= MAX_FRAME_BYTES }).toEqual({ cmd, bounded: true });
    }
    expect(DOOR.textinput.maxLength).toBeLessThan(1024 * 1024);
    expect(DOOR.key.maxLength).toBeLessThanOrEqual(128);
  });

  test("every frame that changes the document or drives a dialog is for edit views only (or decided by its handler)", () => {
    for (const cmd of ["key", "textinput", "mouse", "dialogevent", "paintwindow", "windowmouse", "windowkey", "windowtext", "windowclose", "moveparts", "paste", "insertgraphic"] as const) {
      expect({ cmd, who: DOOR[cmd].who }).toEqual({ cmd, who: "editors" });
    }
    expect(DOOR.uno.who).toBe("handler");
    expect(DOOR.save.who).toBe("handler");
    expect(DOOR.key.check).toBeDefined();
    expect(DOOR.textinput.check).toBeDefined();
  });

  test("a dialog's URL field takes only the targets SetHyperlink takes", () => {
    const ev = (id: string, data: string, type = "edit") => JSON.stringify({ id, cmd: "change", data, type });
    for (const bad of ["file:///etc/passwd", "javascript:alert(1)", " vnd.sun.star.script:Standard.M.Main", "java\tscript:x", "macro:///x"]) expect(refusedLinkField(ev("target", bad))).toBe("target");
    expect(refusedLinkField(ev("url", "0;file:///etc/passwd", "combobox"))).toBe("url");
    for (const ok of ["https://example.com", "mailto:a@b.c", "#Heading", "plain words"]) expect(refusedLinkField(ev("target", ok))).toBeNull();
    // A field whose name is not a link's takes any text (a search for "note: this").
    expect(refusedLinkField(ev("searchterm", "file:///etc/passwd"))).toBeNull();
  });
});
