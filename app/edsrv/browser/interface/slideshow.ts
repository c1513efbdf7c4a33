// The slideshow: the deck full screen, one slide fitted, keys and clicks move on.

import { api, S } from "./state";
import { fitPage } from "./zoom";

let showing = false, zoomBefore = 15;

export function startSlideshow(): void {
  if (showing) return;
  showing = true; zoomBefore = api.zoom();
  document.body.classList.add("slideshow");
  const v = document.getElementById("viewport")!;
  const go = () => { fitPage(); };
  if (v.requestFullscreen) v.requestFullscreen().then(go, go); else go();
}

function stopSlideshow(): void {
  if (!showing) return;
  showing = false;
  document.body.classList.remove("slideshow");
  if (document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(() => {});
  api.setZoom(zoomBefore);
}

export function installSlideshow(): void {
  document.addEventListener("fullscreenchange", () => { if (!document.fullscreenElement && showing) stopSlideshow(); else if (showing) fitPage(); });
  window.addEventListener("keydown", (e) => {
    if (!showing) return;
    const st = S.status, i = st ? st.selectedPart : 0;
    if (["ArrowRight", "ArrowDown", "PageDown", " ", "Enter"].indexOf(e.key) >= 0) { if (st && i + 1 < st.parts) api.switchPart(i + 1); }
    else if (["ArrowLeft", "ArrowUp", "PageUp", "Backspace"].indexOf(e.key) >= 0) { if (i > 0) api.switchPart(i - 1); }
    else if (e.key === "Escape") stopSlideshow();
    else return;
    e.preventDefault(); e.stopImmediatePropagation();
  }, true);
}
