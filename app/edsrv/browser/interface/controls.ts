// The interface's building blocks: elements, command buttons with LibreOffice's own Colibre icons
// (served by the editing server at icons/lc_<command>.svg, 24 px, and sc_<command>.svg, 16 px, for
// menus), menu buttons, pickers, colour drop-downs, and the tooltips that name a command and its shortcut.

import type { UnoArguments } from "../../protocol/frames";
import { api, watch, officeText } from "./state";
import { T } from "./texts";
import { aria, focused, listen } from "./dom";

type Listeners = Record<string, (e: Event) => void>;
/** Attribute values; `text` the element's text, `on` its listeners. */
interface Attributes {
  text?: string;
  on?: Listeners;
  [name: string]: string | null | undefined | Listeners;
}

/** An element with attributes (`text`: its text, `on`: its listeners) and children; a button is `type=button`. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attributes, children?: (Node | null | undefined)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  // The interface's buttons act through their listeners: none submits a form.
  if (tag === "button") e.setAttribute("type", "button");
  const a = attrs || {};
  for (const k in a) {
    if (k === "text") e.textContent = a.text!;
    else if (k === "on") for (const ev in a.on) e.addEventListener(ev, a.on[ev]!);
    else if (a[k] !== undefined && a[k] !== null) e.setAttribute(k, a[k] as string); // every other value is a string
  }
  (children || []).forEach((c) => { if (c) e.append(c); });
  return e;
}

/** A control's name, for a screen reader and as its tooltip alike. */
export const named = (label: string): Attributes => ({ "aria-label": label, title: label });

/** A div of a class (the interface's boxes), with its children. */
export const div = (cls: string, children?: (Node | null | undefined)[]): HTMLDivElement => el("div", { "class": cls }, children);

/** One argument of a UNO command, as Collabora sends it. */
export function arg(type: string, value: unknown): { type: string; value: unknown } {
  return { type, value };
}
/** The arguments commands take most. */
export const stringArg = (value: unknown) => arg("string", value);
export const longArg = (value: unknown) => arg("long", value);
/** Runs a UNO command and gives the keyboard back to the document. */
export function run(cmd: string, args?: UnoArguments): void {
  api.uno(cmd, args);
  api.focus();
}

/** The icon name of a command: `.uno:Bold` → `bold` (the server maps names without a picture to the closest command's). */
export function iconName(cmd: string): string {
  return cmd.replace(/^\.uno:/i, "").replace(/[^A-Za-z0-9].*$/, "").toLowerCase();
}
/**
 * The pictures wait for the document's first screen (showPictures): decoding some sixty SVGs at
 * once held the first tiles' drawing back (first screen p50 186 → 346 ms in bench:edsrv). Their
 * boxes have their size from the start, so nothing moves when they arrive.
 */
let picturesShown = false;
const picturesWaiting: HTMLImageElement[] = [];
export function showPictures(): void {
  if (picturesShown) return;
  picturesShown = true;
  for (const img of picturesWaiting.splice(0)) img.src = img.dataset.src!;
}

/** A Colibre icon: `lc` 24 px for toolbars, `sc` 16 px for menus. A missing picture is hidden, never a broken image. */
export function icon(name: string, size: "lc" | "sc" = "lc"): HTMLImageElement {
  const px = size === "lc" ? "24" : "16";
  const src = "icons/" + size + "_" + name + ".svg";
  const img = el("img", { alt: "", width: px, height: px, draggable: "false", "class": "ic", "data-src": src });
  listen(img, "error", () => { img.hidden = true; });
  if (picturesShown) img.src = src;
  else picturesWaiting.push(img);
  return img;
}

/** The keyboard shortcut LibreOffice (and this page) gives a command (by its name without ".uno:"), named in its tooltip. */
const SHORTCUTS: Record<string, string> = {
  Bold: "Ctrl+B", Italic: "Ctrl+I", Underline: "Ctrl+U", SuperScript: "Ctrl+Shift+P",
  SubScript: "Ctrl+Shift+B", LeftPara: "Ctrl+L", CenterPara: "Ctrl+E", RightPara: "Ctrl+R",
  JustifyPara: "Ctrl+J", Cut: "Ctrl+X", Copy: "Ctrl+C", Paste: "Ctrl+V",
  PasteUnformatted: "Ctrl+Alt+Shift+V", SetDefault: "Ctrl+M", InsertPagebreak: "Ctrl+Enter",
  HyperlinkDialog: "Ctrl+K", InsertAnnotation: "Ctrl+Alt+C", TrackChanges: "Ctrl+Shift+C",
  DefaultNumbering: "F12", DefaultBullet: "Shift+F12", SpellOnline: "Shift+F7", ControlCodes: "Ctrl+F10",
  SpacePara1: "Ctrl+1", SpacePara15: "Ctrl+5", SpacePara2: "Ctrl+2",
  find: "Ctrl+F", zoomin: "Ctrl+=", zoomout: "Ctrl+−", print: "Ctrl+P",
};
/** A tooltip: the command's name in the page's language and its shortcut. */
export function tooltip(cmd: string, label: string): string {
  const shortcut = SHORTCUTS[cmd.replace(/^\.uno:/, "")];
  return shortcut ? label + " (" + shortcut + ")" : label;
}

