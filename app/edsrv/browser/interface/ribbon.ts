// The tabbed toolbar (Collabora's notebookbar, smaller): tabs per family (Home, Insert, Layout /
// Data / Slide, Review, View) in the page's top bar beside the document's name, with find, download
// and print always there; under it one row of the chosen tab's controls, what does not fit in a
// "more" menu at the row's end. Compact mode — a frame below 768 px wide, or the host's
// `ui.toolbar: "compact"` (ui_defaults UIMode=compact) — shows every tab's controls in that one row,
// without tabs.

import { closeMenus, div, el, icon, named, placeBy } from "./controls";
import { S } from "./state";
import { T } from "./texts";
import { aria, focused, listen, perFrame } from "./dom";

export type TabId = "home" | "insert" | "format" | "layout" | "data" | "slide" | "review" | "view";

interface Tab {
  id: TabId;
  tab: HTMLButtonElement;
  panel: HTMLDivElement;
  /** Its controls in order (they move into the "more" menu and back in compact mode). */
  items: Node[];
}

const tabs: Tab[] = [];
const tablist = el("div", { "class": "tb-tabs", role: "tablist", "aria-label": T.tabs });
const panels = div("tb-panels");
const moreMenu = el("div", { id: "tb-more-menu", "class": "tb-popup tb-more-menu", role: "group", "aria-label": T.more, hidden: "" });
/** A "more" button (`cmd` its name in data-cmd) that opens what does not fit. */
const moreOpener = (cmd: string): HTMLButtonElement =>
  el("button", { "class": "tb tb-" + cmd, "data-cmd": cmd, ...named(T.more), "aria-haspopup": "true", "aria-expanded": "false" }, [icon("morecontrols")]);
const moreButton = moreOpener("more");
moreButton.hidden = true;
/** What is always there, at the end of the tab row: find, download, print. */
export const quick = div("tb-quick");
/** The tabs and the controls always there: in the page's top bar (ui.ts puts them there). */
export const head = div("tb-head", [tablist, quick]);
/** The toolbar: the chosen tab's controls (every tab's, in one row, in compact mode). */
export const ribbon = el("div", { id: "ribbon", "aria-label": T.toolbar }, [div("tb-body", [panels, moreButton])]);
let active: TabId | null = null;
let compactForced = false;

const LABELS: Record<TabId, string> = { home: T.home, insert: T.insert, format: T.formatTab, layout: T.layout, data: T.data, slide: T.slideTab, review: T.review, view: T.view };

function tabOf(id: TabId): Tab {
  let t = tabs.find((x) => x.id === id);
  if (t) return t;
  const tab = el("button", { role: "tab", "class": "tb-tab", id: "tab-" + id, "data-tab": id, "aria-selected": "false", "aria-controls": "panel-" + id, text: LABELS[id] });
  const panel = el("div", { "class": "tb-panel", role: "toolbar", id: "panel-" + id, "data-tab-panel": id, "aria-label": LABELS[id], hidden: "" });
  listen(tab, "click", () => { selectTab(id); });
  tablist.append(tab);
  panels.append(panel);
  t = { id, tab, panel, items: [] };
  tabs.push(t);
  if (!active) selectTab(id);
  return t;
}

/** Adds controls to a tab (made on first use, in the order tabs are first used). */
export function addTo(id: TabId, ...nodes: Node[]): void {
  const t = tabOf(id);
  nodes.forEach((n) => { t.items.push(n); t.panel.append(n); });
}

export function selectTab(id: TabId): void {
  const changed = active !== null && active !== id;
  active = id;
  closeMenus();
  tabs.forEach((t) => {
    const on = t.id === id;
    aria(t.tab, "selected", on);
    t.tab.tabIndex = on ? 0 : -1;
    t.panel.hidden = !on;
  });
  if (changed) layoutRibbon();
}

/** A phone's width: one header row, the tools at the bottom (ui.css, `body.phone`). */
export const isPhone = (): boolean => window.innerWidth <= 600;

/**
 * The phone's "actions" button: it opens the controls that are always there on a wider screen
 * (find, download as, print) as a sheet under the header.
 */
export function actionsButton(): HTMLButtonElement {
  const b = moreOpener("actions");
  const close = () => { quick.classList.remove("open"); aria(b, "expanded", "false"); };
  listen(b, "click", () => {
    const open = !quick.classList.contains("open");
    closeMenus();
    quick.classList.toggle("open", open);
    aria(b, "expanded", open);
    if (open) quick.querySelector<HTMLElement>("button, select")?.focus();
  });
  // Choosing something in the sheet, or a tap elsewhere, closes it.
  listen(quick, "click", (e) => { if ((e.target as HTMLElement).closest("button")) close(); });
  listen(quick, "change", close);
  listen(window, "mousedown", (e) => { if (!quick.contains(e.target as Node) && !b.contains(e.target as Node)) close(); }, true);
  listen(window, "keydown", (e) => { if (e.key === "Escape" && quick.classList.contains("open")) { close(); b.focus(); } });
  return b;
}

