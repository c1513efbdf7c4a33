// The editor's interface (docs/editing-server.md, "The interface"): a tabbed toolbar for the
// document's family (one row with a "more" menu in small frames), a formula bar for sheets, a slide panel for decks, find and replace, zoom,
// download and print, comments, the people in the document and a status bar, in the page's
// language. Built only on ed.js's hooks (window.edApi): every control sends a UNO command and
// shows the engine's state at the cursor (`statechanged:`), so nothing here keeps its own idea of
// the document. Each part lives in interface/; they are installed here in the order their
// listeners must run (the capturing keydown listeners: slideshow, menu, shortcuts).

import type { DocStatus } from "../protocol/frames";
import { buildComments } from "./interface/comments";
import { installContextMenu } from "./interface/context-menu";
import { installDialogs } from "./interface/dialogs";
import { installTunnelledWindows } from "./interface/tunnelled-windows";
import { installSidebar, toggleSidebar } from "./interface/sidebar";
import { button, sep, setOptions, showPictures, toggleButton } from "./interface/controls";
import { applyWopi, buildDownload, fillDownload, installDownloads, installWopiInfo } from "./interface/download";
import { buildFindBar, openFind } from "./interface/find";
import { installHostUi } from "./interface/host-ui";
import { installPeople, people } from "./interface/people";
import { installShortcuts } from "./interface/shortcuts";
import { installSlideshow } from "./interface/slideshow";
import { buildPresentation, renderSlidePanel } from "./interface/slides";
import { askHeaders } from "./interface/sheet-headers";
import { api, UI } from "./interface/state";
import { installStateChanges, installStatusBar, partPosition, statusbar } from "./interface/status-bar";
import { T } from "./interface/texts";
import { buildSheet } from "./interface/toolbar-sheet";
import { buildText, fontPicker, trackedChanges } from "./interface/toolbar-text";
import { actionsButton, addTo, head, installRibbon, isPhone, layoutRibbon, quick, ribbon, startTab } from "./interface/ribbon";
import { fitPage, fitWidth, PHONE_READING_ZOOM, installWheelZoom, installZoomFollowers, keepFitted, showZoom, zoomStep } from "./interface/zoom";
import { aria, byId } from "./interface/dom";

/** The screen reader's own key in the page's storage: the choice is remembered on this browser. */
const SCREEN_READER_KEY = "svc-screen-reader";

/**
 * Screen reader support (editor/screen-reader.ts): a toggle on the View tab, remembered, and on
 * from the first screen when it was on before.
 */
function screenReaderButton(): HTMLButtonElement {
  const b = button("screenreader", T.screenReader, { view: true, toggle: true, icon: "insertsound", click: () => { apply(!api.screenReader()); } });
  const apply = (on: boolean) => {
    api.setScreenReader(on);
    aria(b, "pressed", on);
    try { if (on) localStorage.setItem(SCREEN_READER_KEY, "1"); else localStorage.removeItem(SCREEN_READER_KEY); } catch { /* storage refused */ }
    api.focus();
  };
  let remembered = false;
  try { remembered = localStorage.getItem(SCREEN_READER_KEY) === "1"; } catch { /* storage refused */ }
  if (remembered) api.on("firstpaint", () => { apply(true); });
  return b;
}

/** LibreOffice's sidebar (interface/sidebar.ts), shown and hidden from the View tab. */
function sidebarButton(): HTMLButtonElement {
  const b = button("sidebar", T.sidebar, { toggle: true, icon: "sidebar", click: () => { aria(b, "pressed", toggleSidebar()); } });
  return b;
}

function install(): void {
  window.edUi = UI;
  installSlideshow();
  installZoomFollowers();
  installWheelZoom();
  installWopiInfo();
  installHostUi();
  installDownloads();
  installContextMenu();
  installDialogs();
  installTunnelledWindows();
  installSidebar();
  installPeople();
  installStatusBar();
  installStateChanges();
  installShortcuts();
  installRibbon();
  // Pictures also for a page whose document never paints (a failed load keeps its controls).
  setTimeout(showPictures, 3000);

  // ---- assembly, once the document's family is known
  let family: string | null = null;
  const toolbar = byId("toolbar")!;
  toolbar.after(ribbon);
  // The tabs beside the document's name, before undo, redo and save (Collabora's top bar).
  toolbar.insertBefore(head, byId("undo"));
  ribbon.after(buildFindBar());
  document.body.append(statusbar);
  api.on("firststatus", (st) => {
    if (family) return;
    family = st.type;
    document.body.classList.add("family-" + family);
    if (family === "text") buildText();
    else if (family === "spreadsheet") buildSheet();
    else if (family === "presentation" || family === "drawing") buildPresentation();
    if (family === "text") {
      const [addComment, commentsPanel] = buildComments();
      addTo("review", addComment!, commentsPanel!, sep(), ...trackedChanges());
    }
    const viewButton = (id: string, label: string, click: () => void) => button(id, label, { view: true, click });
    addTo("view",
      viewButton("zoomout", T.zoomOut, () => { zoomStep(-1); }),
      viewButton("zoomin", T.zoomIn, () => { zoomStep(1); }),
      viewButton("fitwidth", T.fitWidth, () => { fitWidth(); }),
      viewButton("fitpage", T.fitPage, fitPage));
    if (family === "text") addTo("view", sep(), toggleButton(".uno:ControlCodes", T.formattingMarks));
    addTo("view", sep(), screenReaderButton(), sidebarButton());
    if (family === "spreadsheet") addTo("view", sep(), toggleButton(".uno:ToggleSheetGrid", T.gridLines));
    quick.append(button("find", T.find, { view: true, icon: "recsearch", click: () => { openFind(false); } }));
    buildDownload().forEach((c) => quick.append(c));
    // On a phone, find, download and print are one "actions" button's sheet (the header row
    // would not hold them beside undo, redo and save).
    head.append(actionsButton());
    fillDownload(family);
    applyWopi();
    startTab();
    toolbar.append(people);
    showZoom();
    // A slide is shown whole, as in every presentation program (before the first tiles are asked).
    if (family === "presentation" || family === "drawing") { fitPage(); keepFitted(); }
    // A page of text is read across a phone's width, not cut off at 100 %, yet never smaller than
    // a reading size (then it scrolls sideways).
    else if (family === "text" && isPhone()) fitWidth(PHONE_READING_ZOOM);
  });
  // The font list is long to make; asked once the first screen is painted, it does not delay it.
  api.on("firstpaint", () => {
    showPictures();
    if (fontPicker()) api.send(api.frames.commandValues(".uno:CharFontName"));
    // The menus LibreOffice makes for this view (the spelling context menu) in the session's
    // language; English is the engine's own. After the first screen, which it does not delay.
    const lang = new URLSearchParams(location.search).get("lang");
    if (lang && !/^en\b/i.test(lang) && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(lang)) api.send("viewlanguage lang=" + lang);
  });
  api.on("perm", () => { layoutRibbon(); });
  api.on("status", (f) => {
    const st: DocStatus = f.status;
    partPosition(st);
    renderSlidePanel(st);
    askHeaders(0);
  });
  api.on("commandvalues", (f) => {
    const j = f.json as { commandName?: string; commandValues?: Record<string, unknown> };
    const fonts = fontPicker();
    if (j.commandName === ".uno:CharFontName" && j.commandValues && fonts) {
      const current = UI.state[".uno:CharFontName"];
      setOptions(fonts, Object.keys(j.commandValues).sort((x, y) => x.localeCompare(y)), current);
    }
  });
}

if (window.edApi) install();
