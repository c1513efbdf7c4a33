// The page's regions for the keyboard: F6 goes toolbar → document → status bar → toolbar, Shift+F6
// back, as in LibreOffice and Office. A region is entered at its first control a person can use.

import { focusDocument, ime } from "./page";

/** The regions in their order, found when asked: the interface builds its bars after the editor. */
const REGIONS: (() => HTMLElement | null)[] = [
  () => document.getElementById("ribbon") ?? document.getElementById("toolbar"),
  () => ime,
  () => document.getElementById("statusbar"),
];

const FOCUSABLE = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea, [tabindex]:not([tabindex='-1'])";

function visible(el: HTMLElement): boolean {
  return !el.hidden && el.offsetParent !== null;
}

function enter(region: HTMLElement): boolean {
  if (region === ime) {
    focusDocument();
    return true;
  }
  const first = [...region.querySelectorAll<HTMLElement>(FOCUSABLE)].find(visible);
  if (first) {
    first.focus();
    return true;
  }
  // A bar of information only (the status bar): the bar itself takes the focus, and is read out.
  if (!region.hasAttribute("tabindex")) region.tabIndex = -1;
  region.focus();
  return document.activeElement === region;
}

export function installRegions(): void {
  // The document's keyboard input is named by the document's own name (language-neutral).
  ime.setAttribute("aria-labelledby", "docname");
  ime.setAttribute("aria-multiline", "true");
  window.addEventListener("keydown", (e) => {
    if (e.key !== "F6" || e.ctrlKey || e.altKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    const regions = REGIONS.map((find) => find()).filter((r): r is HTMLElement => !!r && (r === ime || visible(r)));
    const active = document.activeElement;
    const at = regions.findIndex((r) => r === active || r.contains(active));
    const step = e.shiftKey ? -1 : 1;
    // From the current region to the next one that has something to focus.
    for (let i = 1; i <= regions.length; i++) {
      const next = regions[(((at < 0 ? 0 : at) + step * i) % regions.length + regions.length) % regions.length]!;
      if (enter(next)) return;
    }
  }, true);
}
