// The viewport watched: when it scrolls or changes size, or the document moves in it, the canvas
// is laid out again and the tiles now visible are asked for.

import { layout } from "./canvas";
import { forgetGeometry, geometry } from "./geometry";
import { sizer, viewport } from "./page";
import { requestVisible } from "./tiles";

/** Lays out and asks again when the viewport scrolls or changes size, or the document moves in it. */
export function installViewport(): void {
  if (window.ResizeObserver) {
    const resized = new ResizeObserver(() => {
      const before = forgetGeometry();
      const now = geometry();
      if (before && (before.ox !== now.ox || before.oy !== now.oy || before.cw !== now.cw || before.ch !== now.ch)) { layout(); requestVisible(); }
    });
    resized.observe(viewport); resized.observe(sizer);
  }
  let scrollQueued = false;
  viewport.addEventListener("scroll", () => {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => { scrollQueued = false; layout(); requestVisible(); });
  });
  window.addEventListener("resize", () => { forgetGeometry(); layout(); requestVisible(); });
}
