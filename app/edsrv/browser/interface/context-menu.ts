// The engine's context menu on right click (`contextmenu:`), its entries with their commands'
// icons; LibreOffice writes its labels in the view's language (kit-main.ts sets it from `lang`).

import { el, icon, iconName, run } from "./controls";
import { api } from "./state";
import { T } from "./texts";

interface MenuItem {
  type?: string;
  text?: string;
  command?: string;
  enabled?: string;
  checked?: string;
  menu?: MenuItem[];
}

let menuEl: HTMLDivElement | null = null;
let lastRightClick: { x: number; y: number } | null = null;

function addMenuItems(box: HTMLElement, items: MenuItem[]): void {
  items.forEach((it) => {
    if (it.type === "separator") { box.appendChild(el("div", { "class": "menu-sep", role: "separator" })); return; }
    const label = String(it.text || "").replace(/~/g, "");
    if (it.type === "menu") {
      const sub = el("div", { "class": "submenu", role: "menu", "aria-label": label });
      addMenuItems(sub, it.menu || []);
      box.appendChild(el("div", { "class": "menu-group" }, [el("button", { type: "button", role: "menuitem", "aria-haspopup": "true", text: label + " ▸" }), sub]));
      return;
    }
    const command = it.command;
    if (!command) return;
    // The command's small Colibre icon (hidden when the theme has none), then its label.
    const b = el("button", { type: "button", role: "menuitem", "data-cmd": command }, [icon(iconName(command), "sc"), el("span", { text: label })]);
    if (it.enabled === "false") b.disabled = true;
    if (it.checked === "true") b.setAttribute("aria-checked", "true");
    b.addEventListener("click", () => { closeMenu(); run(command); });
    box.appendChild(b);
  });
}
function closeMenu(): void {
  if (menuEl) { menuEl.remove(); menuEl = null; }
}

export function installContextMenu(): void {
  api.on("contextmenu", (a) => {
    let j: { menu?: MenuItem[] };
    try { j = JSON.parse(a); } catch { return; }
    closeMenu();
    if (!j.menu || !j.menu.length) return;
    const menu = (menuEl = el("div", { id: "contextmenu", role: "menu", "aria-label": T.contextMenu }));
    addMenuItems(menu, j.menu);
    document.body.appendChild(menu);
    const at = lastRightClick || { x: 40, y: 80 };
    menu.style.left = Math.min(at.x, window.innerWidth - menu.offsetWidth - 4) + "px";
    menu.style.top = Math.min(at.y, window.innerHeight - menu.offsetHeight - 4) + "px";
    const first = menu.querySelector<HTMLButtonElement>("button:not([disabled])");
    if (first) first.focus();
  });
  window.addEventListener("contextmenu", (e) => { lastRightClick = { x: e.clientX, y: e.clientY }; }, true);
  window.addEventListener("mousedown", (e) => { if (menuEl && !menuEl.contains(e.target as Node)) closeMenu(); }, true);
  window.addEventListener("keydown", (e) => { if (menuEl && e.key === "Escape") { closeMenu(); api.focus(); } }, true);
}
