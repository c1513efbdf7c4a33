// Keyboard shortcuts of the interface (before the editor sends keys to the engine).

import { requestDownload } from "./download";
import { openFind } from "./find";
import { setZoomFactor, zoomStep } from "./zoom";
import { listen } from "./dom";

export function installShortcuts(): void {
  listen(window, "keydown", (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if (!mod || e.altKey) return;
    const k = e.key.toLowerCase();
    let handled = true;
    if (k === "f") openFind(false);
    else if (k === "h") openFind(true);
    else if (k === "=" || k === "+") zoomStep(1);
    else if (k === "-") zoomStep(-1);
    else if (k === "0") setZoomFactor(1);
    else if (k === "p") requestDownload("pdf", "print");
    else handled = false;
    if (handled) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);
}
