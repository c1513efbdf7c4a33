// The private copy without picture links (workers/linked-pictures.ts), read without an engine:
// which parts are known as SVG pictures by their first bytes, and that a package needing nothing
// is left alone. That the engine then shows nothing of a linked file: app/documents-pull-nothing.test.ts.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { withoutLinkedPictures } from "./linked-pictures";

const dir = mkdtempSync(join(tmpdir(), "svc-linked-pictures-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let seq = 0;

const LINK = `<image href="file:///etc/hostname" width="10" height="10"/>`;
const svg = (start: string) => `${start}<svg xmlns="http://www.w3.org/2000/svg">${LINK}</svg>`;

/** A docx-like package holding `picture` as word/media/image1.png; the picture part after the copy, or null when no copy was made. */
function pictureAfterCopy(picture: string, opts: { deflate?: boolean } = {}): string | null {
  const file = join(dir, `in-${++seq}.docx`);
  const level = opts.deflate === false ? 0 : 6;
  writeFileSync(file, zipSync({ "[Content_Types].xml": strToU8("<Types/>"), "word/media/image1.png": [strToU8(picture), { level }] }));
  const copy = withoutLinkedPictures(file, join(dir, `out-${seq}.docx`));
  return copy && strFromU8(unzipSync(readFileSync(copy))["word/media/image1.png"]!);
}

describe("an SVG picture is known by its content, as LibreOffice knows it", () => {
  const starts: [string, string][] = [
    ["the root element alone", ""],
    ["an XML declaration", `<?xml version="1.0" encoding="UTF-8"?>\n`],
    ["UTF-8's byte-order mark", "\uFEFF"],
    ["a comment and white space", `<!-- made by hand -->\n\t `],
    ["a DOCTYPE whose internal subset holds a '>'", `<?xml version="1.0"?><!DOCTYPE svg [ <!ENTITY a "x>y"> ]>\n`],
    ["a prefixed root", ""],
    // Past the 4 kB first read of a part: LibreOffice still reads such an SVG.
    ["a 6 kB comment", `<?xml version="1.0"?>\n<!--${"x".repeat(6000)}-->\n`],
    ["a 6 kB DOCTYPE", `<!DOCTYPE svg [ <!ENTITY a "${"y".repeat(6000)}"> ]>`],
    ["6 kB of white space", " ".repeat(6000)],
    ["a prolog that ends 4 kB in, the root element across it", `<!--${"z".repeat(4096 - 10)}-->`],
    // Random text compresses little: the part is larger than 4 kB deflated, and read by its head first.
    ["a 12 kB comment of random text", `<!--${randomBytes(9000).toString("base64")}-->`],
  ];
  for (const [what, start] of starts) {
    test(`${what}: the copy's link is emptied`, () => {
      const text = what === "a prefixed root" ? `<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:image href="file:///etc/hostname"/></s:svg>` : svg(start);
      for (const deflate of [true, false]) {
        const after = pictureAfterCopy(text, { deflate });
        expect(after).not.toBeNull();
        expect(after).not.toContain("/etc/hostname");
      }
    });
  }

  test("XML whose root is not an SVG is no picture: no copy is made", () => {
    expect(pictureAfterCopy(`<?xml version="1.0"?><!-- <svg> --><html>${LINK}</html>`)).toBeNull();
    expect(pictureAfterCopy(`<?xml version="1.0"?><!--${"x".repeat(6000)}--><html>${LINK}</html>`)).toBeNull();
  });
});

describe("an ODF package's XML parts are read for inline pictures", () => {
  const odt = (content: string) => {
    const file = join(dir, `in-${++seq}.odt`);
    writeFileSync(file, zipSync({ mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }], "content.xml": strToU8(content) }));
    return file;
  };

  test("content without inline pictures: no copy is made", () => {
    expect(withoutLinkedPictures(odt(`<?xml version="1.0"?><office:document-content>${"<text:p>x</text:p>".repeat(500)}</office:document-content>`), join(dir, "none.odt"))).toBeNull();
  });

  test("an inline SVG picture's link is emptied, the mimetype still first and stored", () => {
    const inline = Buffer.from(svg("")).toString("base64");
    const copy = withoutLinkedPictures(odt(`<?xml version="1.0"?><office:document-content><draw:image><office:binary-data>${inline}</office:binary-data></draw:image></office:document-content>`), join(dir, "inline.odt"));
    expect(copy).not.toBeNull();
    const bytes = readFileSync(copy!);
    expect(bytes.subarray(30, 38).toString()).toBe("mimetype");
    const content = strFromU8(unzipSync(bytes)["content.xml"]!);
    const picture = Buffer.from(/<office:binary-data>([^<]*)</.exec(content)![1]!, "base64").toString();
    expect(picture).toContain("<svg");
    expect(picture).not.toContain("/etc/hostname");
  });
});
