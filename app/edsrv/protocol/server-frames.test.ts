// The frames the server builds decode, once, into what they mean (the page reads nothing else);
// a frame the protocol does not have, or one whose argument is not what its name promises, is
// refused with a reason, never half-read.

import { describe, expect, test } from "bun:test";
import { closeFrame, downloadAsFrame, errorFrame, firstScreenFrame, saveResultFrame, serverFrame, statusFrame, textSelectionContentFrame, thumbnailFrame, tileHeader, tileStaleFrame } from "./frames";
import { decodeServerFrame, decodeTileFrame, type ServerFrame } from "./server-frames";

function decoded(text: string): ServerFrame {
  const d = decodeServerFrame(text);
  if (!d.frame) throw new Error(`not decoded: ${d.problem}`);
  return d.frame;
}

describe("server frames decoded once, into the typed union the page reads", () => {
  test("what the server builds decodes to what it meant", () => {
    expect(decoded(statusFrame({ type: "spreadsheet", parts: 2, selectedPart: 1, width: 100, height: 50, partNames: ["A", "B"] }, 3, "spreadsheet"))).toMatchObject({ name: "status", status: { type: "spreadsheet", selectedPart: 1, viewid: 3 } });
    expect(decoded(saveResultFrame({ success: false, result: "conflict", errorMsg: "x" }))).toMatchObject({ name: "saveresult", result: { success: false, result: "conflict" } });
    expect(decoded(errorFrame("uno .uno:Open", "notallowed"))).toMatchObject({ name: "error", command: "uno", kind: "notallowed" });
    expect(decoded(firstScreenFrame({ part: 0, tilePosX: [0, 3840], tilePosY: [0, 0], tileWidth: 3840, tileHeight: 3840, width: 256, height: 256 }))).toMatchObject({ name: "firstscreen", part: "0", xs: ["0", "3840"], ys: ["0", "0"], tileWidth: 3840, width: 256 });
    expect(decoded(closeFrame("replaced"))).toMatchObject({ name: "close", reason: "replaced" });
    expect(decoded(textSelectionContentFrame("<b>a</b>", "a"))).toMatchObject({ name: "textselectioncontent", html: "<b>a</b>", plain: "a" });
    expect(decoded(thumbnailFrame(2, 120, 90, "iVBOR"))).toMatchObject({ name: "thumbnail", part: 2, width: 120, height: 90, dataUrl: "data:image/png;base64,iVBOR" });
    expect(decoded(downloadAsFrame("ab12", "print"))).toMatchObject({ name: "downloadas", downloadId: "ab12", purpose: "print" });
    expect(decoded(tileStaleFrame({ part: 1, x: 3840, y: 0, w: 3840, h: 3840 }, "7"))).toMatchObject({ name: "tilestale", part: "1", x: "3840", y: "0", tileWidth: 3840 });
    expect(decoded('progress: {"id":"find"}')).toMatchObject({ name: "progress", id: "find" });
    expect(decoded(serverFrame("perm", "readonly"))).toMatchObject({ name: "perm", readOnly: true });
    expect(decoded(serverFrame("statechanged", ".uno:ModifiedStatus=true"))).toMatchObject({ name: "statechanged", command: ".uno:ModifiedStatus", value: "true" });
    expect(decoded(serverFrame("viewinfo", JSON.stringify([{ viewid: 1, username: "An", current: true }])))).toMatchObject({ name: "viewinfo", views: [{ viewid: 1, username: "An" }] });
  });

  test("LibreOffice's payloads the server passes on decode too", () => {
    expect(decoded("invalidatetiles: 0, 15, 100, 200, 1 ver=42")).toMatchObject({ part: 1, rect: { x: 0, y: 15, w: 100, h: 200 }, ver: 42 });
    expect(decoded("invalidatetiles: EMPTY, 2")).toMatchObject({ part: 2, rect: null, ver: Infinity });
    expect(decoded("invalidatetiles: 1, 2, 3, 4")).toMatchObject({ part: null, rect: { x: 1, y: 2, w: 3, h: 4 } });
    expect(decoded("invalidatecursor: 10, 20, 1, 300")).toMatchObject({ rect: { x: 10, y: 20, w: 1, h: 300 } });
    expect(decoded('invalidatecursor: {"viewId": "1", "rectangle": "5, 6, 7, 8"}')).toMatchObject({ rect: { x: 5, y: 6, w: 7, h: 8 } });
    expect(decoded("textselection: 1, 2, 3, 4; 5, 6, 7, 8")).toMatchObject({ rects: [{ x: 1, y: 2, w: 3, h: 4 }, { x: 5, y: 6, w: 7, h: 8 }] });
    expect(decoded("textselection: ")).toMatchObject({ rects: [] });
    expect(decoded("cellcursor: EMPTY")).toMatchObject({ rect: null });
    expect(decoded('statechanged: {"commandName": ".uno:FontHeight", "state": {"h": 12}}')).toMatchObject({ command: ".uno:FontHeight", value: '{"h":12}' });
    expect(decoded('invalidateviewcursor: {"viewId": 4, "part": "1", "rectangle": "1, 2, 3, 4"}')).toMatchObject({ viewId: "4", part: 1, rect: { x: 1, y: 2, w: 3, h: 4 } });
    expect(decoded('textviewselection: {"viewId": 4, "selection": "1, 2, 3, 4"}')).toMatchObject({ viewId: "4", part: undefined, rects: [{ x: 1, y: 2, w: 3, h: 4 }] });
    expect(decoded('searchresultselection: {"searchResultSelection": [{"part": "0", "rectangles": "1, 2, 3, 4; 5, 6, 7, 8"}]}')).toMatchObject({ results: [{ part: "0", rects: [{ x: 1, y: 2, w: 3, h: 4 }, { x: 5, y: 6, w: 7, h: 8 }] }] });
    expect(decoded('commandvalues: {"commandName": ".uno:CharFontName", "commandValues": {"Arial": []}}')).toMatchObject({ command: ".uno:CharFontName", json: { commandValues: { Arial: [] } } });
    expect(decoded("celladdress:  B2 ")).toMatchObject({ address: "B2" });
  });

  test("an unknown frame or a broken argument is refused with a reason", () => {
    expect(decodeServerFrame("nosuchframe: x")).toMatchObject({ frame: null, name: "nosuchframe", problem: "unknown frame" });
    expect(decodeServerFrame("status: {not json")).toMatchObject({ frame: null, name: "status" });
    expect(decodeServerFrame("invalidatetiles: a, b")).toMatchObject({ frame: null, name: "invalidatetiles" });
    expect(decodeServerFrame("thumbnail: part=x")).toMatchObject({ frame: null, name: "thumbnail" });
  });

  test("a binary tile frame: its header as the server writes it, then the picture or none", () => {
    const place = { part: 1, x: 3840, y: 7680, w: 3840, h: 3840 };
    const header = new TextEncoder().encode(tileHeader(place, "12", 256, 256, 7, 99, { delta: 42, dy: 16 }));
    const withPng = new Uint8Array(header.length + 3);
    withPng.set(header);
    withPng.set([1, 2, 3], header.length);
    expect(decodeTileFrame(withPng)).toMatchObject({ id: "12", part: 1, x: "3840", y: "7680", tileWidth: 3840, ver: 7, wid: 99, delta: 42, dy: 16, png: new Uint8Array([1, 2, 3]) });
    const same = new TextEncoder().encode(tileHeader(place, "13", 256, 256, 8, 99).trimEnd());
    expect(decodeTileFrame(same)).toMatchObject({ id: "13", ver: 8, wid: 99, delta: 0, png: null });
  });
});
