// The toolbar of presentations and drawings, and the slide panel: thumbnails painted by the
// engine for each slide.

import { movePartsCommand, thumbnailCommand, type DocStatus } from "../../protocol/frames";
import { button, el, longArg, menuButton, named, sep, toggleButton } from "./controls";
import { addTo } from "./ribbon";
import { startSlideshow } from "./slideshow";
import { api, S } from "./state";
import { T } from "./texts";
import { chart, clipboardGroup, insertImage, insertLink, insertTable, paragraphAlign, shapes, specialCharacters, spelling, textBox, textFormatting } from "./toolbar-text";
import { aria, byId, listen } from "./dom";

let slidePanel: HTMLElement | null = null, thumbTimer: ReturnType<typeof setTimeout> | undefined;
let thumbs: Record<string, HTMLImageElement> = {}, thumbDirty: Record<string, boolean> = {};

/** Impress's layouts (AutoLayout numbers, as .uno:AssignLayout takes them). */
const LAYOUTS: [keyof typeof T, number][] = [["layoutBlank", 20], ["layoutTitle", 0], ["layoutTitleContent", 1], ["layoutTwoContent", 3], ["layoutTitleOnly", 19], ["layoutCentered", 32]];

export function buildPresentation(): void {
  addTo("home", ...clipboardGroup(".uno:SetDefault"), sep(), ...textFormatting(false, true), sep(), ...paragraphAlign(),
    toggleButton(".uno:DefaultBullet", T.bullets),
    toggleButton(".uno:DefaultNumbering", T.numbering));
  addTo("insert", insertImage(), insertTable(), chart(), shapes(), textBox(".uno:Text"), sep(), insertLink(), specialCharacters());
  // LibreOffice's own dialogs (interface/dialogs.ts shows them).
  addTo("format",
    button(".uno:FontDialog", T.characterDialog),
    button(".uno:ParagraphDialog", T.paragraphDialog));
  addTo("slide",
    button(".uno:InsertPage", T.newSlide),
    button(".uno:DuplicatePage", T.duplicateSlide),
    button(".uno:DeletePage", T.deleteSlide),
    button("moveup", T.slideUp, { click: () => { moveSlide(-1); } }),
    button("movedown", T.slideDown, { click: () => { moveSlide(1); } }),
    menuButton(".uno:AssignLayout", T.slideLayout, LAYOUTS.map(([key, n]) => ({ cmd: ".uno:AssignLayout", label: T[key] as string, args: { WhatLayout: longArg(n) } }))),
    sep(),
    button("slideshow", T.slideshow, { view: true, click: startSlideshow }));
  addTo("review", spelling());
  buildSlidePanel();
}

function moveSlide(d: number): void {
  const st = S.status;
  if (!st) return;
  const i = st.selectedPart, to = d < 0 ? i - 1 : i + 2;
  if (to < 0 || to > st.parts) return;
  api.send(movePartsCommand(i, to));
  api.focus();
}

function buildSlidePanel(): void {
  const panel = (slidePanel = el("nav", { id: "slides", "aria-label": T.slides }));
  const main = el("div", { id: "main" });
  const viewport = byId("viewport")!;
  viewport.parentNode!.insertBefore(main, viewport);
  main.append(panel, viewport);
  dragToReorder(panel);
  api.on("thumbnail", (f) => {
    const img = thumbs[f.part];
    if (img) { img.src = f.dataUrl; img.dataset.loaded = "1"; }
  });
  api.on("invalidatetiles", (f) => {
    const p = String(f.part ?? (S.status ? S.status.selectedPart : 0));
    thumbDirty[p] = true;
    scheduleThumbs(600);
  });
}

/**
 * A thumbnail dragged onto another moves its slide before or after it (the half of the thumbnail
 * the pointer is over, shown by a line there), as in Impress's slide pane; the slide tab's move up
 * and down stay for the keyboard.
 */
function dragToReorder(panel: HTMLElement): void {
  let from = -1, to = -1;
  const thumbAt = (e: DragEvent) => (e.target as Element).closest<HTMLElement>(".thumb");
  const unmark = () => { panel.querySelectorAll(".drop-before, .drop-after").forEach((t) => { t.classList.remove("drop-before", "drop-after"); }); };
  listen(panel, "dragstart", (e) => {
    const t = thumbAt(e);
    if (!t || S.readOnly) { e.preventDefault(); return; }
    from = [...panel.children].indexOf(t);
    e.dataTransfer!.effectAllowed = "move";
    e.dataTransfer!.setData("text/plain", String(from + 1));
  });
  listen(panel, "dragover", (e) => {
    const t = thumbAt(e);
    if (from < 0 || !t) return;
    e.preventDefault();
    const r = t.getBoundingClientRect(), after = e.clientY > r.top + r.height / 2;
    to = [...panel.children].indexOf(t) + (after ? 1 : 0);
    unmark();
    t.classList.add(after ? "drop-after" : "drop-before");
  });
  listen(panel, "drop", (e) => {
    e.preventDefault();
    unmark();
    // Before itself or after itself: the slide stays where it is.
    if (from >= 0 && to >= 0 && to !== from && to !== from + 1) api.send(movePartsCommand(from, to));
    from = to = -1;
  });
  listen(panel, "dragend", () => { unmark(); from = to = -1; });
}

/** The panel follows the status: a button per slide, the current one marked. */
export function renderSlidePanel(st: DocStatus): void {
  if (!slidePanel) return;
  const panel = slidePanel;
  const count = st.parts;
  if (panel.childElementCount !== count) {
    panel.innerHTML = ""; thumbs = {};
    for (let i = 0; i < count; i++) {
      const img = el("img", { alt: "", width: "160" });
      const b = el("button", { "class": "thumb", draggable: "true", ...named(T.slide + " " + (i + 1)) }, [el("span", { "class": "thumb-n", text: String(i + 1) }), img]);
      listen(b, "click", () => { api.switchPart(i); });
      thumbs[i] = img; thumbDirty[i] = true;
      panel.append(b);
    }
  }
  [...panel.children].forEach((b, i) => { b.classList.toggle("active", i === st.selectedPart); aria(b, "current", i === st.selectedPart); });
  scheduleThumbs(50);
}

function scheduleThumbs(ms: number): void {
  clearTimeout(thumbTimer);
  thumbTimer = setTimeout(() => {
    Object.keys(thumbDirty).forEach((p) => { if (thumbs[p]) api.send(thumbnailCommand(p, 160)); });
    thumbDirty = {};
  }, ms);
}
