// A small in-page form (links, table size, sheet names, comments).

import { el } from "./controls";
import { api } from "./state";
import { T } from "./texts";

/** Asks for a few values: answers them, or null when cancelled. */
export function ask(title: string, fields: { label: string; value?: string }[]): Promise<string[] | null> {
  return new Promise((resolve) => {
    const inputs = fields.map((f) => el("input", { type: "text", value: f.value || "", "aria-label": f.label, placeholder: f.label }));
    const form = el("form", { "class": "ask", role: "dialog", "aria-label": title }, [el("strong", { text: title }) as Node].concat(inputs.map((i, n) =>
      el("label", {}, [el("span", { text: fields[n]!.label }), i]),
    )).concat([el("div", { "class": "ask-buttons" }, [el("button", { type: "submit", text: T.ok }), el("button", { type: "button", "class": "ask-cancel", text: T.cancel })])]));
    function done(v: string[] | null) { form.remove(); resolve(v); api.focus(); }
    form.addEventListener("submit", (e) => { e.preventDefault(); done(inputs.map((i) => i.value)); });
    form.querySelector(".ask-cancel")!.addEventListener("click", () => { done(null); });
    form.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); done(null); } });
    document.body.appendChild(form);
    inputs[0]!.focus();
    inputs[0]!.select();
  });
}
