// Documents that link a picture by its file name instead of carrying it (issue 44 item 4): an
// ODF draw:image with an xlink:href, an SVG picture whose <image href> names a file, a docx
// picture with an external relationship (r:link), Word's INCLUDEPICTURE field in docx and RTF,
// and an HTML img. The picture they name is a canary: a solid magenta square, a colour no
// document of the tests draws otherwise, so a rendered page or tile shows whether it was read.
// Each document also carries a text of its own ("The end.") and, for the control, can embed the
// same picture instead of linking it.

import { strToU8, zipSync } from "fflate";
import { encodeTilePng } from "../../workers/png";

/** The canary's colour. */
export const MAGENTA = [255, 0, 255] as const;

/** A w×h solid magenta PNG. */
export function magentaPng(w = 48, h = 48): Buffer {
  // BGRA as little-endian words 0xAARRGGBB: opaque magenta.
  const px = new Uint32Array(w * h).fill(0xffff00ff);
  return encodeTilePng(new Uint8Array(px.buffer), w, h, 0 /* BGRA */);
}

/** How many pixels of an RGB raster are (near) magenta. */
export function magentaPixels(rgb: Uint8Array): number {
  let n = 0;
  for (let i = 0; i + 2 < rgb.length; i += 3) if (rgb[i]! > 200 && rgb[i + 1]! < 80 && rgb[i + 2]! > 200) n++;
  return n;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const fileUrl = (p: string) => (/^[a-z]+:/i.test(p) ? p : p.startsWith("/") ? `file://${encodeURI(p)}` : encodeURI(p));

/** An SVG picture that draws nothing of its own but the image it names. */
export function svgLinking(target: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="200" viewBox="0 0 200 200">` +
    `<rect x="0" y="0" width="200" height="200" fill="#ffffff" stroke="#000000"/>` +
    `<image x="0" y="0" width="200" height="200" href="${esc(fileUrl(target))}" xlink:href="${esc(fileUrl(target))}"/></svg>`
  );
}

const ODF_NS =
  `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
  `xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
  `xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"`;

/**
 * An odt with one picture frame per target, each a linked draw:image (what "Insert > Image…
 * > Link" writes); `embedded`: the frame holds Pictures/canary.png instead (the control).
 */
export function odtLinkedImages(targets: string[], opts: { embedded?: Uint8Array } = {}): Uint8Array {
  const frame = (href: string, i: number) =>
    `<text:p><draw:frame draw:name="pic${i}" text:anchor-type="as-char" svg:width="5cm" svg:height="5cm"><draw:image xlink:href="${esc(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`;
  const frames = opts.embedded ? [frame("Pictures/canary.png", 0)] : targets.map((t, i) => frame(fileUrl(t), i));
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ODF_NS} office:version="1.3"><office:body><office:text>` +
    `<text:p>Pictures below.</text:p>${frames.join("")}<text:p>The end.</text:p></office:text></office:body></office:document-content>`;
  const mime = "application/vnd.oasis.opendocument.text";
  const entries = [`<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/>`, `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>`];
  const files: Record<string, any> = { mimetype: [strToU8(mime), { level: 0 }], "content.xml": strToU8(content) };
  if (opts.embedded) {
    files["Pictures/canary.png"] = opts.embedded;
    entries.push(`<manifest:file-entry manifest:full-path="Pictures/canary.png" manifest:media-type="image/png"/>`);
  }
  files["META-INF/manifest.xml"] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">${entries.join("")}</manifest:manifest>`,
  );
  return zipSync(files);
}

