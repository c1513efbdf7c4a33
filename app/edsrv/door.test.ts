// The door's table (issue 44): every frame a page may send has one row, bounded, with who may send
// it. What each row refuses, end to end with real kits, is in hostile-editor.test.ts.
import { describe, expect, test } from "bun:test";
import { DOOR, MAX_FRAME_BYTES, dialogActEnds, dialogActMayApply } from "./door";
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

describe("dialog acts", () => {
  const act = (o: object) => JSON.stringify(o);
  test("the acts that end a window (OK, Cancel, Close, a response, a popup's close) give the view's input back to the document at once; a field's change does not", () => {
    expect(dialogActEnds(act({ id: "cancel", cmd: "click", data: "", type: "responsebutton" }))).toBe(true);
    expect(dialogActEnds(act({ id: "ok", cmd: "click", data: "", type: "responsebutton" }))).toBe(true);
    expect(dialogActEnds(act({ id: "__DIALOG__", cmd: "response", data: "0", type: "dialog" }))).toBe(true);
    expect(dialogActEnds(act({ id: "__POPOVER__", cmd: "close", data: "", type: "popover" }))).toBe(true);
    expect(dialogActEnds(act({ id: "spinED_LEFTINDENT", cmd: "value", data: "3", type: "spinfield" }))).toBe(false);
    expect(dialogActEnds(act({ id: "add", cmd: "click", data: "", type: "pushbutton" }))).toBe(false);
  });
  test("looking is free: Cancel, Close, Help and a cancelling response apply nothing; OK does", () => {
    expect(dialogActMayApply(act({ id: "cancel", cmd: "click" }))).toBe(false);
    expect(dialogActMayApply(act({ id: "__DIALOG__", cmd: "response", data: "0" }))).toBe(false);
    expect(dialogActMayApply(act({ id: "ok", cmd: "click" }))).toBe(true);
  });
});
