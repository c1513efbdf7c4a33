// The engine's context menu on right click (`contextmenu:`), its entries with their commands'
// icons; LibreOffice writes its labels in the view's language (workers/kit/views.ts sets it from `lang`).

import type { ContextMenuItem } from "../../protocol/server-frames";
import { div, el, menuItem, run } from "./controls";
import { api, officeText } from "./state";
import { T } from "./texts";
import { aria, focused, listen, moveTo } from "./dom";

type MenuItem = ContextMenuItem;

let menuEl: HTMLDivElement | null = null;
let lastRightClick: { x: number; y: number } | null = null;

function addMenuItems(box: HTMLElement, items: MenuItem[]): void {
  items.forEach((it) => {
    if (it.type === "separator") { box.append(el("div", { "class": "menu-sep", role: "separator" })); return; }
    const label = officeText(String(it.text || ""));
    if (it.type === "menu") {
      const sub = el("div", { "class": "submenu", role: "menu", "aria-label": label });
      addMenuItems(sub, it.menu || []);
      const opener = el("button", { role: "menuitem", "aria-haspopup": "true", "aria-expanded": "false", text: label + " ▸" });
      const group = div("menu-group", [opener, sub]);
      listen(opener, "click", () => { openSubmenu(opener, sub); focusIn(sub, 0); });
      listen(group, "mouseenter", () => openSubmenu(opener, sub));
      listen(group, "mouseleave", () => closeSubmenu(opener, sub));
      box.append(group);
      return;
    }
    const command = it.command;
    if (!command) return;
    // The command's small Colibre icon (hidden when the theme has none), then its label.
    const b = menuItem(command, label);
    if (it.enabled === "false") b.disabled = true;
    if (it.checked === "true") aria(b, "checked", "true");
    listen(b, "click", () => { closeMenu(); run(command); });
    box.append(b);
  });
}
function closeMenu(): void {
  if (menuEl) { menuEl.remove(); menuEl = null; }
}

/**
 * A menu on the screen: LibreOffice's text menu has 57 entries, and placed at the click it ran off
 * the top of the screen (Cut, Copy and Paste out of reach). Taller than the window, it scrolls.
 */
function placeOnScreen(menu: HTMLElement, x: number, y: number, flipFrom?: number): void {
  menu.style.maxHeight = window.innerHeight - 8 + "px";
  const w = menu.offsetWidth, h = menu.offsetHeight;
  // A submenu opens to the right of its entry, or to its left when there is no room.
  const left = x + w > window.innerWidth - 4 && flipFrom !== undefined ? flipFrom - w : x;
  moveTo(menu, Math.max(4, Math.min(left, window.innerWidth - w - 4)), Math.max(4, Math.min(y, window.innerHeight - h - 4)));
}

function openSubmenu(opener: HTMLElement, sub: HTMLElement): void {
  // Fixed, not inside the scrolling menu (which would clip it).
  sub.classList.add("open");
  aria(opener, "expanded", "true");
  const r = opener.getBoundingClientRect();
  placeOnScreen(sub, r.right, r.top - 4, r.left);
}
function closeSubmenu(opener: HTMLElement, sub: HTMLElement): void {
  sub.classList.remove("open");
  aria(opener, "expanded", "false");
}

/** The entries a key moves between in one menu (not those of its submenus). */
function entries(menu: HTMLElement): HTMLButtonElement[] {
  return [...menu.querySelectorAll<HTMLButtonElement>(":scope > button, :scope > .menu-group > button")].filter((b) => !b.disabled);
}
function focusIn(menu: HTMLElement, index: number): void {
  const list = entries(menu);
  if (list.length) list[(index + list.length) % list.length]!.focus();
}

/** Arrow keys move within a menu; right opens a submenu, left goes back to its entry. */
function onMenuKey(e: KeyboardEvent): void {
  const current = focused() as HTMLElement | null;
  const menu = current?.closest<HTMLElement>("#contextmenu, #contextmenu .submenu");
  if (!menu || !current) return;
  const list = entries(menu), at = list.indexOf(current as HTMLButtonElement);
  if (e.key === "ArrowDown" || e.key === "ArrowUp") focusIn(menu, at + (e.key === "ArrowDown" ? 1 : -1));
  else if (e.key === "Home" || e.key === "End") focusIn(menu, e.key === "Home" ? 0 : -1);
  else if (e.key === "ArrowRight" && current.getAttribute("aria-haspopup")) current.click();
  else if (e.key === "ArrowLeft" && menu.classList.contains("submenu")) {
    const opener = menu.previousElementSibling as HTMLElement;
    closeSubmenu(opener, menu);
    opener.focus();
  } else return;
  e.preventDefault();
}

export function installContextMenu(): void {
  api.on("contextmenu", (f) => {
    const j = f;
    closeMenu();
    if (!j.menu.length) return;
    const menu = (menuEl = el("div", { id: "contextmenu", role: "menu", "aria-label": T.contextMenu }));
    addMenuItems(menu, j.menu);
    document.body.append(menu);
    const at = lastRightClick || { x: 40, y: 80 };
    placeOnScreen(menu, at.x, at.y);
    listen(menu, "keydown", onMenuKey);
    focusIn(menu, 0);
  });
  listen(window, "contextmenu", (e) => { lastRightClick = { x: e.clientX, y: e.clientY }; }, true);
  listen(window, "mousedown", (e) => { if (menuEl && !menuEl.contains(e.target as Node)) closeMenu(); }, true);
  listen(window, "keydown", (e) => { if (menuEl && e.key === "Escape") { closeMenu(); api.focus(); } }, true);
}
