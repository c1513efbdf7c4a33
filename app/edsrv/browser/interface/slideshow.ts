// The slideshow: the deck full screen, each slide as a show draws it — LibreOffice renders it for
// the show (slideimage), not the editing view, so there is no caret, no "Click to add Text" and no
// field placeholders. Keys, clicks and taps move on; Escape ends it, back on the slide shown last.
// The slide after the one shown is asked for ahead, so moving on shows it at once. A slide is
// drawn once per show (another person's edit during it shows in the next show).

import { presentationInfoCommand, type PresentationInfo, type SlideImage } from "../../protocol/frames";
import { el } from "./controls";
import { api, S } from "./state";
import { T } from "./texts";
import { listen } from "./dom";

let showing = false;
/** The slides the show goes through (hidden ones left out), and where it is among them. */
let order: number[] = [];
let at = 0;
const images = new Map<number, string>();
const asked = new Set<number>();

const screenImage = el("img", { "class": "show-slide", alt: "" });
const show = el("div", { id: "slideshow", role: "dialog", "aria-modal": "true", "aria-label": T.slideshow, tabindex: "-1", hidden: "" }, [screenImage]);

/** The size to ask for: the screen's, in device pixels (LibreOffice keeps the slide's aspect). */
function wanted(): { width: number; height: number } {
  const ratio = window.devicePixelRatio || 1;
  return { width: Math.min(3840, Math.round(show.clientWidth * ratio) || 1280), height: Math.min(3840, Math.round(show.clientHeight * ratio) || 720) };
}

function ask(part: number): void {
  if (part === undefined || asked.has(part) || images.has(part)) return;
  asked.add(part);
  const { width, height } = wanted();
  api.send(api.frames.slideImage(part, width, height));
}

function display(): void {
  const part = order[at];
  if (part === undefined) return;
  const src = images.get(part);
  // The picture and the slide it names change together (the last slide stays until the next arrives).
  if (src) {
    screenImage.src = src;
    screenImage.dataset.part = String(part);
    screenImage.alt = T.slideOf(at + 1, order.length);
  } else ask(part);
  ask(order[at + 1]!);
  // The editing view follows, so that the show ends where it was.
  if (S.status && S.status.selectedPart !== part) api.switchPart(part);
}

function move(step: number): void {
  const next = at + step;
  if (next < 0) return;
  if (next >= order.length) { stopSlideshow(); return; }
  at = next;
  display();
}

export function startSlideshow(): void {
  if (showing) return;
  showing = true;
  images.clear();
  asked.clear();
  document.body.classList.add("slideshow");
  show.hidden = false;
  screenImage.removeAttribute("src");
  show.focus();
  const current = S.status ? S.status.selectedPart : 0;
  // Until the deck's show order is known: every slide, from the current one.
  order = Array.from({ length: S.status ? S.status.parts : 1 }, (_, i) => i);
  at = Math.max(0, order.indexOf(current));
  api.send(presentationInfoCommand());
  const go = () => { display(); };
  if (show.requestFullscreen) show.requestFullscreen().then(go, go); else go();
}

function stopSlideshow(): void {
  if (!showing) return;
  showing = false;
  show.hidden = true;
  document.body.classList.remove("slideshow");
  if (document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(() => {});
  api.focus();
}

export function installSlideshow(): void {
  document.body.append(show);
  listen(document, "fullscreenchange", () => { if (!document.fullscreenElement && showing) stopSlideshow(); });
  api.on("presentationinfo", (f) => {
    if (!showing) return;
    const info: PresentationInfo = f.info;
    const slides = (info.slides || []).filter((s) => !s.hidden).map((s) => s.index);
    if (!slides.length) return;
    const part = order[at] ?? 0;
    order = slides;
    at = Math.max(0, slides.indexOf(part));
    display();
  });
  api.on("slideimage", (f) => {
    const img: SlideImage = f.image;
    asked.delete(img.part);
    images.set(img.part, "data:image/png;base64," + img.png);
    if (showing && order[at] === img.part) display();
  });
  listen(show, "click", (e) => { move(e.button === 2 ? -1 : 1); });
  listen(show, "contextmenu", (e) => { e.preventDefault(); move(-1); });
  listen(window, "keydown", (e) => {
    if (!showing) return;
    if (["ArrowRight", "ArrowDown", "PageDown", " ", "Enter", "n"].includes(e.key)) move(1);
    else if (["ArrowLeft", "ArrowUp", "PageUp", "Backspace", "p"].includes(e.key)) move(-1);
    else if (e.key === "Home") { at = 0; display(); }
    else if (e.key === "End") { at = order.length - 1; display(); }
    else if (e.key === "Escape") stopSlideshow();
    else return;
    e.preventDefault(); e.stopImmediatePropagation();
  }, true);
}
