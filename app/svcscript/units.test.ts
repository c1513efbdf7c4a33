import { describe, expect, test } from "bun:test";
import { countUnits, prepareScript, scriptTooLarge } from "./index";

describe("units: one per element, run, list item, table cell, sheet, non-null cell and slide", () => {
  test("a hand-counted text script", () => {
    const script = {
      type: "text",
      outputs: ["docx"],
      header: [{ type: "paragraph", runs: ["Trang ", { field: "page" }] }], // 1 element + 2 runs = 3
      footer: [{ type: "paragraph", text: "f" }], // 1 (text shorthand costs nothing)
      body: [
        { type: "heading", text: "H" }, // 1
        { type: "paragraph", runs: ["a", { text: "b" }, "c"] }, // 1 + 3 runs = 4
        { type: "list", items: ["x", { text: "y", items: ["y1", { runs: ["y2a", "y2b"] }] }] }, // 1 + 4 items + 2 runs = 7
        { type: "table", header: ["A", "B"], rows: [["1", { runs: ["2a", "2b"] }], [{ text: "3", colspan: 2 }]] }, // 1 + 5 cells + 2 runs = 8
        { type: "image", data: "x" }, // 1
        { type: "page_break" }, // 1
      ],
    };
    expect(countUnits(script)).toBe(3 + 1 + 1 + 4 + 7 + 8 + 1 + 1);
  });

  test("a hand-counted spreadsheet: sheets and non-null cells; row objects, columns and merges cost nothing", () => {
    const script = {
      type: "spreadsheet",
      outputs: ["xlsx"],
      sheets: [
        { name: "A", rows: [["a", 1, null, true], { cells: [{ formula: "=B1" }, null], bold: true }, []], merges: ["A1:B1"], columns: [10, 20] }, // 1 + 4
        { rows: [] }, // 1
      ],
    };
    expect(countUnits(script)).toBe(1 + 3 + 1 + 1);
  });

  test("a hand-counted presentation: slides, elements, runs, items, cells; titles and notes are part of the slide", () => {
    const script = {
      type: "presentation",
      outputs: ["pptx"],
      slides: [
        { title: "T", subtitle: "S", notes: "n" }, // 1
        {
          title: "T2",
          elements: [
            { type: "text", runs: ["a", "b"] }, // 1 + 2
            { type: "list", items: ["i", { text: "j", items: ["k"] }] }, // 1 + 3
            { type: "table", rows: [["1", "2"], ["3", "4"]] }, // 1 + 4
            { type: "image", data: "x" }, // 1
          ],
        }, // 1
      ],
    };
    expect(countUnits(script)).toBe(1 + 1 + 3 + 4 + 5 + 1);
  });

  test("the counter never throws on malformed input and counts only what has the language's shape", () => {
    expect(countUnits(null)).toBe(0);
    expect(countUnits("x")).toBe(0);
    expect(countUnits({ body: "x", sheets: 3, slides: [null, 5] })).toBe(2);
    expect(countUnits({ body: [null, 7, { type: "list", items: "x" }] })).toBe(3);
    let items: unknown = ["leaf"];
    for (let i = 0; i < 100_000; i++) items = [{ items }];
    expect(countUnits({ body: [{ type: "list", items }] })).toBe(1 + 100_001);
  });
});

describe("max_script_units: 422 script_too_large with detail.units and detail.limit, before any other work", () => {
  const sheetOf = (cells: number) => ({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [Array.from({ length: cells }, (_, i) => i)] }] });

  test("a script exactly at the limit is accepted", () => {
    expect(countUnits(sheetOf(499))).toBe(500);
    expect(prepareScript(sheetOf(499), 500).type).toBe("spreadsheet");
  });

  test("one unit past the limit is refused with the counts", () => {
    try {
      prepareScript(sheetOf(500), 500);
      throw new Error("not thrown");
    } catch (e: any) {
      expect(e.code).toBe("script_too_large");
      expect(e.status).toBe(422);
      expect(e.detail).toEqual({ units: 501, limit: 500 });
    }
  });

  test("units are counted before the schema: an oversized invalid script is too large, not invalid", () => {
    const script = { ...sheetOf(600), outputs: ["docx"] };
    expect(() => prepareScript(script, 500)).toThrow(expect.objectContaining({ code: "script_too_large" }));
    expect(() => prepareScript(script, 20_000)).toThrow(expect.objectContaining({ code: "script_invalid" }));
  });

  test("scriptTooLarge carries a Vietnamese message naming both numbers", () => {
    const err = scriptTooLarge(812, 500);
    expect(err.message).toContain("812");
    expect(err.message).toContain("500");
  });
});
