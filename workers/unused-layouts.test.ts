// A deck's unused slide layouts stay out of what the engine loads when the output shows slides
// only (issue 47 item 4): the package handed to the engine is a whole deck (every relationship
// points at a part that is there), and what the slides show is unchanged.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { layoutsUnseenIn, withoutUnusedSlideLayouts } from "./unused-layouts";

const HELLO = join(import.meta.dir, "../fixtures/hello.pptx");
const parts = (p: string) => unzipSync(readFileSync(p));
const layoutsOf = (pkg: Record<string, Uint8Array>) => Object.keys(pkg).filter((n) => /^ppt\/slideLayouts\/slideLayout\d+\.xml$/.test(n)).sort();

describe("a deck's unused slide layouts", () => {
  test("hello.pptx (2 of 24 layouts used) is handed over with its 2 layouts, each master listing only those, every relationship resolving and the content types naming no missing part", () => {
    const out = join(mkdtempSync(join(tmpdir(), "layouts-")), "pruned.pptx");
    expect(withoutUnusedSlideLayouts(HELLO, out)).toBe(out);
    const before = parts(HELLO), after = parts(out);
    expect(layoutsOf(before)).toHaveLength(24);
    expect(layoutsOf(after)).toEqual(["ppt/slideLayouts/slideLayout15.xml", "ppt/slideLayouts/slideLayout2.xml"]);
    // Everything but the layouts and what names them is as it was.
    for (const name of Object.keys(before)) if (!/slideLayout|slideMaster|Content_Types/.test(name)) expect(after[name]).toEqual(before[name]!);
    for (const [name, bytes] of Object.entries(after)) {
      if (!name.endsWith(".rels")) continue;
      const dir = name.replace(/_rels\/[^/]*\.rels$/, "");
      for (const m of strFromU8(bytes).matchAll(/<Relationship\b[^>]*Target="([^"]+)"[^>]*\/>/g)) {
        if (/TargetMode="External"/.test(m[0])) continue;
        const target = m[1]!.startsWith("/") ? m[1]!.slice(1) : new URL(m[1]!, `http://x/${dir}`).pathname.slice(1);
        expect({ name, target, there: target in after }).toEqual({ name, target, there: true });
      }
    }
    const masters = Object.keys(after).filter((n) => /^ppt\/slideMasters\/slideMaster\d+\.xml$/.test(n));
    const listed = masters.flatMap((m) => [...strFromU8(after[m]!).matchAll(/<p:sldLayoutId\b/g)]).length;
    expect(listed).toBe(2);
    for (const m of strFromU8(after["[Content_Types].xml"]!).matchAll(/PartName="\/([^"]+)"/g)) expect({ part: m[1], there: m[1]! in after }).toEqual({ part: m[1], there: true });
  });

  test("a deck whose layouts are all used, or a package that is not a deck, is loaded as it came", () => {
    const dir = mkdtempSync(join(tmpdir(), "layouts-"));
    const pruned = withoutUnusedSlideLayouts(HELLO, join(dir, "a.pptx"))!;
    expect(withoutUnusedSlideLayouts(pruned, join(dir, "b.pptx"))).toBeNull();
    expect(withoutUnusedSlideLayouts(join(import.meta.dir, "../fixtures/hello.docx"), join(dir, "c.pptx"))).toBeNull();
  });

  test("only outputs that show slides leave layouts out: a PDF, a picture, text; never a presentation", () => {
    for (const t of ["pdf", "png", "svg", "html", null]) expect(layoutsUnseenIn(t)).toBe(true);
    for (const t of ["pptx", "odp", "ppt", "potx", "otp"]) expect(layoutsUnseenIn(t)).toBe(false);
  });
});
