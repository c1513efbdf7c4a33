// A `status:` of the view: the document's size, type and parts. The first one opens the page:
// the interface is built, the first screen asked for, the host told. The document's size in pixels
// follows the zoom too.

import type { DocStatus } from "../../protocol/frames";
import { layout } from "./canvas";
import { clearOverlays } from "./cursors";
import { emit } from "./events";
import { handle } from "./frames-in";
import { forgetGeometry, revealPending, setDocPx } from "./geometry";
import { post } from "./host";
import { focusDocument, sizer, viewport } from "./page";
import { edState as S, mark, update, watch } from "./state";
import { awaitFirstPaint, requestVisible } from "./tiles";

/** The sizer given the document's size at the current zoom, the canvas laid out, the visible tiles asked for. */
function sizeDocument(st: DocStatus): void {
  let w = Math.ceil(st.width / S.twipsPerPx), h = Math.ceil(st.height / S.twipsPerPx);
  if (st.type === "spreadsheet") {
    // The used area, at least a few screens of empty cells to click into.
    w = Math.max(w, viewport.clientWidth * 2); h = Math.max(h, viewport.clientHeight * 3);
  }
  setDocPx(Math.max(w, 1), Math.max(h, 1));
  sizer.style.width = Math.max(w, 1) + "px"; sizer.style.height = Math.max(h, 1) + "px";
}

function onStatus(st: DocStatus): void {
  mark("status");
  const first = !S.status, partChanged = S.status && S.status.selectedPart !== st.selectedPart;
  sizeDocument(st);
  update({ status: st });
  if (partChanged) clearOverlays();
  // The interface (toolbars, panels) is built before the first layout: the first tiles asked for
  // are those of the view's final size, not of the larger area before the toolbars took their place.
  if (first) emit("firststatus", st);
  forgetGeometry(); // the interface may have just been built around the viewport, or the page resized
  revealPending();
  layout();
  requestVisible();
  if (first) {
    update({ loaded: true });
    awaitFirstPaint();
    post("App_LoadingStatus", { Status: "Document_Loaded", DocumentLoadedTime: Date.now() });
    focusDocument();
  }
}

export function installDocumentStatus(): void {
  handle("status", (f) => { onStatus(f.status); });
  watch(["twipsPerPx"], () => {
    if (!S.status) return;
    sizeDocument(S.status);
    forgetGeometry();
    layout();
    requestVisible();
  });
}
