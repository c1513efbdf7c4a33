// Writes a text svcscript as docx with the `docx` library. Units: millimetres in the script,
// twips (1/1440 inch) and half-points in WordprocessingML, pixels at 96 dpi for images.

import {
  AlignmentType,
  BorderStyle,
  Document,
  ExternalHyperlink,
  Footer,
  Header,
  HeadingLevel,
  ImageRun,
  LevelFormat,
  Packer,
  PageBreak,
  PageNumber,
  PageOrientation,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableLayoutType,
  TableRow,
  TextRun,
  VerticalMergeType,
  WidthType,
  type ParagraphChild,
} from "docx";
import { layoutTable } from "./grid";
import { decodeImage } from "./images";
import {
  ScriptRunError,
  type Align,
  type Element,
  type HeaderElement,
  type Image,
  type ListItem,
  type Paragraph as ParagraphEl,
  type Run,
  type RunObject,
  type Table as TableEl,
  type TableCell as TableCellEl,
  type TextScript,
} from "./types";

const TWIPS_PER_MM = 1440 / 25.4;
const PX_PER_MM = 96 / 25.4;
const twips = (mm: number) => Math.round(mm * TWIPS_PER_MM);
const hex = (c: string) => c.replace(/^#/, "").toUpperCase();

/** Paper sizes in millimetres, portrait. */
export const PAPER: Record<string, [number, number]> = {
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
};
export const DEFAULT_MARGIN_MM = 25.4;
/** Word's list levels. */
export const MAX_LIST_DEPTH = 9;

const ALIGN: Record<Align, (typeof AlignmentType)[keyof typeof AlignmentType]> = {
  left: AlignmentType.LEFT,
  center: AlignmentType.CENTER,
  right: AlignmentType.RIGHT,
  justify: AlignmentType.JUSTIFIED,
};

const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];
/** Heading sizes in points, levels 1 to 6. */
const HEADING_PT = [20, 16, 14, 13, 12, 11];

const LINK_COLOR = "0563C1";

/** Run formatting inherited from the paragraph, cell or heading. */
type Inherit = Omit<RunObject, "text" | "field" | "link">;

class TextWriter {
  private listCount = 0;
  /** Width of the text area in mm, for default table and image widths. */
  readonly textWidth: number;

  constructor(private readonly script: TextScript) {
    const [w, h] = PAPER[script.page?.size ?? "A4"]!;
    const landscape = script.page?.orientation === "landscape";
    const m = this.margins();
    this.textWidth = Math.max(10, (landscape ? Math.max(w, h) : Math.min(w, h)) - m.left - m.right);
  }

  margins() {
    const mg = this.script.page?.margins;
    const d = typeof mg === "number" ? mg : DEFAULT_MARGIN_MM;
    const o = typeof mg === "object" && mg ? mg : {};
    return { top: o.top ?? d, right: o.right ?? d, bottom: o.bottom ?? d, left: o.left ?? d };
  }

  // ---- runs ----

  private textRuns(text: string, fmt: Inherit, link?: string): TextRun[] {
    const opts = {
      bold: fmt.bold,
      italics: fmt.italic,
      underline: fmt.underline || (link && fmt.underline === undefined) ? {} : undefined,
      strike: fmt.strike,
      color: fmt.color ? hex(fmt.color) : link ? LINK_COLOR : undefined,
      size: fmt.size ? Math.round(fmt.size * 2) : undefined,
      font: fmt.font,
    };
    return text.split("\n").map((line, i) => new TextRun({ ...opts, text: line, break: i > 0 ? 1 : undefined }));
  }

  private run(r: Run, inherit: Inherit): ParagraphChild[] {
    const o: RunObject = typeof r === "string" ? { text: r } : r;
    const fmt: Inherit = { ...inherit, ...stripUndefined({ bold: o.bold, italic: o.italic, underline: o.underline, strike: o.strike, color: o.color, size: o.size, font: o.font }) };
    if (o.field) {
      return [
        new TextRun({
          bold: fmt.bold,
          italics: fmt.italic,
          underline: fmt.underline ? {} : undefined,
          strike: fmt.strike,
          color: fmt.color ? hex(fmt.color) : undefined,
          size: fmt.size ? Math.round(fmt.size * 2) : undefined,
          font: fmt.font,
          children: [o.field === "page" ? PageNumber.CURRENT : PageNumber.TOTAL_PAGES],
        }),
      ];
    }
    const runs = this.textRuns(o.text ?? "", fmt, o.link);
    return o.link ? [new ExternalHyperlink({ link: o.link, children: runs })] : runs;
  }

  private inline(holder: { text?: string; runs?: Run[] }, inherit: Inherit): ParagraphChild[] {
    if (holder.runs) return holder.runs.flatMap((r) => this.run(r, inherit));
    if (holder.text !== undefined) return this.textRuns(holder.text, inherit);
    return [];
  }

  // ---- blocks ----

