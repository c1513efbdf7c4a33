// The slideshow: the deck as a show sees it, and each slide as the show draws it.

import type { LokDocument } from "../lok";
import type { KitRequestOf, KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { encodeTilePng } from "../png";
import { num, useView } from "./state";

/** The largest slide a show asks for, each way (a 4K screen). */
const MAX_SLIDE_PX = 3840;

/**
 * A slide rendered for the show: LibreOffice gives it as layers (background, master page, the
 * slide's objects; JSON-only layers such as text-field placeholders are not drawn), each in
 * premultiplied BGRA, laid one over the other here on an opaque white slide.
 */
function renderSlide(d: LokDocument, part: number, width: number, height: number): { part: number; width: number; height: number; png: string } {
  const size = d.createSlideRenderer(part, width, height, true, true);
  if (!size) throw new Error("the slide cannot be rendered");
  const out = new Uint8Array(size.width * size.height * 4).fill(255);
  const layer = new Uint8Array(out.length);
  try {
    for (let i = 0; i < 64; i++) {
      layer.fill(0);
      const l = d.renderNextSlideLayer(layer);
      if (l.done) break;
      if (!l.bitmap) continue;
      for (let p = 0; p < out.length; p += 4) {
        const a = layer[p + 3]!;
        if (a === 0) continue;
        if (a === 255) {
          out[p] = layer[p]!; out[p + 1] = layer[p + 1]!; out[p + 2] = layer[p + 2]!;
          continue;
        }
        const keep = 255 - a;
        out[p] = layer[p]! + ((out[p]! * keep + 127) / 255 | 0);
        out[p + 1] = layer[p + 1]! + ((out[p + 1]! * keep + 127) / 255 | 0);
        out[p + 2] = layer[p + 2]! + ((out[p + 2]! * keep + 127) / 255 | 0);
      }
    }
  } finally {
    d.postSlideshowCleanup();
  }
  return { part, width: size.width, height: size.height, png: encodeTilePng(out, size.width, size.height, d.getTileMode()).toString("base64") };
}

/** `presentationinfo`: the deck as a show sees it. */
export async function presentationinfo(req: KitRequestOf<"presentationinfo">): Promise<KitResult<"presentationinfo">> {
  // The deck as a show sees it (LibreOffice's JSON: its slides, hidden ones left out).
  const d = useView(req.viewId);
  await engineIdle();
  return { json: d.has("getPresentationInfo") ? (d.getPresentationInfo() ?? "") : "" };
}

/** `slideimage`: a slide as the show draws it. */
export async function slideimage(req: KitRequestOf<"slideimage">): Promise<KitResult<"slideimage">> {
  // A slide as the show draws it (not the editing view: no caret, no "Click to add Text",
  // no field placeholders), composed of LibreOffice's layers on white, as a PNG.
  const d = useView(req.viewId);
  if (!d.has("createSlideRenderer")) throw new Error("this engine cannot render a slideshow (LibreOffice 24.2 or later can)");
  const part = num(req.part, "part");
  const width = Math.max(16, Math.min(num(req.width, "width"), MAX_SLIDE_PX)), height = Math.max(16, Math.min(num(req.height, "height"), MAX_SLIDE_PX));
  await engineIdle();
  return renderSlide(useView(req.viewId), part, width, height);
}
