// Reading what the editor stored, for the browser tests: a sheet's cells and their formats, a
// deck's slides, and going to a cell as a person does.
import type { Frame } from "playwright-core";
import { part } from "./interface";

export interface StoredCell {
  value: string;
  formula?: string;
  style: number;
}

/** The cells of a stored xlsx's sheet (1-based), shared strings resolved. */
export function sheetCells(bytes: Uint8Array, sheet = 1): Map<string, StoredCell> {
  let strings: string[] = [];
  try {
    strings = [...part(bytes, "xl/sharedStrings.xml").matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ""));
  } catch {
    // a workbook of numbers only has no shared strings
  }
  const out = new Map<string, StoredCell>();
  for (const m of part(bytes, `xl/worksheets/sheet${sheet}.xml`).matchAll(/<c r="([A-Z]+\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
    const attrs = m[2]!, body = m[3] ?? "";
    const v = /<v>([^<]*)<\/v>/.exec(body)?.[1] ?? "";
    const f = /<f[^>]*>([^<]*)<\/f>/.exec(body)?.[1];
    const shared = / t="s"/.test(attrs);
    out.set(m[1]!, { value: shared ? strings[Number(v)]! : v, formula: f, style: Number(/ s="(\d+)"/.exec(attrs)?.[1] ?? 0) });
  }
  return out;
}

/** The cell format (xf) a stored cell uses, with its number format code and its border. */
export function cellFormat(bytes: Uint8Array, cell: StoredCell): { xf: string; numFmt: string; border: string } {
  const styles = part(bytes, "xl/styles.xml");
  const xfs = [.../<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)![1]!.matchAll(/<xf [\s\S]*?(?:\/>|<\/xf>)/g)].map((m) => m[0]);
  const xf = xfs[cell.style]!;
  const id = /numFmtId="(\d+)"/.exec(xf)?.[1] ?? "0";
  const custom = new RegExp(`<numFmt numFmtId="${id}" formatCode="([^"]*)"`).exec(styles)?.[1];
  const borders = [.../<borders[^>]*>([\s\S]*?)<\/borders>/.exec(styles)![1]!.matchAll(/<border[ >][\s\S]*?<\/border>|<border\/>/g)].map((m) => m[0]);
  return { xf, numFmt: custom ?? `builtin ${id}`, border: borders[Number(/borderId="(\d+)"/.exec(xf)?.[1] ?? 0)] ?? "" };
}

/** The XML of each slide of a stored pptx, in the deck's order. */
function slidesXml(bytes: Uint8Array): string[] {
  const rels = new Map<string, string>();
  for (const m of part(bytes, "ppt/_rels/presentation.xml.rels").matchAll(/<Relationship [^>]*>/g)) {
    const id = /Id="(\w+)"/.exec(m[0])?.[1], target = /Target="([^"]+)"/.exec(m[0])?.[1];
    if (id && target) rels.set(id, target);
  }
  const ids = [...part(bytes, "ppt/presentation.xml").matchAll(/<p:sldId [^>]*r:id="(\w+)"/g)].map((m) => m[1]!);
  return ids.map((id) => part(bytes, `ppt/${rels.get(id)!.replace(/^\/?(ppt\/)?/, "")}`));
}

/** The text of each slide of a stored pptx, in the deck's order. */
export const slideTexts = (bytes: Uint8Array): string[] => slidesXml(bytes).map((x) => [...x.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]).join(" "));

/** Whether each slide of a stored pptx holds a picture, in the deck's order. */
export const slidesWithPictures = (bytes: Uint8Array): boolean[] => slidesXml(bytes).map((x) => x.includes("<p:pic>"));

/** Goes to a cell or a range with the address box, as a person does; waits for the engine to get there. */
export async function goTo(frame: Frame, ref: string): Promise<void> {
  await frame.fill("#address", ref);
  await frame.press("#address", "Enter");
  const first = ref.split(":")[0]!;
  await frame.waitForFunction((r) => (document.getElementById("address") as HTMLInputElement).value.startsWith(r), first, { polling: 25 });
}