/** True when the toolbar is one row without tabs. */
export function isCompact(): boolean {
  return ribbon.classList.contains("compact");
}

/** The host asked for the compact toolbar (`ui_defaults` UIMode=compact → uiMode "classic"). */
function hostWantsCompact(): boolean {
  try {
    const ui = JSON.parse(atob(document.body.dataset.uiDefaults || "")) as { uiMode?: string };
    return ui.uiMode === "classic";
  } catch {
    return false;
  }
}

/**
 * Whether a tab has a control this session can use: a read-only session hides every editing
 * control, and a tab of nothing but those (Insert, Layout…) showed as an empty row.
 */
function hasUsableControl(t: Tab): boolean {
  const readOnly = document.body.classList.contains("readonly");
  const usable = (c: Element) => c.matches("button, select, input") && !(readOnly && c.closest(".edit-only"));
  return t.items.some((n) => n instanceof HTMLElement && (usable(n) || [...n.querySelectorAll("*")].some(usable)));
}

/** Lays the toolbar out for the frame's width: tabs, or one row with the "more" menu. */
export function layoutRibbon(): void {
  layoutRow();
  rove(focused());
}

/**
 * The tabs beside the document's name while they fit there whole; else on a row of their own
 * under it (wrapping if that row is still too narrow). Cut off, "View" read "Vie" at 1366 px with
 * the document modified, and went out of reach in Vietnamese or with two people shown.
 */
function placeTabs(): void {
  const body = document.body;
  const was = body.classList.contains("tabs-row");
  body.classList.remove("tabs-row");
  const over = tablist.scrollWidth > tablist.clientWidth + 1;
  body.classList.toggle("tabs-row", over);
  if (over !== was) placeSidePanels();
}

/** The side panels (sidebar, comments) start under the toolbar, however many rows it has. */
function placeSidePanels(): void {
  document.body.style.setProperty("--panels-top", Math.round(ribbon.getBoundingClientRect().bottom) + "px");
}

/** Commands a phone's one row shows first (the formatting people use most; undo is in its header). */
const COMMON = [".uno:Bold", ".uno:Italic", ".uno:Underline", ".uno:DefaultBullet", ".uno:DefaultNumbering"];
const rank = (n: HTMLElement) => { const i = COMMON.indexOf(n.dataset.cmd ?? ""); return i < 0 ? COMMON.length : i; };

function closeMore(): void {
  moreMenu.hidden = true;
  aria(moreButton, "expanded", "false");
}

function layoutRow(): void {
  tabs.forEach((t) => { t.tab.hidden = !hasUsableControl(t); });
  const shown = tabs.find((t) => !t.tab.hidden);
  if (shown && tabs.some((t) => t.id === active && t.tab.hidden)) return selectTab(shown.id); // lays the row out again
  closeMenus();
  closeMore();
  // Every control back in its tab, shown and in the DOM's order: separators hidden by the last
  // layout (they stood between controls that went into "more") shown again.
  tabs.forEach((t) => {
    t.items.forEach((n) => {
      if (n.parentNode !== t.panel) t.panel.append(n);
      if (!(n instanceof HTMLElement)) return;
      n.style.order = "";
      if (n.classList.contains("tb-sep")) n.hidden = false;
    });
  });
  const compact = compactForced || window.innerWidth < 768;
  document.body.classList.toggle("phone", isPhone());
  ribbon.classList.toggle("compact", compact);
  document.body.classList.toggle("compact-toolbar", compact);
  // One row, always as tall (a tab taller than another moved the document under the pointer): the
  // chosen tab's controls, or every tab's in compact mode; from the first that does not fit, the
  // rest go into "more" (its button shown only then, so a row that fits uses the whole width).
  placeTabs();
  let all: HTMLElement[] = [];
  tabs.forEach((t) => { if (compact || t.id === active) t.items.forEach((n) => { if (n instanceof HTMLElement && n.getClientRects().length) all.push(n); }); });
  // In the one row of compact mode, the common commands first (a phone's row showed the clipboard's
  // and put Bold and Italic under "more"); the row's order is the flex order, the DOM's is kept.
  if (compact) {
    all = all.map((n, i) => [n, i] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([n]) => n);
    all.forEach((n, i) => { n.style.order = String(i); });
  }
  const firstOver = () => { const limit = panels.getBoundingClientRect().right; return all.findIndex((n) => n.getBoundingClientRect().right > limit + 0.5); };
  moreButton.hidden = true;
  placeSidePanels();
  if (firstOver() < 0) return;
  moreButton.hidden = false;
  const at = firstOver();
  if (at < 0) return;
  // A separator does not go into the menu; left in the row without its controls it would be a
  // stray bar (a phone's row showed seven of them), so it is hidden until the next layout.
  all.slice(at).forEach((n) => { if (n.classList.contains("tb-sep")) n.hidden = true; else moreMenu.append(n); });
  for (let i = at - 1; i >= 0 && all[i]!.classList.contains("tb-sep"); i--) all[i]!.hidden = true;
}

