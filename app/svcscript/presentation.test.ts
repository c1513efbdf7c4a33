import { describe, expect, test } from "bun:test";
import { ScriptRunError, validateScript, writeNative } from "./index";
import { fixParagraphProperties } from "./presentation";
import { b64, makeJpeg, makePng, Package } from "./testing";

async function build(slides: unknown[], extra: Record<string, unknown> = {}): Promise<Package> {
  const v = validateScript({ type: "presentation", outputs: ["pptx"], slides, ...extra });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return new Package(await writeNative(v.script));
}

async function runError(slides: unknown[]): Promise<ScriptRunError> {
  const v = validateScript({ type: "presentation", outputs: ["pptx"], slides });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  try {
    await writeNative(v.script);
  } catch (e) {
    if (e instanceof ScriptRunError) return e;
    throw e;
  }
  throw new Error("expected a ScriptRunError");
}

const at = (xml: string) => [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]!);
/** The p:sp shapes of a slide, as XML strings. */
const shapes = (xml: string) => [...xml.matchAll(/<p:sp>[\s\S]*?<\/p:sp>/g)].map((m) => m[0]);
const paras = (xml: string) => [...xml.matchAll(/<a:p>[\s\S]*?<\/a:p>/g)].map((m) => m[0]);
const offset = (shape: string) => {
  const m = /<a:off x="(\d+)" y="(\d+)"\/>\s*<a:ext cx="(\d+)" cy="(\d+)"\/>/.exec(shape)!;
  return { x: Number(m[1]) / 36000, y: Number(m[2]) / 36000, w: Number(m[3]) / 36000, h: Number(m[4]) / 36000 };
};

describe("presentation: slides, titles and text", () => {
  test("one slide per script slide; titles go into the title placeholder; the subtitle under it", async () => {
    const pkg = await build([{ layout: "title", title: "Báo cáo quý", subtitle: "Phòng Kế hoạch" }, { title: "Điểm chính" }, {}]);
    expect(pkg.names("ppt/slides/slide")).toEqual(["ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/slides/slide3.xml"]);
    const s1 = pkg.text("ppt/slides/slide1.xml");
    const title = shapes(s1).find((s) => /<p:ph[^>]*type="title"/.test(s))!;
    expect(at(title)).toEqual(["Báo cáo quý"]);
    expect(at(s1)).toEqual(["Báo cáo quý", "Phòng Kế hoạch"]);
    const s2 = pkg.text("ppt/slides/slide2.xml");
    expect(at(shapes(s2).find((s) => /type="title"/.test(s))!)).toEqual(["Điểm chính"]);
    expect(at(pkg.text("ppt/slides/slide3.xml"))).toEqual([]);
    // No empty title placeholder is left on a slide without a title.
    expect(pkg.text("ppt/slides/slide3.xml")).not.toContain("<p:ph");
  });

  test("text boxes keep runs with bold, italic, underline, colour, size and font", async () => {
    const s = (
      await build([{ elements: [{ type: "text", runs: ["plain", { text: "B", bold: true }, { text: "I", italic: true }, { text: "U", underline: true }, { text: "C", color: "#c00000", size: 24, font: "Georgia" }] }] }])
    ).text("ppt/slides/slide1.xml");
    const run = (t: string) => new RegExp(`<a:rPr[^>]*>(?:(?!</a:rPr>)[\\s\\S])*</a:rPr><a:t>${t}</a:t>`).exec(s)![0];
    expect(run("B")).toContain('b="1"');
    expect(run("I")).toContain('i="1"');
    expect(run("U")).toContain('u="sng"');
    expect(run("C")).toContain('<a:srgbClr val="C00000"/>');
    expect(run("C")).toContain('sz="2400"');
    expect(run("C")).toContain('typeface="Georgia"');
    expect(run("plain")).not.toContain('b="1"');
  });

  test("\\n in a text box starts a new paragraph", async () => {
    const s = (await build([{ elements: [{ type: "text", text: "một\nhai" }] }])).text("ppt/slides/slide1.xml");
    expect(paras(s).map((p) => at(p))).toEqual([["một"], ["hai"]]);
  });

  test("every paragraph has at most one paragraph-properties element, first", async () => {
    const s = (await build([{ elements: [{ type: "list", items: [{ runs: ["a", { text: "b", bold: true }, "c"] }, "d"] }] }])).text("ppt/slides/slide1.xml");
    for (const p of paras(s)) {
      expect((p.match(/<a:pPr\b/g) ?? []).length).toBeLessThanOrEqual(1);
      if (p.includes("<a:pPr")) expect(p).toMatch(/^<a:p><a:pPr\b/);
    }
    expect(fixParagraphProperties('<a:p><a:pPr algn="l"/><a:r><a:t>x</a:t></a:r><a:pPr indent="0"><a:buNone/></a:pPr><a:r><a:t>y</a:t></a:r></a:p>')).toBe(
      '<a:p><a:pPr algn="l"/><a:r><a:t>x</a:t></a:r><a:r><a:t>y</a:t></a:r></a:p>',
    );
  });
});

