// Writes a presentation svcscript as pptx with pptxgenjs. Lengths: millimetres in the script,
// inches for pptxgenjs. Slide titles go into a real title placeholder of a slide layout, so
// outlines, thumbnails and screen readers see them as titles.
//
// Placement rule (docs/svcscript.md): elements without "y" share the area under the title (the
// whole slide inside the margins when there is no title), stacked top to bottom in equal bands
// in script order; "x", "width" and "height" given on such an element override its band's.
// An element with "y" is placed there; its missing x is the left margin, its missing width the
// width inside the margins, its missing height what is left down to the bottom margin.

import PptxGenJS from "pptxgenjs";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { layoutTable } from "./grid";
import { decodeImage } from "./images";
import {
  ScriptRunError,
  type PresentationScript,
  type Slide,
  type SlideElement,
  type SlideImage,
  type SlideList,
  type SlideListItem,
  type SlideRun,
  type SlideTable,
  type SlideTableCell,
  type SlideText,
} from "./types";

const IN_PER_MM = 1 / 25.4;
const inch = (mm: number) => mm * IN_PER_MM;
const hex = (c: string) => c.replace(/^#/, "").toUpperCase();

/** Slide sizes in millimetres and pptxgenjs layout names. */
export const SLIDE_LAYOUTS: Record<string, { name: string; w: number; h: number }> = {
  "16x9": { name: "LAYOUT_16x9", w: 254, h: 142.875 },
  "16x10": { name: "LAYOUT_16x10", w: 254, h: 158.75 },
  "4x3": { name: "LAYOUT_4x3", w: 254, h: 190.5 },
  wide: { name: "LAYOUT_WIDE", w: 338.667, h: 190.5 },
};
export const SLIDE_MARGIN_MM = 12.7;
const GAP_MM = 4;
const MAX_LIST_DEPTH = 9;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

type TextObj = { text: string; options: Record<string, unknown> };

function runObjects(runs: SlideRun[] | undefined, text: string | undefined, base: Record<string, unknown>): TextObj[] {
  if (!runs) return [{ text: text ?? "", options: { ...base } }];
  return runs.map((r) => {
    const o = typeof r === "string" ? { text: r } : r;
    const options: Record<string, unknown> = { ...base };
    if (o.bold !== undefined) options.bold = o.bold;
    if (o.italic !== undefined) options.italic = o.italic;
    if (o.underline) options.underline = { style: "sng" };
    if (o.strike) options.strike = "sngStrike";
    if (o.color) options.color = hex(o.color);
    if (o.size) options.fontSize = o.size;
    if (o.font) options.fontFace = o.font;
    if (o.link) options.hyperlink = { url: o.link };
    return { text: o.text ?? "", options };
  });
}

/**
 * pptxgenjs writes a paragraph property element before every run of a paragraph; OOXML allows
 * one, first. Keep the first of each paragraph.
 */
export function fixParagraphProperties(xml: string): string {
  return xml.replace(/<a:p>([\s\S]*?)<\/a:p>/g, (_, inner: string) => {
    let seen = false;
    const fixed = inner.replace(/<a:pPr\b[^>]*?(?:\/>|>[\s\S]*?<\/a:pPr>)/g, (m) => {
      if (!seen) {
        seen = true;
        return m;
      }
      return "";
    });
    return `<a:p>${fixed}</a:p>`;
  });
}

/** pptxgenjs copies every placeholder of the slide layout onto the slide, empty when the slide
 * does not fill it; an empty placeholder shows "Click to add title" in PowerPoint. Drop them. */
export function dropEmptyPlaceholders(xml: string): string {
  return xml.replace(/<p:sp>(?:(?!<\/p:sp>)[\s\S])*<\/p:sp>/g, (sp) => (/<p:ph\b/.test(sp) && !/<a:t>/.test(sp) ? "" : sp));
}

export function fixSlideXml(xml: string): string {
  // An image without alt text gets pptxgenjs's file name "preencoded.png" as its description.
  return dropEmptyPlaceholders(fixParagraphProperties(xml)).replace(/ descr="preencoded\.png"/g, ' descr=""');
}

class SlideWriter {
  readonly size: { w: number; h: number };
  constructor(
    private readonly pptx: PptxGenJS,
    private readonly script: PresentationScript,
  ) {
    const l = SLIDE_LAYOUTS[script.layout ?? "16x9"]!;
    this.size = { w: l.w, h: l.h };
  }

  /** Title and subtitle boxes of the two slide layouts, in mm. */
  titleBoxes() {
    const { w, h } = this.size;
    const m = SLIDE_MARGIN_MM;
    return {
      content: { title: { x: m, y: m * 0.6, w: w - 2 * m, h: h * 0.16 }, subtitle: { x: m, y: m * 0.6 + h * 0.16, w: w - 2 * m, h: h * 0.08 } },
      title: { title: { x: m, y: h * 0.28, w: w - 2 * m, h: h * 0.2 }, subtitle: { x: m, y: h * 0.5, w: w - 2 * m, h: h * 0.12 } },
    };
  }

  defineMasters() {
    const b = this.titleBoxes();
    const d = this.script.defaults ?? {};
    const ph = (name: string, type: "title" | "body", box: Box, fontSize: number, extra: Record<string, unknown> = {}) => ({
      placeholder: {
        options: { name, type, x: inch(box.x), y: inch(box.y), w: inch(box.w), h: inch(box.h), fontSize, fontFace: d.font, color: d.color ? hex(d.color) : undefined, ...extra },
        text: "",
      },
    });
    this.pptx.defineSlideMaster({ title: "SVC_CONTENT", objects: [ph("title", "title", b.content.title, 28, { bold: true, align: "left", valign: "bottom" })] as never });
    this.pptx.defineSlideMaster({
      title: "SVC_TITLE",
      objects: [ph("title", "title", b.title.title, 40, { bold: true, align: "center", valign: "bottom" }), ph("subtitle", "body", b.title.subtitle, 22, { align: "center", valign: "top" })] as never,
    });
  }

  base(el: { color?: string; size?: number; font?: string }): Record<string, unknown> {
    const d = this.script.defaults ?? {};
    const color = el.color ?? d.color;
    return { color: color ? hex(color) : "000000", fontSize: el.size ?? d.size ?? 18, fontFace: el.font ?? d.font };
  }

  write(slide: Slide, at: string) {
    const layout = slide.layout ?? "content";
    const s = this.pptx.addSlide({ masterName: layout === "title" ? "SVC_TITLE" : "SVC_CONTENT" });
    const bg = slide.background ?? this.script.background;
    if (bg) s.background = { color: hex(bg) };
    const boxes = this.titleBoxes()[layout];
    const { w, h } = this.size;
    const m = SLIDE_MARGIN_MM;
    let top = m;
    if (slide.title !== undefined) {
      s.addText(slide.title, { placeholder: "title" });
      top = boxes.title.y + boxes.title.h;
    }
    if (slide.subtitle !== undefined) {
      if (layout === "title") s.addText(slide.subtitle, { placeholder: "subtitle" });
      else s.addText(slide.subtitle, { x: inch(boxes.subtitle.x), y: inch(boxes.subtitle.y), w: inch(boxes.subtitle.w), h: inch(boxes.subtitle.h), ...this.base({ size: 18 }), valign: "top" });
      top = boxes.subtitle.y + boxes.subtitle.h;
    }
    if (slide.title !== undefined || slide.subtitle !== undefined) top += GAP_MM;

    const elements = slide.elements ?? [];
    const flow = elements.filter((e) => e.y === undefined);
    const bottom = h - m;
    const bandH = flow.length ? Math.max(5, (bottom - top - GAP_MM * (flow.length - 1)) / flow.length) : 0;
    let k = 0;
    elements.forEach((el, i) => {
      const elAt = `${at}/elements/${i}`;
      let box: Box;
      const given = el as { x?: number; y?: number; width?: number; height?: number };
      if (given.y === undefined) {
        const band = { x: m, y: top + k * (bandH + GAP_MM), w: w - 2 * m, h: bandH };
        k++;
        box = { x: given.x ?? band.x, y: band.y, w: given.width ?? band.w, h: given.height ?? band.h };
      } else {
        const x = given.x ?? m;
        box = { x, y: given.y, w: given.width ?? Math.max(5, w - m - x), h: given.height ?? Math.max(5, bottom - given.y) };
      }
      this.element(s, el, box, elAt);
    });
    if (slide.notes) s.addNotes(slide.notes);
  }

  element(s: PptxGenJS.Slide, el: SlideElement, box: Box, at: string) {
    switch (el.type) {
      case "text":
        return this.text(s, el, box);
      case "list":
        return this.list(s, el, box, at);
      case "table":
        return this.table(s, el, box, at);
      case "image":
        return this.image(s, el, box, at);
    }
  }

  text(s: PptxGenJS.Slide, el: SlideText, box: Box) {
    const base = this.base(el);
    if (el.bold) base.bold = true;
    if (el.italic) base.italic = true;
    const objs = runObjects(el.runs, el.text, base);
    s.addText(objs as PptxGenJS.TextProps[], {
      x: inch(box.x),
      y: inch(box.y),
      w: inch(box.w),
      h: inch(box.h),
      align: el.align,
      valign: el.valign ?? "top",
      fill: el.fill ? { color: hex(el.fill) } : undefined,
      fontSize: base.fontSize as number,
      fontFace: base.fontFace as string | undefined,
      color: base.color as string,
    });
  }

  list(s: PptxGenJS.Slide, el: SlideList, box: Box, at: string) {
    const base = this.base(el);
    const objs: TextObj[] = [];
    const walk = (items: SlideListItem[], level: number, path: string) => {
      items.forEach((item, i) => {
        const itemAt = `${path}/${i}`;
        if (level >= MAX_LIST_DEPTH) throw new ScriptRunError(itemAt, `lists nest at most ${MAX_LIST_DEPTH} levels deep`);
        const o = typeof item === "string" ? { text: item } : item;
        const runs = runObjects(o.runs, o.text, base).map((r) => ({ text: r.text.replace(/\r?\n/g, " "), options: r.options }));
        runs[0]!.options.bullet = el.ordered ? { type: "number" } : true;
        runs[0]!.options.indentLevel = level;
        runs.at(-1)!.options.breakLine = true;
        objs.push(...runs);
        if (typeof item === "object" && item.items) walk(item.items, level + 1, `${itemAt}/items`);
      });
    };
    walk(el.items, 0, `${at}/items`);
    s.addText(objs as PptxGenJS.TextProps[], { x: inch(box.x), y: inch(box.y), w: inch(box.w), h: inch(box.h), valign: "top", fontSize: base.fontSize as number, color: base.color as string, fontFace: base.fontFace as string | undefined });
  }

  table(s: PptxGenJS.Slide, el: SlideTable, box: Box, at: string) {
    const rows = [...(el.header ? [{ cells: el.header, path: `${at}/header` }] : []), ...el.rows.map((cells, i) => ({ cells, path: `${at}/rows/${i}` }))];
    const grid = layoutTable<SlideTableCell>({ rows, columns: el.columns?.length, path: at });
    const d = this.script.defaults ?? {};
    const size = el.size ?? d.size ?? 14;
    const headerRows = el.header ? 1 : 0;
    const out = grid.slots.map((slots, r) => {
      const isHeader = r < headerRows;
      const cells: { text: string; options: Record<string, unknown> }[] = [];
      slots.forEach((slot) => {
        if (slot.kind === "covered") return;
        if (slot.kind === "empty") {
          cells.push({ text: "", options: isHeader && el.header_fill ? { fill: { color: hex(el.header_fill) } } : {} });
          return;
        }
        const { cell, colspan, rowspan } = slot.at;
        const o = typeof cell === "object" ? cell : { text: String(cell) };
        const fill = o.fill ?? (isHeader ? el.header_fill : undefined);
        const options: Record<string, unknown> = { bold: o.bold ?? (isHeader || undefined), italic: o.italic, fontSize: o.size ?? size, align: o.align };
        if (o.color) options.color = hex(o.color);
        if (fill) options.fill = { color: hex(fill) };
        if (colspan > 1) options.colspan = colspan;
        if (rowspan > 1) options.rowspan = rowspan;
        cells.push({ text: o.text ?? "", options });
      });
      return cells;
    });
    const n = grid.columns;
    const colW = el.columns ? el.columns.map(inch) : Array<number>(n).fill(inch(box.w) / n);
    const border = el.borders === false ? { type: "none" as const } : { type: "solid" as const, pt: 0.75, color: "000000" };
    s.addTable(out as PptxGenJS.TableRow[], {
      x: inch(box.x),
      y: inch(box.y),
      w: colW.reduce((a, b) => a + b, 0),
      colW,
      border,
      fontSize: size,
      fontFace: d.font,
      color: d.color ? hex(d.color) : "000000",
      valign: "middle",
    });
  }

  image(s: PptxGenJS.Slide, el: SlideImage, box: Box, at: string) {
    const img = decodeImage(el.data, at);
    const ratio = img.width / img.height;
    let w: number, h: number, x = box.x, y = box.y;
    if (el.width && el.height) [w, h] = [el.width, el.height];
    else if (el.width) [w, h] = [el.width, el.width / ratio];
    else if (el.height) [w, h] = [el.height * ratio, el.height];
    else {
      // Fit the box, keep the proportions, centre horizontally.
      [w, h] = box.w / box.h > ratio ? [box.h * ratio, box.h] : [box.w, box.w / ratio];
      if (el.x === undefined) x = box.x + (box.w - w) / 2;
    }
    const mime = img.type === "png" ? "image/png" : "image/jpeg";
    s.addImage({ data: `${mime};base64,${Buffer.from(img.bytes).toString("base64")}`, x: inch(x), y: inch(y), w: inch(w), h: inch(h), altText: el.alt ?? "" });
  }
}

export async function writePresentation(script: PresentationScript): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.layout = SLIDE_LAYOUTS[script.layout ?? "16x9"]!.name;
  const props = script.properties ?? {};
  pptx.author = props.author ?? "svc";
  if (props.title !== undefined) pptx.title = props.title;
  if (props.subject !== undefined) pptx.subject = props.subject;
  if (script.defaults?.font) pptx.theme = { headFontFace: script.defaults.font, bodyFontFace: script.defaults.font };
  const w = new SlideWriter(pptx, script);
  w.defineMasters();
  script.slides.forEach((slide, i) => w.write(slide, `/slides/${i}`));
  const raw = (await pptx.write({ outputType: "uint8array" })) as Uint8Array;

  // Repair pptxgenjs's repeated paragraph properties in the slides.
  const files = unzipSync(raw);
  const out: Zippable = {};
  for (const [name, data] of Object.entries(files)) {
    out[name] = /^ppt\/slides\/slide\d+\.xml$/.test(name) ? strToU8(fixSlideXml(strFromU8(data))) : data;
  }
  return zipSync(out, { level: 6 });
}
