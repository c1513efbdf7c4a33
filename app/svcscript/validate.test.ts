import { describe, expect, test } from "bun:test";
import { targetsOf } from "../../workers/formats";
import { CHART_MESSAGE, MAX_REPORTED_ERRORS, prepareScript, scriptInvalid, svcscriptSchema, validateScript } from "./index";
import { MAX_DEPTH } from "./validate";

const errorsOf = (input: unknown) => {
  const v = validateScript(input);
  if (v.ok) throw new Error("expected the script to be refused");
  return v.errors;
};
const ok = (input: unknown) => {
  const v = validateScript(input);
  if (!v.ok) throw new Error(`expected a valid script, got ${JSON.stringify(v.errors)}`);
  return v.script;
};
const text = (body: unknown[], extra: Record<string, unknown> = {}) => ({ type: "text", outputs: ["docx"], body, ...extra });
const PNG = "iVBORw0KGgo=";

describe("the schema", () => {
  test("the outputs each family may ask for are exactly workers/formats.ts targetsOf(family)", () => {
    const defs = svcscriptSchema.definitions as Record<string, any>;
    for (const [family, def] of [["text", "textDocument"], ["spreadsheet", "spreadsheetDocument"], ["presentation", "presentationDocument"]] as const) {
      expect([...defs[def].properties.outputs.items.enum].sort()).toEqual([...targetsOf(family)].sort());
    }
  });

  test("every property has a description (directly or through its $ref) for editor autocompletion", () => {
    const defs = svcscriptSchema.definitions as Record<string, any>;
    const missing: string[] = [];
    const visit = (schema: any, at: string) => {
      if (!schema || typeof schema !== "object") return;
      for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
        const target = prop.$ref ? defs[prop.$ref.replace("#/definitions/", "")] : undefined;
        if (!prop.description && !target?.description) missing.push(`${at}/properties/${name}`);
        visit(prop, `${at}/properties/${name}`);
      }
      if (schema.items) visit(schema.items, `${at}/items`);
    };
    for (const [name, def] of Object.entries(defs)) visit(def, `#/definitions/${name}`);
    expect(missing).toEqual([]);
    expect(svcscriptSchema.$id).toBeString();
    expect(svcscriptSchema.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });
});

describe("valid scripts", () => {
  test("every element type of every family is accepted in its smallest form", () => {
    ok(text([
      { type: "heading", text: "H" },
      { type: "paragraph" },
      { type: "paragraph", text: "p" },
      { type: "paragraph", runs: ["a", { text: "b", bold: true }, { field: "page" }] },
      { type: "list", items: ["a", { text: "b", items: ["c"] }, { runs: ["d"] }] },
      { type: "table", rows: [["a", 1, { text: "c", colspan: 2 }, {}]] },
      { type: "image", data: PNG },
      { type: "page_break" },
    ], { header: [{ type: "paragraph", text: "h" }], footer: [{ type: "table", rows: [["f"]] }, { type: "image", data: PNG }], page: { margins: 10 } }));
    ok({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [] }, { name: "B", rows: [[1, "a", true, null, { value: null, fill: "#FFFFFF" }, { date: "2024-02-29" }, { formula: "=1+1" }], { cells: [] }], columns: [null, 10, { width: 5 }], merges: ["A1:B2"], freeze: { rows: 1 } }] });
    ok({ type: "presentation", outputs: ["pptx", "pdf"], slides: [{}, { title: "t", layout: "title", elements: [{ type: "text", text: "x" }, { type: "list", items: ["a"] }, { type: "table", rows: [["a"]] }, { type: "image", data: PNG }] }] });
  });

  test("a script may carry $schema for editors", () => {
    ok({ $schema: "./svcscript.schema.json", type: "text", outputs: ["pdf"], body: [] });
  });
});

