import { describe, expect, test } from "bun:test";
import { ScriptRunError, validateScript, writeNative, type TextScript } from "./index";
import { b64, collect, makeJpeg, makePng, Package } from "./testing";

async function build(body: unknown[], extra: Record<string, unknown> = {}): Promise<Package> {
  const v = validateScript({ type: "text", outputs: ["docx"], body, ...extra });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return new Package(await writeNative(v.script));
}

/** The w:t texts of a part, in document order. */
const wt = (xml: string) => [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]!.replace(/&amp;/g, "&").replace(/&lt;/g, "<"));
/** The w:p elements of a part, as XML strings. */
const paragraphs = (xml: string) => [...xml.matchAll(/<w:p\/>|<w:p(?:\s[^>]*)?>[\s\S]*?<\/w:p>/g)].map((m) => m[0]);

async function runError(body: unknown[], extra: Record<string, unknown> = {}): Promise<ScriptRunError> {
  const v = validateScript({ type: "text", outputs: ["docx"], body, ...extra });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  try {
    await writeNative(v.script as TextScript);
  } catch (e) {
    if (e instanceof ScriptRunError) return e;
    throw e;
  }
  throw new Error("expected a ScriptRunError");
}

describe("text: headings, paragraphs and runs", () => {
  test("headings carry their level's style and text", async () => {
    const doc = (await build([{ type: "heading", text: "Chương 1" }, { type: "heading", level: 3, runs: ["Mục ", { text: "1.2", italic: true }] }])).text("word/document.xml");
    const [h1, h3] = paragraphs(doc);
    expect(h1).toContain('<w:pStyle w:val="Heading1"/>');
    expect(wt(h1!)).toEqual(["Chương 1"]);
    expect(h3).toContain('<w:pStyle w:val="Heading3"/>');
    expect(wt(h3!)).toEqual(["Mục ", "1.2"]);
  });

  test("runs keep bold, italic, underline, strike, colour, size and font", async () => {
    const pkg = await build([
      {
        type: "paragraph",
        runs: ["plain ", { text: "B", bold: true }, { text: "I", italic: true }, { text: "U", underline: true }, { text: "S", strike: true }, { text: "C", color: "#c00000" }, { text: "Z", size: 14 }, { text: "F", font: "Courier New" }],
      },
    ]);
    const xml = pkg.xml("word/document.xml");
    const runs = collect(xml, "w:r") as any[];
    const byText = (t: string) => runs.find((r) => (typeof r["w:t"] === "object" ? r["w:t"]["#text"] : r["w:t"]) === t);
    expect(byText("B")["w:rPr"]).toHaveProperty("w:b");
    expect(byText("I")["w:rPr"]).toHaveProperty("w:i");
    expect(byText("U")["w:rPr"]["w:u"]["@w:val"]).toBe("single");
    expect(byText("S")["w:rPr"]).toHaveProperty("w:strike");
    expect(byText("C")["w:rPr"]["w:color"]["@w:val"]).toBe("C00000");
    expect(byText("Z")["w:rPr"]["w:sz"]["@w:val"]).toBe("28");
    expect(byText("F")["w:rPr"]["w:rFonts"]["@w:ascii"]).toBe("Courier New");
    expect(byText("plain ")["w:rPr"]).toBeUndefined();
  });

  test("paragraph formatting applies to runs that set none; a run's own setting wins", async () => {
    const doc = (await build([{ type: "paragraph", bold: true, color: "#00FF00", runs: ["a", { text: "b", bold: false, color: "#0000FF" }] }])).text("word/document.xml");
    const runs = [...doc.matchAll(/<w:r>[\s\S]*?<\/w:r>/g)].map((m) => m[0]);
    expect(runs[0]).toContain("<w:b/>");
    expect(runs[0]).toContain('w:val="00FF00"');
    expect(runs[1]).not.toContain("<w:b/>");
    expect(runs[1]).toContain('w:val="0000FF"');
  });

  test("links become external hyperlinks to their address", async () => {
    const pkg = await build([{ type: "paragraph", runs: ["see ", { text: "the site", link: "https://example.vn/a?b=1" }, { text: "mail", link: "mailto:a@example.vn" }] }]);
    const doc = pkg.text("word/document.xml");
    const ids = [...doc.matchAll(/<w:hyperlink [^>]*r:id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBe(2);
    const rels = pkg.text("word/_rels/document.xml.rels");
    expect(rels).toContain('Target="https://example.vn/a?b=1" TargetMode="External"');
    expect(rels).toContain('Target="mailto:a@example.vn" TargetMode="External"');
    expect(wt(doc)).toEqual(["see ", "the site", "mail"]);
  });

  test("\\n in text is a line break; an empty paragraph is allowed", async () => {
    const doc = (await build([{ type: "paragraph", text: "one\ntwo" }, { type: "paragraph" }])).text("word/document.xml");
    const [p1, p2] = paragraphs(doc);
    expect(wt(p1!)).toEqual(["one", "two"]);
    expect(p1).toContain("<w:br/>");
    expect(wt(p2!)).toEqual([]);
  });
});

describe("text: lists", () => {
  test("bulleted and numbered lists with nested items use numbering levels; each numbered list restarts", async () => {
    const pkg = await build([
      { type: "list", items: ["a", { text: "b", items: ["b1", { runs: ["b2", { text: "!", bold: true }] }] }] },
      { type: "list", ordered: true, items: ["one", "two"] },
      { type: "list", ordered: true, items: ["again"] },
    ]);
    const doc = pkg.text("word/document.xml");
    const ps = paragraphs(doc);
    expect(ps.map((p) => wt(p).join(""))).toEqual(["a", "b", "b1", "b2!", "one", "two", "again"]);
    const level = (p: string) => /<w:ilvl w:val="(\d)"\/>/.exec(p)?.[1];
    const numId = (p: string) => /<w:numId w:val="(\d+)"\/>/.exec(p)?.[1];
    expect(ps.map(level)).toEqual(["0", "0", "1", "1", "0", "0", "0"]);
    expect(numId(ps[4]!)).toBe(numId(ps[5]!));
    expect(numId(ps[6]!)).not.toBe(numId(ps[4]!));
    const numbering = pkg.text("word/numbering.xml");
    expect(numbering).toContain('<w:numFmt w:val="bullet"/>');
    expect(numbering).toContain('<w:numFmt w:val="decimal"/>');
  });

  test("lists deeper than 9 levels fail at the item", async () => {
    let items: unknown[] = ["deep"];
    for (let i = 0; i < 9; i++) items = [{ text: `l${i}`, items }];
    const err = await runError([{ type: "list", items }]);
    expect(err.path).toBe(`/body/0/items${"/0/items".repeat(9)}/0`);
    expect(err.message).toContain("9 levels");
  });
});

describe("text: tables", () => {
  test("header row, column widths, shading, merged cells and cell text", async () => {
    const doc = (
      await build([
        {
          type: "table",
          columns: [20, 50, 30],
          header_fill: "#D9E2F3",
          header: ["STT", "Tên", "Giá"],
          rows: [
            [1, { text: "Bút", fill: "#FFF2CC" }, { text: "5.000", rowspan: 2 }],
            [2, "Vở"],
            [{ text: "Tổng", colspan: 2, bold: true }, "9.000"],
          ],
        },
      ])
    ).text("word/document.xml");
    const tbl = /<w:tbl>[\s\S]*<\/w:tbl>/.exec(doc)![0];
    expect([...tbl.matchAll(/<w:gridCol w:w="(\d+)"\/>/g)].map((m) => Number(m[1]))).toEqual([1134, 2835, 1701]); // mm → twips
    const rows = [...tbl.matchAll(/<w:tr>[\s\S]*?<\/w:tr>/g)].map((m) => m[0]);
    expect(rows.length).toBe(4);
    expect(rows[0]).toContain("<w:tblHeader/>");
    expect(rows[0]).toContain("<w:b/>");
    expect(rows[0]).toContain('w:fill="D9E2F3"');
    expect(rows.map((r) => wt(r))).toEqual([["STT", "Tên", "Giá"], ["1", "Bút", "5.000"], ["2", "Vở"], ["Tổng", "9.000"]]);
    expect(rows[1]).toContain('w:fill="FFF2CC"');
    expect(rows[1]).toContain('<w:vMerge w:val="restart"/>');
    expect(rows[2]).toContain('<w:vMerge w:val="continue"/>');
    expect(rows[3]).toContain('<w:gridSpan w:val="2"/>');
    // Every row covers the three grid columns.
    for (const r of rows) {
      const spans = [...r.matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((m) => Number(/<w:gridSpan w:val="(\d+)"/.exec(m[0])?.[1] ?? 1));
      expect(spans.reduce((a, b) => a + b, 0)).toBe(3);
    }
  });

  test("short rows are padded with empty cells; borders can be turned off", async () => {
    const doc = (await build([{ type: "table", borders: false, rows: [["a", "b", "c"], ["d"]] }])).text("word/document.xml");
    const rows = [...doc.matchAll(/<w:tr>[\s\S]*?<\/w:tr>/g)].map((m) => m[0]);
    expect(rows[1]!.match(/<w:tc>/g)!.length).toBe(3);
    expect(doc).toContain('w:val="none"');
  });

  test("a row with more cells than columns after merges fails at the extra cell", async () => {
    const err = await runError([{ type: "table", columns: [30, 30], rows: [["a", "b"], [{ text: "c", colspan: 2 }, "d"]] }]);
    expect(err.path).toBe("/body/0/rows/1/1");
    expect(err.message).toContain("more cells than the table's 2 columns");
  });

  test("a rowspan past the last row, a colspan past the last column and a colspan over a merged cell fail at the cell", async () => {
    expect((await runError([{ type: "paragraph" }, { type: "table", rows: [["a", { text: "b", rowspan: 3 }], ["c"]] }])).path).toBe("/body/1/rows/0/1");
    expect((await runError([{ type: "table", header: ["x", "y"], rows: [[{ text: "a", colspan: 3 }]] }])).path).toBe("/body/0/rows/0/0");
    const over = await runError([{ type: "table", rows: [["a", { text: "b", rowspan: 2 }, "c"], [{ text: "d", colspan: 2 }, "e"]] }]);
    expect(over.path).toBe("/body/0/rows/1/0");
    expect(over.message).toContain("overlaps");
  });

  test("a table without any row fails at the table", async () => {
    expect((await runError([{ type: "table", rows: [] }])).path).toBe("/body/0");
  });
});

describe("text: images", () => {
  test("PNG and JPEG are embedded as media parts at the asked size, proportions kept", async () => {
    const pkg = await build([
      { type: "image", data: b64(makePng(200, 100)), width: 40, alt: "logo" },
      { type: "image", data: `data:image/jpeg;base64,${b64(makeJpeg(64, 48))}`, height: 30 },
    ]);
    const media = pkg.names("word/media/");
    expect(media.length).toBe(2);
    expect(media.some((n) => n.endsWith(".png"))).toBe(true);
    expect(media.some((n) => /\.jpe?g$/.test(n))).toBe(true);
    const doc = pkg.text("word/document.xml");
    const extents = [...doc.matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => [Number(m[1]) / 36000, Number(m[2]) / 36000]);
    expect(extents[0]![0]).toBeCloseTo(40, 0);
    expect(extents[0]![1]).toBeCloseTo(20, 0);
    expect(extents[1]![0]).toBeCloseTo(40, 0);
    expect(extents[1]![1]).toBeCloseTo(30, 0);
    expect(doc).toContain('descr="logo"');
  });

  test("an image without a size is its size at 96 dpi, shrunk to the text width", async () => {
    const doc = (await build([{ type: "image", data: b64(makePng(96, 48)) }, { type: "image", data: b64(makePng(4000, 100)) }], { page: { size: "A4", margins: 20 } })).text("word/document.xml");
    const extents = [...doc.matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => Number(m[1]) / 36000);
    expect(extents[0]).toBeCloseTo(25.4, 0);
    expect(extents[1]).toBeCloseTo(170, 0);
  });

  test("image data that does not decode fails at the element", async () => {
    const png = makePng(10, 10);
    const badCrc = png.slice();
    badCrc[20] = badCrc[20]! ^ 0xff;
    const cases: [string, string][] = [
      [b64(new TextEncoder().encode("GIF89a not a png")), "neither a PNG nor a JPEG"],
      ["%%%not base64%%%", "not valid base64"],
      [b64(png.subarray(0, png.length - 20)), "PNG image does not decode"],
      [b64(badCrc), "wrong CRC"],
      [b64(makeJpeg(16, 16).subarray(0, 120)), "JPEG image does not decode"],
      ["data:image/png,abc", "base64"],
    ];
    for (const [data, why] of cases) {
      const err = await runError([{ type: "paragraph", text: "x" }, { type: "image", data }]);
      expect(err.path).toBe("/body/1");
      expect(err.message).toContain(why);
    }
    expect((await runError([], { header: [{ type: "image", data: "AAAA" }] })).path).toBe("/header/0");
  });
});

describe("text: page setup, header, footer, page break and properties", () => {
  test("A4 landscape with margins in millimetres", async () => {
    const doc = (await build([{ type: "paragraph", text: "x" }], { page: { size: "A4", orientation: "landscape", margins: { top: 20, left: 30 } } })).xml("word/document.xml");
    const sect = (collect(doc, "w:sectPr") as any[])[0];
    expect(sect["w:pgSz"]["@w:w"]).toBe("16838");
    expect(sect["w:pgSz"]["@w:h"]).toBe("11906");
    expect(sect["w:pgSz"]["@w:orient"]).toBe("landscape");
    expect(sect["w:pgMar"]["@w:top"]).toBe("1134");
    expect(sect["w:pgMar"]["@w:left"]).toBe("1701");
    expect(sect["w:pgMar"]["@w:right"]).toBe("1440"); // default 25.4 mm
  });

  test("Letter portrait is the default orientation", async () => {
    const doc = (await build([], { page: { size: "Letter" } })).text("word/document.xml");
    expect(doc).toMatch(/<w:pgSz w:w="12240" w:h="15840" w:orient="portrait"\/>/);
  });

  test("header and footer hold their text and page number fields", async () => {
    const pkg = await build([{ type: "paragraph", text: "body" }], {
      header: [{ type: "paragraph", text: "Công ty Ánh Dương" }],
      footer: [{ type: "paragraph", align: "center", runs: ["Trang ", { field: "page" }, " / ", { field: "pages" }] }],
    });
    const header = pkg.names("word/header").map((n) => pkg.text(n)).join("");
    const footer = pkg.names("word/footer").map((n) => pkg.text(n)).join("");
    expect(wt(header)).toEqual(["Công ty Ánh Dương"]);
    expect(wt(footer)).toEqual(["Trang ", " / "]);
    expect(footer).toMatch(/<w:instrText[^>]*>PAGE<\/w:instrText>/);
    expect(footer).toMatch(/<w:instrText[^>]*>NUMPAGES<\/w:instrText>/);
    expect(pkg.text("word/document.xml")).toMatch(/<w:headerReference [^>]*w:type="default"/);
  });

  test("a page break is a page-type break", async () => {
    const doc = (await build([{ type: "paragraph", text: "1" }, { type: "page_break" }, { type: "paragraph", text: "2" }])).text("word/document.xml");
    expect(doc).toContain('<w:br w:type="page"/>');
  });

  test("title, author and subject are in docProps/core.xml; defaults set the document font", async () => {
    const pkg = await build([], { properties: { title: "Hóa đơn", author: "Ánh Dương", subject: "Bán hàng" }, defaults: { font: "Arial", size: 12 } });
    const core = pkg.xml("docProps/core.xml")["cp:coreProperties"];
    expect(core["dc:title"]).toBe("Hóa đơn");
    expect(core["dc:creator"]).toBe("Ánh Dương");
    expect(core["dc:subject"]).toBe("Bán hàng");
    const styles = pkg.text("word/styles.xml");
    expect(styles).toMatch(/<w:rPrDefault>[\s\S]*w:ascii="Arial"[\s\S]*<w:sz w:val="24"\/>/);
  });
});
