// The interface's building blocks: elements, command buttons, pickers, colour inputs, the toolbar
// row they go in, and the glyphs they show (the page needs no icon font or image requests).

import type { UnoArguments } from "../../protocol/frames";
import { T } from "./texts";
import { api, watch } from "./state";

type Listeners = Record<string, (e: Event) => void>;
/** Attribute values; `text` the element's text, `on` its listeners. */
interface Attributes {
  text?: string;
  on?: Listeners;
  [name: string]: string | null | undefined | Listeners;
}

/** An element with attributes (`text`: its text, `on`: its listeners) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attributes, children?: (Node | null | undefined)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  const a = attrs || {};
  for (const k in a) {
    if (k === "text") e.textContent = a.text!;
    else if (k === "on") for (const ev in a.on) e.addEventListener(ev, a.on[ev]!);
    else if (a[k] !== undefined && a[k] !== null) e.setAttribute(k, a[k] as string); // every other value is a string
  }
  (children || []).forEach((c) => { if (c) e.appendChild(c); });
  return e;
}

/** One argument of a UNO command, as Collabora sends it. */
export function arg(type: string, value: unknown): { type: string; value: unknown } {
  return { type, value };
}
/** Runs a UNO command and gives the keyboard back to the document. */
export function run(cmd: string, args?: UnoArguments): void {
  api.uno(cmd, args);
  api.focus();
}

export interface ButtonOptions {
  /** Shows the command's on/off state at the cursor (aria-pressed). */
  toggle?: boolean;
  /** Shown in read-only views too. */
  view?: boolean;
  /** Does this instead of running the command. */
  click?: () => void;
  args?: () => UnoArguments;
}
/** A command button; `toggle` shows the command's on/off state at the cursor (aria-pressed). */
export function button(cmd: string, label: string, icon: string, opts: ButtonOptions = {}): HTMLButtonElement {
  const b = el("button", { type: "button", "class": "tb" + (opts.view ? "" : " edit-only"), "aria-label": label, title: label, "data-cmd": cmd });
  b.innerHTML = icon;
  if (opts.toggle) b.setAttribute("aria-pressed", "false");
  b.addEventListener("click", () => { if (opts.click) opts.click(); else run(cmd, opts.args && opts.args()); });
  if (!opts.click) watch(cmd, (v) => {
    if (opts.toggle) b.setAttribute("aria-pressed", String(v === "true"));
    b.disabled = v === "disabled";
  });
  return b;
}
export function picker(label: string, cls: string, onChange: (value: string) => void): HTMLSelectElement {
  const s = el("select", { "class": "tb-select edit-only " + cls, "aria-label": label, title: label });
  s.addEventListener("change", () => { onChange(s.value); api.focus(); });
  return s;
}
export function setOptions(s: HTMLSelectElement, values: string[], current?: string): void {
  s.innerHTML = "";
  values.forEach((v) => { s.appendChild(el("option", { value: v, text: v })); });
  if (current !== undefined) showValue(s, current);
}
export function showValue(s: HTMLSelectElement, v: string | undefined | null): void {
  if (v === undefined || v === null) return;
  if (v !== "" && !Array.prototype.some.call(s.options, (o: HTMLOptionElement) => o.value === v)) s.appendChild(el("option", { value: v, text: v }));
  s.value = v;
}
/** A colour input; the engine takes colours as 0xRRGGBB numbers. */
export function colour(label: string, icon: string, onPick: (rgb: number) => void): HTMLLabelElement {
  const wrap = el("label", { "class": "tb tb-colour edit-only", title: label });
  wrap.innerHTML = icon;
  const input = el("input", { type: "color", "aria-label": label, value: "#c01c28" });
  input.addEventListener("change", () => { onPick(parseInt(input.value.slice(1), 16)); api.focus(); });
  wrap.appendChild(input);
  return wrap;
}
export function sep(): HTMLSpanElement {
  return el("span", { "class": "tb-sep", "aria-hidden": "true" });
}

/** The toolbar row of the document's family. */
export const ribbon = el("div", { id: "ribbon", role: "toolbar", "aria-label": T.toolbar });
export function add(c: Node): void {
  ribbon.appendChild(c);
}

// Icons: short glyphs, so the page needs no icon font or image requests.
export const I = {
  bold: "<b>B</b>", italic: "<i>I</i>", underline: "<u>U</u>", strike: "<s>S</s>", color: "<span class='ic-a'>A</span>",
  highlight: "<span class='ic-hl'>ab</span>", left: "&#8676;", center: "&#8596;", right: "&#8677;", justify: "&#9776;",
  bullets: "&#8226;&#8801;", numbering: "1.&#8801;", indent: "&#8680;", outdent: "&#8678;", table: "&#9638;", image: "&#128444;",
  link: "<u>a</u>&#8599;", pagebreak: "&#11022;", track: "&#9998;&#8635;", next: "&#8631;", accept: "&#10003;", reject: "&#10007;",
  acceptAll: "&#10003;&#10003;", rejectAll: "&#10007;&#10007;", comment: "&#128488;", fill: "<span class='ic-fill'>&#9634;</span>",
  merge: "&#8660;", wrap: "&#8629;", rowAbove: "&#8593;&#9636;", rowBelow: "&#8595;&#9636;", colLeft: "&#8592;&#9707;", colRight: "&#8594;&#9707;",
  delRow: "&#10006;&#9636;", delCol: "&#10006;&#9707;", sortAsc: "A&#8595;", sortDesc: "Z&#8595;", filter: "&#9207;", freeze: "&#10052;",
  zoomIn: "+", zoomOut: "&minus;", fitWidth: "&#8596;", fitPage: "&#9974;", find: "&#128269;", download: "&#11123;", print: "&#128438;",
  newSlide: "+&#9645;", dupSlide: "&#10697;", delSlide: "&#10006;&#9645;", up: "&#9650;", down: "&#9660;", show: "&#9654;",
};