  private paragraph(el: ParagraphEl): Paragraph {
    const inherit: Inherit = { bold: el.bold, italic: el.italic, underline: el.underline, color: el.color, size: el.size, font: el.font };
    return new Paragraph({ children: this.inline(el, inherit), alignment: el.align ? ALIGN[el.align] : undefined });
  }

  private list(items: ListItem[], ordered: boolean, path: string): Paragraph[] {
    const instance = ++this.listCount;
    const out: Paragraph[] = [];
    const walk = (list: ListItem[], level: number, at: string) => {
      list.forEach((item, i) => {
        const itemPath = `${at}/${i}`;
        if (level >= MAX_LIST_DEPTH) throw new ScriptRunError(itemPath, `lists nest at most ${MAX_LIST_DEPTH} levels deep`);
        const holder = typeof item === "string" ? { text: item } : item;
        out.push(
          new Paragraph({
            children: this.inline(holder, {}),
            numbering: { reference: ordered ? "svc-number" : "svc-bullet", level, instance },
          }),
        );
        if (typeof item === "object" && item.items) walk(item.items, level + 1, `${itemPath}/items`);
      });
    };
    walk(items, 0, `${path}/items`);
    return out;
  }

  private table(el: TableEl, path: string): Table {
    const rows = [
      ...(el.header ? [{ cells: el.header, path: `${path}/header` }] : []),
      ...el.rows.map((cells, i) => ({ cells, path: `${path}/rows/${i}` })),
    ];
    const grid = layoutTable<TableCellEl>({ rows, columns: el.columns?.length, path });
    const n = grid.columns;
    const widthsMm = el.columns ?? Array<number>(n).fill(this.textWidth / n);
    const widths = widthsMm.map(twips);
    const span = (col: number, cols: number) => widths.slice(col, col + cols).reduce((a, b) => a + b, 0);
    const headerRows = el.header ? 1 : 0;
    const none = { style: BorderStyle.NONE, size: 0, color: "auto" };
    const thin = { style: BorderStyle.SINGLE, size: 4, color: "000000" };
    const border = el.borders === false ? none : thin;

    const tableRows = grid.slots.map((slots, r) => {
      const isHeader = r < headerRows;
      const cells: TableCell[] = [];
      for (let c = 0; c < n; ) {
        const slot = slots[c]!;
        if (slot.kind === "cell") {
          const { cell, colspan, rowspan } = slot.at;
          const o = typeof cell === "object" ? cell : { text: String(cell) };
          const fill = o.fill ?? (isHeader ? el.header_fill : undefined);
          const inherit: Inherit = { bold: o.bold ?? (isHeader ? true : undefined), italic: o.italic, color: o.color, size: o.size ?? el.size };
          cells.push(
            new TableCell({
              children: [new Paragraph({ children: this.inline(o, inherit), alignment: o.align ? ALIGN[o.align] : undefined })],
              width: { size: span(c, colspan), type: WidthType.DXA },
              columnSpan: colspan > 1 ? colspan : undefined,
              verticalMerge: rowspan > 1 ? VerticalMergeType.RESTART : undefined,
              shading: fill ? { fill: hex(fill), type: ShadingType.CLEAR, color: "auto" } : undefined,
            }),
          );
          c += colspan;
        } else if (slot.kind === "covered" && slot.by.col === c) {
          // The continuation of a cell merged down from a row above.
          const by = slot.by;
          const o = typeof by.cell === "object" ? by.cell : {};
          const fill = o.fill ?? (by.row < headerRows ? el.header_fill : undefined);
          cells.push(
            new TableCell({
              children: [new Paragraph({})],
              width: { size: span(c, by.colspan), type: WidthType.DXA },
              columnSpan: by.colspan > 1 ? by.colspan : undefined,
              verticalMerge: VerticalMergeType.CONTINUE,
              shading: fill ? { fill: hex(fill), type: ShadingType.CLEAR, color: "auto" } : undefined,
            }),
          );
          c += by.colspan;
        } else {
          cells.push(new TableCell({ children: [new Paragraph({})], width: { size: widths[c]!, type: WidthType.DXA } }));
          c += 1;
        }
      }
      return new TableRow({ children: cells, tableHeader: isHeader || undefined, cantSplit: true });
    });

    return new Table({
      rows: tableRows,
      width: { size: widths.reduce((a, b) => a + b, 0), type: WidthType.DXA },
      columnWidths: widths,
      layout: TableLayoutType.FIXED,
      borders: { top: border, bottom: border, left: border, right: border, insideHorizontal: border, insideVertical: border },
    });
  }