const W_NS =
  `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ` +
  `xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ` +
  `xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"`;
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** A DrawingML inline picture whose blip is embedded (r:embed) or linked (r:link) by relationship id. */
function inlinePicture(id: number, rel: string, how: "embed" | "link"): string {
  const emu = 1800000;
  return (
    `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="${emu}" cy="${emu}"/><wp:docPr id="${id}" name="Picture ${id}"/>` +
    `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>` +
    `<pic:nvPicPr><pic:cNvPr id="${id}" name="Picture ${id}"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip r:${how}="${rel}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${emu}" cy="${emu}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>` +
    `</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
  );
}

const includePicture = (target: string, i: number) =>
  `<w:p><w:r><w:fldChar w:fldCharType="begin" w:dirty="true"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDEPICTURE "${esc(target.replace(/\\/g, "\\\\"))}" \\d </w:instrText></w:r>` +
  `<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>cached includepicture ${i}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;

/** The ways a docx links a picture: an external relationship, the field, an SVG picture's <image>. */
export const DOCX_WAYS = ["link", "includepicture", "svg"] as const;
export type DocxWay = (typeof DOCX_WAYS)[number];

/**
 * A docx that links pictures every way Word has: per target a picture with an external
 * relationship (r:link), an INCLUDEPICTURE field, and an embedded SVG picture whose <image>
 * names the target (`ways`: some of them only); `svg`: an SVG picture of the caller's own besides
 * (text, or bytes in an encoding of its own).
 */
export function docxLinkedImages(targets: string[], opts: { embedded?: Uint8Array; svg?: string | Uint8Array; ways?: DocxWay[] } = {}): Uint8Array {
  const ways = new Set(opts.ways ?? DOCX_WAYS);
  const rels: string[] = [];
  const body: string[] = [`<w:p><w:r><w:t>Pictures below.</w:t></w:r></w:p>`];
  const files: Record<string, Uint8Array> = {};
  let id = 1;
  if (opts.embedded) {
    rels.push(`<Relationship Id="rEmb" Type="${REL}/image" Target="media/canary.png"/>`);
    files["word/media/canary.png"] = opts.embedded;
    body.push(inlinePicture(id++, "rEmb", "embed"));
  }
  targets.forEach((t, i) => {
    if (ways.has("link")) {
      rels.push(`<Relationship Id="rLink${i}" Type="${REL}/image" Target="${esc(fileUrl(t))}" TargetMode="External"/>`);
      body.push(inlinePicture(id++, `rLink${i}`, "link"));
    }
    if (ways.has("includepicture")) body.push(includePicture(t, i));
    if (ways.has("svg")) {
      rels.push(`<Relationship Id="rSvg${i}" Type="${REL}/image" Target="media/linking${i}.svg"/>`);
      files[`word/media/linking${i}.svg`] = strToU8(svgLinking(t));
      body.push(inlinePicture(id++, `rSvg${i}`, "embed"));
    }
  });
  if (opts.svg !== undefined) {
    rels.push(`<Relationship Id="rOwnSvg" Type="${REL}/image" Target="media/own.svg"/>`);
    files["word/media/own.svg"] = typeof opts.svg === "string" ? strToU8(opts.svg) : opts.svg;
    body.push(inlinePicture(id++, "rOwnSvg", "embed"));
  }
  body.push(`<w:p><w:r><w:t>The end.</w:t></w:r></w:p>`);
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `<Default Extension="png" ContentType="image/png"/><Default Extension="svg" ContentType="image/svg+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    "word/document.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ${W_NS}><w:body>${body.join("")}</w:body></w:document>`),
    "word/_rels/document.xml.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join("")}</Relationships>`),
    ...files,
  });
}

/** An RTF with INCLUDEPICTURE fields per target, its name quoted and not (Word writes linked pictures so in RTF). */
export function rtfLinkedImages(targets: string[]): Uint8Array {
  const rtfEsc = (s: string) => s.replace(/\\/g, "\\\\\\\\").replace(/[{}]/g, (c) => `\\${c}`);
  const fields = targets.map(
    (t, i) =>
      `{\\field{\\*\\fldinst { INCLUDEPICTURE "${rtfEsc(fileUrl(t))}" \\\\d }}{\\fldrslt {cached includepicture ${i}}}}\\par\n` +
      `{\\field{\\*\\fldinst { INCLUDEPICTURE ${rtfEsc(fileUrl(t))} }}{\\fldrslt {cached includepicture unquoted ${i}}}}\\par\n`,
  );
  return strToU8(`{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Liberation Serif;}}\\f0\\fs24 Pictures below.\\par\n${fields.join("")}The end.\\par\n}`);
}

/** An HTML page with an img per target. */
export function htmlLinkedImages(targets: string[]): Uint8Array {
  const imgs = targets.map((t) => `<p><img src="${esc(fileUrl(t))}" width="200" height="200" alt=""></p>`);
  return strToU8(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><p>Pictures below.</p>${imgs.join("")}<p>The end.</p></body></html>`);
}

/**
 * The RGB pixels of an 8-bit RGB or RGBA PNG (what the kits' tiles, the thumbnails and pdftoppm
 * give), every row filter undone: enough to count the canary's colour.
 */
export function pngRgb(png: Uint8Array): Uint8Array {
  const b = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let width = 0, height = 0, channels = 3;
  const idat: Buffer[] = [];
  while (at < b.length) {
    const len = b.readUInt32BE(at);
    const type = b.toString("latin1", at + 4, at + 8);
    const data = b.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6)) throw new Error(`pngRgb: only 8-bit RGB/RGBA (depth ${data[8]}, colour type ${data[9]})`);
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    at += 12 + len;
  }
  const raw = require("node:zlib").inflateSync(Buffer.concat(idat)) as Buffer;
  const stride = width * channels;
  const out = new Uint8Array(width * height * 3);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const row = new Uint8Array(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? row[x - channels]! : 0, up = prev[x]!, c = x >= channels ? prev[x - channels]! : 0;
      let p = 0;
      if (filter === 1) p = a;
      else if (filter === 2) p = up;
      else if (filter === 3) p = (a + up) >> 1;
      else if (filter === 4) {
        const e = a + up - c, pa = Math.abs(e - a), pb = Math.abs(e - up), pc = Math.abs(e - c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
      }
      row[x] = (row[x]! + p) & 255;
    }
    for (let x = 0; x < width; x++) out.set(row.subarray(x * channels, x * channels + 3), (y * width + x) * 3);
    prev = row;
  }
  return out;
}

/** A flat odt (fodt) whose one picture is held inline (office:binary-data, base64): `picture`'s bytes. */
export function fodtWithInlinePicture(picture: Uint8Array): Uint8Array {
  return strToU8(
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document ${ODF_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>` +
      `<text:p>Pictures below.</text:p><text:p><draw:frame draw:name="pic0" text:anchor-type="as-char" svg:width="5cm" svg:height="5cm"><draw:image><office:binary-data>${Buffer.from(picture).toString("base64")}</office:binary-data></draw:image></draw:frame></text:p>` +
      `<text:p>The end.</text:p></office:text></office:body></office:document>`,
  );
}