export interface ButtonOptions {
  /** Shows the command's on/off state at the cursor (aria-pressed); with `click`, the button says its state itself. */
  toggle?: boolean;
  /** Shown in read-only views too. */
  view?: boolean;
  /** Does this instead of running the command. */
  click?: () => void;
  args?: () => UnoArguments;
  /** The icon's name when it is not the command's. */
  icon?: string;
}
/** A command button with the command's icon; `toggle` shows the command's on/off state at the cursor (aria-pressed). */
export function button(cmd: string, label: string, opts: ButtonOptions = {}): HTMLButtonElement {
  const b = el("button", { "class": "tb" + (opts.view ? "" : " edit-only"), "aria-label": label, title: tooltip(cmd, label), "data-cmd": cmd });
  b.append(icon(opts.icon || iconName(cmd)));
  if (opts.toggle) aria(b, "pressed", "false");
  listen(b, "click", () => { if (opts.click) opts.click(); else run(cmd, opts.args && opts.args()); });
  if (!opts.click) watch(cmd, (v) => {
    if (opts.toggle) aria(b, "pressed", v === "true");
    b.disabled = v === "disabled";
  });
  return b;
}

/** A command's on/off button: aria-pressed shows its state at the cursor. */
export const toggleButton = (cmd: string, label: string): HTMLButtonElement => button(cmd, label, { toggle: true });

export interface MenuEntry {
  label: string;
  /** Its command (shown as `data-cmd`, and run when there is no `click`). */
  cmd: string;
  args?: UnoArguments;
  click?: () => void;
  icon?: string;
}
let openMenu: { popup: HTMLElement; opener: HTMLButtonElement } | null = null;
export function closeMenus(): void {
  if (!openMenu) return;
  openMenu.popup.hidden = true;
  aria(openMenu.opener, "expanded", "false");
  openMenu = null;
}
/**
 * A toolbar button with a caret that opens `popup` under it (a menu, a grid): one popup open at a
 * time, closed by Escape, a click elsewhere or the button again. `focusFirst` is what gets the
 * keyboard when it opens.
 */
export function popupButton(cmd: string, label: string, popup: HTMLElement, opts: { icon?: string; view?: boolean; menuCmds?: string; focusFirst?: () => HTMLElement | null } = {}): HTMLButtonElement {
  // The command's button, which opens the popup rather than running the command.
  const b = button(cmd, label, { ...opts, click: () => {
    const wasOpen = openMenu && openMenu.popup === popup;
    closeMenus();
    if (wasOpen) return;
    const r = b.getBoundingClientRect();
    popup.hidden = false;
    popup.style.left = Math.max(2, Math.min(r.left, window.innerWidth - popup.offsetWidth - 4)) + "px";
    placeBy(popup, r);
    aria(b, "expanded", "true");
    openMenu = { popup, opener: b };
    const first = opts.focusFirst ? opts.focusFirst() : popup.querySelector("button");
    if (first) first.focus();
  } });
  b.classList.add("tb-menu");
  b.append(el("span", { "class": "tb-caret", "aria-hidden": "true" }));
  aria(b, "haspopup", popup.getAttribute("role") === "menu" ? "menu" : "dialog");
  aria(b, "expanded", false);
  if (opts.menuCmds !== undefined) b.dataset.menuCmds = opts.menuCmds;
  popup.hidden = true;
  document.body.append(popup);
  return b;
}

/** A popup under its button (`r`), or above it when there is no room below (the phone's tools are at the bottom). */
export function placeBy(popup: HTMLElement, r: DOMRect): void {
  const below = r.bottom + 2 + popup.offsetHeight <= window.innerHeight;
  popup.style.top = (below ? r.bottom + 2 : Math.max(2, r.top - 2 - popup.offsetHeight)) + "px";
}

/** A close box (✕), named Close. */
export const closeButton = (cls: string, click: () => void): HTMLButtonElement => el("button", { "class": cls, ...named(T.close), text: "✕", on: { click } });

/** Tab and Shift+Tab go round a modal box's `controls` rather than out of it. */
export function keepTabIn(e: KeyboardEvent, controls: HTMLElement[]): void {
  const first = controls[0], last = controls[controls.length - 1];
  if (!first || !last) return;
  if (e.shiftKey && focused() === first) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && focused() === last) { e.preventDefault(); first.focus(); }
}

/** A menu's entry for a command: its small icon (its own or the command's), then its label. */
export const menuItem = (cmd: string, label: string, picture?: string): HTMLButtonElement =>
  el("button", { role: "menuitem", "data-cmd": cmd }, [icon(picture || iconName(cmd), "sc"), el("span", { text: label })]);

