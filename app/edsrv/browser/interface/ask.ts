// A small in-page form (links, table size, sheet names, comments).

import { div, el, keepTabIn } from "./controls";
import { api } from "./state";
import { askedOpen } from "./dialogs";
import { T } from "./texts";
import { listen } from "./dom";

/** Asks for a few values: answers them, or null when cancelled. */
export function ask(title: string, fields: { label: string; value?: string }[]): Promise<string[] | null> {
  return new Promise((resolve) => {
    const inputs = fields.map((f) => el("input", { type: "text", value: f.value || "", "aria-label": f.label, placeholder: f.label }));
    const form = el("form", { "class": "ask", role: "dialog", "aria-modal": "true", "aria-label": title }, [el("strong", { text: title }) as Node].concat(inputs.map((i, n) =>
      el("label", {}, [el("span", { text: fields[n]!.label }), i]),
    )).concat([div("ask-buttons", [el("button", { type: "submit", text: T.ok }), el("button", { "class": "ask-cancel", text: T.cancel })])]));
    // Modal, as LibreOffice's own dialogs: a layer over the document takes its clicks, the
    // keyboard stays in the form, the document takes no input until it closes.
    const layer = div("ask-layer", [form]);
    listen(layer, "mousedown", (e) => { if (e.target === layer) { e.preventDefault(); inputs[0]!.focus(); } });
    function done(v: string[] | null) { layer.remove(); askedOpen(false); resolve(v); api.focus(); }
    listen(form, "submit", (e) => { e.preventDefault(); done(inputs.map((i) => i.value)); });
    listen(form.querySelector(".ask-cancel")!, "click", () => { done(null); });
    listen(form, "keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") { done(null); return; }
      if (e.key === "Tab") keepTabIn(e, [...form.querySelectorAll<HTMLElement>("input, button")]);
    });
    document.body.append(layer);
    askedOpen(true);
    inputs[0]!.focus();
    inputs[0]!.select();
  });
}