describe("presentation: lists", () => {
  test("bullets with nested levels, and numbered lists", async () => {
    const s = (await build([{ elements: [{ type: "list", items: ["a", { text: "b", items: ["b1"] }] }, { type: "list", ordered: true, items: ["one", "two"] }] }])).text("ppt/slides/slide1.xml");
    const ps = paras(s);
    expect(ps.map((p) => at(p).join(""))).toEqual(["a", "b", "b1", "one", "two"]);
    expect(ps[0]).toContain("<a:buChar");
    expect(ps[2]).toMatch(/<a:pPr[^>]*lvl="1"/);
    expect(ps[0]).not.toMatch(/lvl="/);
    expect(ps[3]).toContain('<a:buAutoNum type="arabicPeriod"');
  });

  test("items deeper than 9 levels fail at the item", async () => {
    let items: unknown[] = ["deep"];
    for (let i = 0; i < 9; i++) items = [{ text: "x", items }];
    const err = await runError([{}, { elements: [{ type: "list", items }] }]);
    expect(err.path).toBe(`/slides/1/elements/0/items${"/0/items".repeat(9)}/0`);
  });
});

describe("presentation: tables", () => {
  test("header, cells, fills and merged cells", async () => {
    const s = (
      await build([
        {
          elements: [
            {
              type: "table",
              columns: [40, 30, 30],
              header_fill: "#1F4E79",
              header: ["Khu vực", "Quý I", "Quý II"],
              rows: [
                ["Bắc", { text: "4200", fill: "#FFF2CC" }, { text: "chung", rowspan: 2 }],
                ["Nam", 5100],
                [{ text: "Tổng", colspan: 2 }, "x"],
              ],
            },
          ],
        },
      ])
    ).text("ppt/slides/slide1.xml");
    const tbl = /<a:tbl>[\s\S]*<\/a:tbl>/.exec(s)![0];
    expect([...tbl.matchAll(/<a:gridCol w="(\d+)"\/>/g)].map((m) => Math.round(Number(m[1]) / 36000))).toEqual([40, 30, 30]);
    const rows = [...tbl.matchAll(/<a:tr[ >][\s\S]*?<\/a:tr>/g)].map((m) => m[0]);
    expect(rows.map((r) => at(r))).toEqual([["Khu vực", "Quý I", "Quý II"], ["Bắc", "4200", "chung"], ["Nam", "5100"], ["Tổng", "x"]]);
    expect(rows[0]).toContain('<a:srgbClr val="1F4E79"/>');
    expect(rows[0]).toMatch(/b="1"/);
    expect(rows[1]).toContain('<a:srgbClr val="FFF2CC"/>');
    expect(rows[1]).toContain('rowSpan="2"');
    expect(rows[2]).toContain('vMerge="1"');
    expect(rows[3]).toContain('gridSpan="2"');
    expect(rows[3]).toContain('hMerge="1"');
    for (const r of rows) expect(r.match(/<a:tc[ >]/g)!.length).toBe(3);
  });

  test("a row with more cells than columns fails at the extra cell", async () => {
    const err = await runError([{ elements: [{ type: "text", text: "x" }, { type: "table", header: ["a", "b"], rows: [["1", "2", "3"]] }] }]);
    expect(err.path).toBe("/slides/0/elements/1/rows/0/2");
  });
});

describe("presentation: images, background, layout, notes, properties", () => {
  test("PNG and JPEG images are media parts placed at the asked position in millimetres", async () => {
    const pkg = await build([{ elements: [{ type: "image", data: b64(makePng(200, 100)), x: 10, y: 20, width: 50, alt: "logo" }, { type: "image", data: `data:image/jpeg;base64,${b64(makeJpeg(32, 32))}`, x: 100, y: 20, height: 40 }] }]);
    const media = pkg.names("ppt/media/");
    expect(media.filter((n) => n.endsWith(".png")).length).toBe(1);
    expect(media.filter((n) => /\.jpe?g$/.test(n)).length).toBe(1);
    const s = pkg.text("ppt/slides/slide1.xml");
    const pics = [...s.matchAll(/<p:pic>[\s\S]*?<\/p:pic>/g)].map((m) => offset(m[0]));
    expect(pics[0]!.x).toBeCloseTo(10, 1);
    expect(pics[0]!.y).toBeCloseTo(20, 1);
    expect(pics[0]!.w).toBeCloseTo(50, 1);
    expect(pics[0]!.h).toBeCloseTo(25, 1);
    expect(pics[1]!.w).toBeCloseTo(40, 1);
    expect(s).toContain('descr="logo"');
  });

  test("an image that does not decode fails at the element", async () => {
    const err = await runError([{ elements: [{ type: "image", data: b64(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])) }] }]);
    expect(err.path).toBe("/slides/0/elements/0");
    expect(err.message).toContain("neither a PNG nor a JPEG");
  });

  test("background colour: the presentation's for every slide, a slide's own wins", async () => {
    const pkg = await build([{}, { background: "#DEEAF6" }], { background: "#FFFFFF" });
    expect(pkg.text("ppt/slides/slide1.xml")).toMatch(/<p:bg><p:bgPr><a:solidFill><a:srgbClr val="FFFFFF"\/>/);
    expect(pkg.text("ppt/slides/slide2.xml")).toMatch(/<p:bg><p:bgPr><a:solidFill><a:srgbClr val="DEEAF6"\/>/);
  });

  test("the layout sets the slide size", async () => {
    expect((await build([{}], { layout: "4x3" })).text("ppt/presentation.xml")).toMatch(/<p:sldSz cx="9144000" cy="6858000"/);
    expect((await build([{}])).text("ppt/presentation.xml")).toMatch(/<p:sldSz cx="9144000" cy="5143500"/);
    expect((await build([{}], { layout: "wide" })).text("ppt/presentation.xml")).toMatch(/<p:sldSz cx="12192000" cy="6858000"/);
  });

  test("elements without a position share the area under the title in equal bands, in order", async () => {
    const s = (await build([{ title: "T", elements: [{ type: "text", text: "first" }, { type: "text", text: "second" }, { type: "text", text: "placed", x: 20, y: 100, width: 50, height: 10 }] }])).text("ppt/slides/slide1.xml");
    const boxes = shapes(s).filter((sh) => !/type="title"/.test(sh));
    const [a, b, c] = boxes.map(offset);
    expect(at(boxes[0]!)).toEqual(["first"]);
    expect(a!.y).toBeGreaterThan(12.7);
    expect(b!.y).toBeGreaterThan(a!.y + a!.h - 0.01);
    expect(a!.h).toBeCloseTo(b!.h, 3);
    expect(b!.y + b!.h).toBeCloseTo(142.875 - 12.7, 1);
    expect(c).toEqual({ x: 20, y: 100, w: 50, h: 10 });
  });

  test("speaker notes and properties", async () => {
    const pkg = await build([{ title: "T", notes: "Nói chậm thôi" }], { properties: { title: "Báo cáo", author: "Phòng KH", subject: "Quý II" } });
    const notes = pkg.names("ppt/notesSlides/notesSlide").map((n) => pkg.text(n)).join("");
    expect(notes).toContain("Nói chậm thôi");
    const core = pkg.text("docProps/core.xml");
    expect(core).toContain("<dc:title>Báo cáo</dc:title>");
    expect(core).toContain("<dc:creator>Phòng KH</dc:creator>");
    expect(core).toContain("<dc:subject>Quý II</dc:subject>");
  });
});
