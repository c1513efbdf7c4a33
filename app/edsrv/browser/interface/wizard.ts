// LibreOffice's wizards (the chart wizard, CHART2_HID_SCH_WIZARD_ROADMAP) as LibreOffice means
// them: step by step. LibreOffice describes a wizard as one dialog whose pages are "tabpage"s,
// the current one visible and the others `visible: false`, with Back/Next/Finish in its button
// box; on Next or Back it describes the whole dialog again with another page visible (and fills
// that page's fields then: the chart's data range). The desktop's roadmap (the step list) is not
// in the JSON: it is made here from the pages' titles, the current step marked (aria-current).
// Collabora's browser client shows a wizard the same way (its pages, one shown, and a roadmap).

import { T } from "./texts";
import type { JsWidget } from "../../protocol/dialog-frames";
import { el } from "./controls";
import { plain } from "./dialog-widgets";
import { aria } from "./dom";

/** The pages of a wizard (tabpages beside Back/Next/Finish buttons), else null. */
export function wizardPages(message: JsWidget): JsWidget[] | null {
  const pages: JsWidget[] = [];
  const ids = new Set<string>();
  const walk = (w: JsWidget) => {
    if (w.type === "tabpage") { pages.push(w); return; }
    if (w.id) ids.add(String(w.id));
    // A tab control's pages are tabs, not steps.
    if (w.type === "tabcontrol") return;
    for (const c of w.children ?? []) walk(c);
  };
  walk(message);
  return pages.length > 1 && ids.has("next") && (ids.has("finish") || ids.has("previous")) ? pages : null;
}

/**
 * The step list of a wizard, beside its pages: one item per page, in order, the shown page
 * marked as the current step. `refresh` marks it again after LibreOffice shows or hides a page.
 */
export function stepList(pages: JsWidget[], pageElement: (page: JsWidget) => HTMLElement | undefined): { nav: HTMLElement; refresh: () => void } {
  const items = pages.map((p, i) => el("li", { "class": "jsd-step", text: `${i + 1}. ${plain(p.text || p.aria?.label)}` }));
  const nav = el("nav", { "class": "jsd-steps", "aria-label": T.steps }, [el("ol", {}, items)]);
  const refresh = () => {
    let current = pages.findIndex((p) => { const e = pageElement(p); return e ? !e.hidden : p.visible !== false; });
    if (current < 0) current = 0;
    items.forEach((li, i) => {
      if (i === current) aria(li, "current", "step");
      else li.removeAttribute("aria-current");
      li.classList.toggle("jsd-step-done", i < current);
    });
  };
  refresh();
  return { nav, refresh };
}

const REFERENCES = ["for", "aria-labelledby", "aria-describedby", "aria-controls", "list"];

/**
 * A wizard's pages repeat LibreOffice's widget ids (the Data Range and the Data Series pages both
 * have an FT_RANGE label): each page's DOM ids get the page's own suffix, and the labels its
 * fields point to are the ones on their own page. `root` is a page, or a widget built anew in one.
 */
export function scopeIds(root: HTMLElement, scope: HTMLElement): void {
  const suffix = "-s" + (scope.dataset.idScope ?? "");
  for (const e of [root, ...root.querySelectorAll<HTMLElement>("[id]")]) if (e.id && !e.id.endsWith(suffix)) e.id += suffix;
  for (const e of [root, ...root.querySelectorAll<HTMLElement>("*")]) {
    for (const a of REFERENCES) {
      const v = e.getAttribute(a);
      if (!v) continue;
      const scoped = v.split(/\s+/).map((t) => (!t.endsWith(suffix) && scope.querySelector("#" + CSS.escape(t + suffix)) ? t + suffix : t)).join(" ");
      if (scoped !== v) e.setAttribute(a, scoped);
    }
  }
}