/** The controls of the toolbar row a key moves between: shown, enabled, in order. */
function rowControls(): HTMLElement[] {
  return [...ribbon.querySelectorAll<HTMLElement>(".tb-panel button, .tb-panel select, .tb-panel input, .tb-more")].filter((c) => c.getClientRects().length > 0 && !(c as HTMLButtonElement).disabled);
}

/**
 * The toolbar row is one stop of the Tab key: ArrowLeft/Right (Home/End) move between its
 * controls (WAI-ARIA's toolbar pattern, as LibreOffice's own toolbars), and Tab goes on to what
 * follows. A list box keeps Up and Down for its value; a text field keeps Left and Right for its
 * caret until the caret is at the field's end.
 */
/** One control of the row takes Tab's focus: the one last focused, or the first. */
function rove(current: Element | null): void {
  const list = rowControls();
  const at = current instanceof HTMLElement && list.includes(current) ? current : list[0];
  list.forEach((c) => { c.tabIndex = c === at ? 0 : -1; });
}

/** Where Home, End, ArrowLeft or ArrowRight goes from `at` in a row of `n` (round at its ends); -1 for another key. */
const rowStep = (key: string, at: number, n: number): number =>
  key === "Home" ? 0 : key === "End" ? n - 1 : key === "ArrowRight" ? (at + 1) % n : key === "ArrowLeft" ? (at + n - 1) % n : -1;

function rovingToolbar(): void {
  listen(ribbon, "focusin", (e) => rove(e.target as HTMLElement));
  listen(ribbon, "keydown", (e) => {
    const t = e.target as HTMLElement;
    if (rowStep(e.key, 0, 1) < 0) return;
    // A text field keeps its arrows for its caret, until the caret is at the field's end.
    if (t instanceof HTMLInputElement) {
      const atEnd = e.key === "ArrowRight" && t.selectionStart === t.value.length, atStart = e.key === "ArrowLeft" && t.selectionStart === 0;
      if (!atEnd && !atStart) return;
    }
    const list = rowControls(), at = list.indexOf(t);
    if (at < 0) return;
    e.preventDefault();
    list[rowStep(e.key, at, list.length)]!.focus();
  });
  // The tabs: arrows move between them and show the one reached (the tablist pattern).
  listen(tablist, "keydown", (e) => {
    const shown = tabs.filter((t) => !t.tab.hidden), at = shown.findIndex((t) => t.tab === focused());
    const next = rowStep(e.key, at, shown.length);
    if (at < 0 || next < 0) return;
    e.preventDefault();
    selectTab(shown[next]!.id);
    shown[next]!.tab.focus();
  });
}

export function installRibbon(): void {
  compactForced = hostWantsCompact();
  rovingToolbar();
  document.body.append(moreMenu);
  listen(moreButton, "click", () => {
    const open = moreMenu.hidden;
    closeMenus();
    moreMenu.hidden = !open;
    aria(moreButton, "expanded", open);
    if (!open) return;
    const r = moreButton.getBoundingClientRect();
    placeBy(moreMenu, r);
    moreMenu.style.right = Math.max(2, window.innerWidth - r.right) + "px";
  });
  // A control used from the menu closes it (a menu button's own menu stays open).
  listen(moreMenu, "click", (e) => {
    const b = (e.target as Element).closest("button");
    if (b && !b.hasAttribute("aria-haspopup")) closeMore();
  });
  listen(window, "mousedown", (e) => {
    const t = e.target as Node;
    if (!moreMenu.hidden && !moreMenu.contains(t) && !moreButton.contains(t) && !(t instanceof Element && t.closest(".tb-popup"))) closeMore();
  }, true);
  listen(window, "resize", perFrame(layoutRibbon));
  // The top bar's other contents change its room for the tabs: the modified mark, the people.
  if (window.ResizeObserver) new ResizeObserver(perFrame(placeTabs)).observe(tablist);
}

/** Read-only views have nothing to edit: they open on the View tab. */
export function startTab(): void {
  if (S.readOnly && tabs.some((t) => t.id === "view")) selectTab("view");
  layoutRibbon();
}