describe("schema failures: detail.errors with exact JSON Pointers, every error reported", () => {
  test("a script with three mistakes gives exactly three errors, each at its pointer", () => {
    const errors = errorsOf(text([
      { type: "heading", level: 7, text: "x" },
      { type: "paragraph", text: "ok", color: "red" },
      { type: "list" },
    ]));
    expect(errors).toEqual([
      { path: "/body/0/level", message: "must be at most 6" },
      { path: "/body/1/color", message: 'must be a colour #RRGGBB, e.g. "#1F4E79"' },
      { path: "/body/2/items", message: 'missing required field "items"' },
    ]);
  });

  test("errors in different families and depths all point at the offending value", () => {
    expect(errorsOf({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [[1, { value: 1, formula: "=A1" }], { cells: [{}] }], merges: ["A1"] }] })).toEqual([
      { path: "/sheets/0/rows/0/1", message: 'give only one of "value", "date" or "formula" (found "value" and "formula")' },
      { path: "/sheets/0/rows/1/cells/0", message: 'needs one of "value", "date" or "formula"' },
      { path: "/sheets/0/merges/0", message: 'must be a range of cells such as "A1:D1"' },
    ]);
    expect(errorsOf({ type: "presentation", outputs: ["pptx"], slides: [{ elements: [{ type: "text" }, { type: "image" }, { type: "list", items: [5] }] }] })).toEqual([
      { path: "/slides/0/elements/0", message: 'needs "text" or "runs"' },
      { path: "/slides/0/elements/1/data", message: 'missing required field "data"' },
      { path: "/slides/0/elements/2/items/0", message: "must be a string or an object" },
    ]);
  });

  test("a union (element type) reports only the real cause, not every branch", () => {
    // A heading with a bad level: one line, not one per element type.
    expect(errorsOf(text([{ type: "heading", level: 0, text: "x" }]))).toEqual([{ path: "/body/0/level", message: "must be at least 1" }]);
    // A run of the wrong type: one line.
    expect(errorsOf(text([{ type: "paragraph", runs: [42] }]))).toEqual([{ path: "/body/0/runs/0", message: "must be a string or an object" }]);
  });

  test("an unknown or missing element type lists the valid ones, at /type", () => {
    expect(errorsOf(text([{ type: "paragrph", text: "x" }, { text: "y" }]))).toEqual([
      { path: "/body/0/type", message: 'unknown type "paragrph": one of heading, paragraph, list, table, image, page_break' },
      { path: "/body/1/type", message: 'missing required field "type": one of heading, paragraph, list, table, image, page_break' },
    ]);
    expect(errorsOf({ outputs: ["pdf"] })).toEqual([{ path: "/type", message: 'missing required field "type": one of text, spreadsheet, presentation' }]);
    expect(errorsOf({ type: "docx", outputs: ["pdf"] })).toEqual([{ path: "/type", message: 'unknown type "docx": one of text, spreadsheet, presentation' }]);
  });

  test("an unknown field is refused at its own pointer, with a suggestion when it is a near miss", () => {
    expect(errorsOf(text([{ type: "paragraph", runs: [{ text: "x", colour: "#FF0000" }] }]))).toEqual([
      { path: "/body/0/runs/0/colour", message: 'unknown field "colour": did you mean "color"?' },
    ]);
    const [e] = errorsOf(text([], { watermark: "x" }));
    expect(e!.path).toBe("/watermark");
    expect(e!.message).toStartWith('unknown field "watermark"; allowed fields: type, outputs, properties');
  });

  test("text and runs together are refused once", () => {
    expect(errorsOf(text([{ type: "paragraph", text: "a", runs: ["b"] }]))).toEqual([{ path: "/body/0", message: 'give either "text" or "runs", not both' }]);
    expect(errorsOf(text([{ type: "table", rows: [[{ text: "a", runs: ["b"] }]] }]))).toEqual([{ path: "/body/0/rows/0/0", message: 'give either "text" or "runs", not both' }]);
  });

  test("outputs: at least one, only the family's targets, no duplicates", () => {
    expect(errorsOf({ type: "text", outputs: [], body: [] })).toEqual([{ path: "/outputs", message: "must have at least 1 item" }]);
    expect(errorsOf({ type: "text", outputs: ["docx", "xlsx"], body: [] })).toEqual([{ path: "/outputs/1", message: "must be one of: docx, doc, odt, rtf, txt, html, epub, pdf" }]);
    expect(errorsOf({ type: "spreadsheet", outputs: ["pdf", "xlsx", "pdf"], sheets: [{ rows: [] }] })).toEqual([{ path: "/outputs/2", message: "repeats item 0: each value may appear only once" }]);
    expect(errorsOf({ type: "presentation", slides: [{}] })).toEqual([{ path: "/outputs", message: 'missing required field "outputs"' }]);
  });

  test("dates must be real calendar dates", () => {
    const sheet = (date: string) => ({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [[{ date }]] }] });
    ok(sheet("2024-02-29T23:59:59"));
    expect(errorsOf(sheet("2023-02-29"))).toEqual([{ path: "/sheets/0/rows/0/0/date", message: "is not a real date or time (check the day of the month and the hour)" }]);
    expect(errorsOf(sheet("29/02/2024"))).toEqual([{ path: "/sheets/0/rows/0/0/date", message: 'must be a date "YYYY-MM-DD" or a date and time "YYYY-MM-DDTHH:MM[:SS]"' }]);
  });

  test("the input must be an object; JSON Pointer escapes ~ and / in keys", () => {
    expect(errorsOf([])).toEqual([{ path: "", message: "must be an object" }]);
    expect(errorsOf(text([], { "a/b~c": 1 }))[0]!.path).toBe("/a~1b~0c");
  });

  test("absurdly deep nesting is refused before the schema check, without a stack overflow", () => {
    let items: unknown = ["leaf"];
    for (let i = 0; i < 5000; i++) items = [{ text: "x", items }];
    const [e] = errorsOf(text([{ type: "list", items }]));
    expect(e!.message).toContain(`more than ${MAX_DEPTH} levels`);
    expect(e!.path).toStartWith("/body/0/items/0/items/0/items");
  });
});

