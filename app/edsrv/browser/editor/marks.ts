// Named sets of highlighted rectangles (twips) over the document, such as the find results.

import { place } from "./geometry";
import { overlays } from "./page";
import { watch, type Rect } from "./state";

const markSets: Record<string, Rect[]> = {};

export function showMarks(name: string, rects: Rect[]): void {
  let box = overlays.querySelector<HTMLDivElement>('.marks[data-name="' + name + '"]');
  if (!box) { box = document.createElement("div"); box.className = "marks"; box.dataset.name = name; overlays.appendChild(box); }
  box.innerHTML = "";
  markSets[name] = rects;
  rects.forEach((r) => { const d = document.createElement("div"); d.className = "mark"; place(d, r); box.appendChild(d); });
  if (!rects.length) delete markSets[name];
}

/** Every set placed again at a new zoom. */
export function installMarks(): void {
  watch(["twipsPerPx"], () => { Object.keys(markSets).forEach((name) => { showMarks(name, markSets[name]!); }); });
}