  private image(el: Image, path: string): Paragraph {
    const img = decodeImage(el.data, path);
    const natural = { w: img.width / PX_PER_MM, h: img.height / PX_PER_MM };
    let w: number, h: number;
    if (el.width && el.height) [w, h] = [el.width, el.height];
    else if (el.width) [w, h] = [el.width, (el.width * img.height) / img.width];
    else if (el.height) [w, h] = [(el.height * img.width) / img.height, el.height];
    else {
      const scale = Math.min(1, this.textWidth / natural.w);
      [w, h] = [natural.w * scale, natural.h * scale];
    }
    const run = new ImageRun({
      type: img.type,
      data: img.bytes,
      transformation: { width: Math.max(1, Math.round(w * PX_PER_MM)), height: Math.max(1, Math.round(h * PX_PER_MM)) },
      altText: el.alt ? { name: "image", description: el.alt, title: el.alt } : undefined,
    });
    return new Paragraph({ children: [run], alignment: el.align ? ALIGN[el.align] : undefined });
  }

  block(el: Element | HeaderElement, path: string): (Paragraph | Table)[] {
    switch (el.type) {
      case "heading": {
        const level = Math.min(6, Math.max(1, el.level ?? 1));
        return [
          new Paragraph({
            heading: HEADINGS[level - 1],
            children: this.inline(el, { color: el.color, font: el.font }),
            alignment: el.align ? ALIGN[el.align] : undefined,
          }),
        ];
      }
      case "paragraph":
        return [this.paragraph(el)];
      case "list":
        return this.list(el.items, el.ordered === true, path);
      case "table":
        // Word needs a paragraph after a table that ends a cell, header or the document.
        return [this.table(el, path)];
      case "image":
        return [this.image(el, path)];
      case "page_break":
        return [new Paragraph({ children: [new PageBreak()] })];
    }
  }

  blocks(els: (Element | HeaderElement)[], at: string): (Paragraph | Table)[] {
    const out = els.flatMap((el, i) => this.block(el, `${at}/${i}`));
    if (out.length && out.at(-1) instanceof Table) out.push(new Paragraph({}));
    return out;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function numberingLevels(ordered: boolean) {
  const bullets = ["\u2022", "\u25E6", "\u25AA"];
  const formats = [LevelFormat.DECIMAL, LevelFormat.LOWER_LETTER, LevelFormat.LOWER_ROMAN];
  return Array.from({ length: MAX_LIST_DEPTH }, (_, level) => ({
    level,
    format: ordered ? formats[level % 3] : LevelFormat.BULLET,
    text: ordered ? `%${level + 1}.` : bullets[level % 3],
    alignment: AlignmentType.LEFT,
    style: { paragraph: { indent: { left: 720 + 360 * level, hanging: 360 } } },
  }));
}

export async function writeText(script: TextScript): Promise<Uint8Array> {
  const w = new TextWriter(script);
  const [pw, ph] = PAPER[script.page?.size ?? "A4"]!;
  const landscape = script.page?.orientation === "landscape";
  const m = w.margins();
  const body = w.blocks(script.body, "/body");
  const header = script.header?.length ? new Header({ children: w.blocks(script.header, "/header") }) : undefined;
  const footer = script.footer?.length ? new Footer({ children: w.blocks(script.footer, "/footer") }) : undefined;
  const d = script.defaults ?? {};
  const props = script.properties ?? {};

  const heading = (level: number) => ({
    run: { size: HEADING_PT[level]! * 2, bold: true, font: d.font, color: d.color ? hex(d.color) : undefined },
    paragraph: { spacing: { before: level === 0 ? 360 : 240, after: 120 }, keepNext: true, keepLines: true },
  });

  const doc = new Document({
    title: props.title,
    subject: props.subject,
    creator: props.author ?? "svc",
    lastModifiedBy: props.author ?? "svc",
    styles: {
      default: {
        document: {
          run: { font: d.font ?? "Calibri", size: Math.round((d.size ?? 11) * 2), color: d.color ? hex(d.color) : undefined },
          paragraph: { spacing: { after: 120 } },
        },
        heading1: heading(0),
        heading2: heading(1),
        heading3: heading(2),
        heading4: heading(3),
        heading5: heading(4),
        heading6: heading(5),
      },
    },
    numbering: {
      config: [
        { reference: "svc-bullet", levels: numberingLevels(false) },
        { reference: "svc-number", levels: numberingLevels(true) },
      ],
    },
    sections: [
      {
        properties: {
          page: {
            // Portrait dimensions: the library swaps them for landscape.
            size: { width: twips(Math.min(pw, ph)), height: twips(Math.max(pw, ph)), orientation: landscape ? PageOrientation.LANDSCAPE : PageOrientation.PORTRAIT },
            margin: { top: twips(m.top), right: twips(m.right), bottom: twips(m.bottom), left: twips(m.left), header: twips(Math.min(12.7, m.top / 2)), footer: twips(Math.min(12.7, m.bottom / 2)) },
          },
        },
        headers: header ? { default: header } : undefined,
        footers: footer ? { default: footer } : undefined,
        children: body.length ? body : [new Paragraph({})],
      },
    ],
  });
  const buf = await Packer.toBuffer(doc);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