describe("charts are not in v1", () => {
  test("a chart element in a text body, a slide or a sheet says so clearly", () => {
    expect(errorsOf(text([{ type: "chart", data: [1, 2] }]))).toEqual([{ path: "/body/0/type", message: CHART_MESSAGE }]);
    expect(errorsOf({ type: "presentation", outputs: ["pptx"], slides: [{ elements: [{ type: "chart" }] }] })).toEqual([{ path: "/slides/0/elements/0/type", message: CHART_MESSAGE }]);
    expect(errorsOf({ type: "spreadsheet", outputs: ["xlsx"], sheets: [{ rows: [], charts: [{}] }] })).toEqual([{ path: "/sheets/0/charts", message: CHART_MESSAGE }]);
    expect(CHART_MESSAGE).toContain("not available in svcscript v1");
  });
});

describe("script_invalid as the spec's error", () => {
  test("prepareScript throws 422 script_invalid with detail.errors = [{path, message}]", () => {
    try {
      prepareScript(text([{ type: "heading" }]), 500);
      throw new Error("not thrown");
    } catch (e: any) {
      expect(e.code).toBe("script_invalid");
      expect(e.status).toBe(422);
      expect(e.detail.errors).toEqual([{ path: "/body/0", message: 'needs "text" or "runs"' }]);
      expect(e.message).toContain("/body/0");
    }
  });

  test("a huge list of errors is cut at MAX_REPORTED_ERRORS with the full count", () => {
    const errors = Array.from({ length: MAX_REPORTED_ERRORS + 5 }, (_, i) => ({ path: `/body/${i}`, message: "x" }));
    const err = scriptInvalid(errors);
    expect((err.detail.errors as unknown[]).length).toBe(MAX_REPORTED_ERRORS);
    expect(err.detail.error_count).toBe(MAX_REPORTED_ERRORS + 5);
  });
});
