// A `status:` of the view: the document's size, type and parts. The first one opens the page:
// the interface is built, the first screen asked for, the host told.

import type { DocStatus } from "../../protocol/frames";
import { layout } from "./canvas";
import { clearOverlays } from "./cursors";
import { emit } from "./events";
import { forgetGeometry, setDocPx } from "./geometry";
import { post } from "./host";
import { focusDocument, sizer, viewport } from "./page";
import { buildParts } from "./parts";
import { edState as S, editor } from "./state";
import { awaitFirstPaint, requestVisible } from "./tiles";

export function onStatus(st: DocStatus): void {
  const first = !editor.status, partChanged = editor.status && editor.status.selectedPart !== st.selectedPart;
  editor.status = S.status = st;
  let w = Math.ceil(st.width / editor.twipsPerPx), h = Math.ceil(st.height / editor.twipsPerPx);
  if (st.type === "spreadsheet") {
    // The used area, at least a few screens of empty cells to click into.
    w = Math.max(w, viewport.clientWidth * 2); h = Math.max(h, viewport.clientHeight * 3);
  }
  setDocPx(Math.max(w, 1), Math.max(h, 1));
  sizer.style.width = Math.max(w, 1) + "px"; sizer.style.height = Math.max(h, 1) + "px";
  buildParts(st);
  if (partChanged) clearOverlays();
  // The interface (toolbars, panels) is built before the first layout: the first tiles asked for
  // are those of the view's final size, not of the larger area before the toolbars took their place.
  if (first) emit("firststatus", st);
  forgetGeometry(); // the interface may have just been built around the viewport, or the page resized
  layout();
  requestVisible();
  if (first) {
    editor.docLoaded = S.loaded = true;
    awaitFirstPaint();
    post("App_LoadingStatus", { Status: "Document_Loaded", DocumentLoadedTime: Date.now() });
    focusDocument();
  }
}