/** A button that opens a menu of commands (line spacing, shapes, page size…), each with its small icon. */
export function menuButton(cmd: string, label: string, entries: MenuEntry[], opts: { icon?: string; view?: boolean } = {}): HTMLButtonElement {
  const popup = el("div", { "class": "tb-popup", role: "menu", "aria-label": label });
  entries.forEach((e) => {
    const item = menuItem(e.cmd, e.label, e.icon);
    listen(item, "click", () => { closeMenus(); if (e.click) e.click(); else run(e.cmd, e.args); });
    popup.append(item);
  });
  return popupButton(cmd, label, popup, { ...opts, menuCmds: entries.map((e) => e.cmd).join(" ") });
}
listen(window, "mousedown", (e) => {
  if (openMenu && !openMenu.popup.contains(e.target as Node) && !openMenu.opener.contains(e.target as Node)) closeMenus();
}, true);
listen(window, "keydown", (e) => {
  if (openMenu && e.key === "Escape") { const o = openMenu.opener; closeMenus(); o.focus(); e.stopImmediatePropagation(); }
}, true);

export function picker(label: string, cls: string, onChange: (value: string) => void): HTMLSelectElement {
  const s = el("select", { "class": "tb-select edit-only " + cls, ...named(label) });
  listen(s, "change", () => { onChange(s.value); api.focus(); });
  return s;
}
export function setOptions(s: HTMLSelectElement, values: string[], current?: string, labels?: Record<string, string>): void {
  s.innerHTML = "";
  values.forEach((v) => { s.append(new Option((labels && labels[v]) || v, v)); });
  // Nothing shown until the engine reports the state (not the list's first entry: a font box said
  // "DejaVu Math TeX Gyre 8" for a second after opening).
  if (current !== undefined) showValue(s, current);
  else s.selectedIndex = -1;
}
export function showValue(s: HTMLSelectElement, v: string | undefined | null): void {
  if (v === undefined || v === null) return;
  if (v !== "" && ![...s.options].some((o) => o.value === v)) s.append(new Option(v, v));
  s.value = v;
}
/**
 * LibreOffice's standard palette, its first two rows (the greys, then the bright colours), named
 * as LibreOffice names them: what its own colour drop-downs offer first.
 */
const PALETTE: [string, number][] = [
  ["Black", 0x000000], ["Dark Gray 4", 0x111111], ["Dark Gray 3", 0x1c1c1c], ["Dark Gray 2", 0x333333], ["Dark Gray 1", 0x666666], ["Gray", 0x808080],
  ["Light Gray 1", 0x999999], ["Light Gray 2", 0xb2b2b2], ["Light Gray 3", 0xcccccc], ["Light Gray 4", 0xdddddd], ["Light Gray 5", 0xeeeeee], ["White", 0xffffff],
  ["Yellow", 0xffff00], ["Gold", 0xffbf00], ["Orange", 0xff8000], ["Brick", 0xff4000], ["Red", 0xff0000], ["Magenta", 0xbf0041],
  ["Purple", 0x800080], ["Indigo", 0x55308d], ["Blue", 0x2a6099], ["Teal", 0x158466], ["Green", 0x00a933], ["Lime", 0x81d41a],
];
/**
 * A colour drop-down: the palette's colours, any other through the browser's colour input, and a
 * close box; like every toolbar popup it closes on Escape, a click elsewhere or a pick, and gives
 * the keyboard back. The engine takes colours as 0xRRGGBB numbers.
 */
export function colour(cmd: string, label: string, onPick: (rgb: number) => void): HTMLButtonElement {
  const pick = (rgb: number) => { closeMenus(); onPick(rgb); api.focus(); };
  const swatches = div("tb-swatches", PALETTE.map(([name, rgb]) => {
    const hex = "#" + rgb.toString(16).padStart(6, "0");
    return el("button", { "class": "tb-swatch", ...named(officeText(name)), style: "background:" + hex, on: { click: () => { pick(rgb); } } });
  }));
  const other = el("input", { type: "color", value: "#c01c28", on: { change: (e) => { pick(parseInt((e.target as HTMLInputElement).value.slice(1), 16)); } } });
  const closeBox = closeButton("tb-palette-close", () => { closeMenus(); api.focus(); });
  const popup = el("div", { "class": "tb-popup tb-palette", role: "dialog", "aria-label": label }, [closeBox, swatches, el("label", { "class": "tb-other" }, [other, el("span", { text: T.customColour })])]);
  const b = popupButton(cmd, label, popup, { focusFirst: () => swatches.querySelector("button") });
  // As narrow as the colour input it replaces (no caret): the toolbar's row keeps what it fitted.
  b.classList.add("tb-colour");
  return b;
}
export function sep(): HTMLSpanElement {
  return el("span", { "class": "tb-sep", "aria-hidden": "true" });
}
