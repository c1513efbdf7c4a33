// LibreOffice's dialog widgets (JSDialog JSON, protocol/dialog-events.ts) as HTML controls: each
// JSON widget becomes the native element a person and a screen reader expect (a checkbox is an
// <input type=checkbox> with its <label>, a list a <select>, a tab control a tablist), and a
// person's act on it becomes the event LibreOffice's JSDialog executor takes. LibreOffice keeps
// the dialog's state: after an act it sends the widgets that changed, which replace ours.
// Collabora's browser client (browser/src/control/jsdialog/) does the same with its own widgets.

import { T } from "./texts";
import type { DialogEvent, JsTreeEntry, JsWidget } from "../../protocol/dialog-frames";
import { div, el, icon, iconName, named, run } from "./controls";
import { watch, officeText, officeTip } from "./state";
import { aria, focused, listen } from "./dom";

/** What the widgets of one window need of it. */
export interface WidgetHost {
  /** The DOM id of a widget of this window (LibreOffice's ids are unique within a window only). */
  domId(widgetId: string): string;
  /** Sends a person's act on a widget. */
  send(e: DialogEvent): void;
  /** The dialog's response buttons (OK, Cancel…) by widget id. */
  responses: Map<string, number>;
  /** Registers a built widget for the updates and actions that name it. */
  remember(w: JsWidget, e: HTMLElement): void;
}

/** Sends a person's act on a widget (or on the window: `__DIALOG__`), as LibreOffice's JSDialog executor takes it. */
export const act = (host: WidgetHost, w: { id: string }, cmd: DialogEvent["cmd"], type: DialogEvent["type"], data: string | number = ""): void => { host.send({ id: w.id, cmd, data: String(data), type }); };

/** A label without LibreOffice's mnemonic marks, in the page's language (office-text.ts). */
export const plain = officeText;

/** What a screen reader says of a widget: its label, or the text LibreOffice gave its accessibility. */
const accessibleName = (w: JsWidget): string => plain(w.aria?.label) || plain(w.text);

/** Builds a widget and its children; null for what has nothing to show (scroll bars). */
export function buildWidget(w: JsWidget, host: WidgetHost): HTMLElement | null {
  const make = BUILDERS[w.type] ?? buildContainer;
  const e = make(w, host);
  if (!e) return null;
  if (w.id) {
    e.dataset.widget = w.id;
    host.remember(w, e);
  }
  if (w.visible === false) e.hidden = true;
  if (w.enabled === false) disable(e, true);
  const tip = officeTip(w.aria?.description);
  if (tip && !e.title) e.title = tip;
  if (w.left !== undefined && w.top !== undefined) {
    e.style.gridColumn = String(Number(w.left) + 1);
    e.style.gridRow = String(Number(w.top) + 1);
  }
  return e;
}

/** Builds widgets into `into`, in order (what has nothing to show left out). */
export function buildInto<E extends HTMLElement>(into: E, widgets: JsWidget[] | undefined, host: WidgetHost): E {
  for (const c of widgets ?? []) {
    const e = buildWidget(c, host);
    if (e) into.append(e);
  }
  return into;
}

/** LibreOffice's act on a widget (`jsdialog:` `"action"`): shown, hidden, enabled, disabled, its text set. */
export function applyWidgetAction(e: HTMLElement, data: { action_type: string; [k: string]: unknown }): void {
  switch (data.action_type) {
    case "show": e.hidden = false; break;
    case "hide": e.hidden = true; break;
    case "enable": disable(e, false); break;
    case "disable": disable(e, true); break;
    case "setText": {
      const input = e.matches("input, textarea") ? (e as HTMLInputElement) : e.querySelector<HTMLInputElement>("input, textarea");
      // Not over what the person is typing.
      if (input && focused() !== input) input.value = String(data.text ?? "");
      break;
    }
  }
}

export function disable(e: HTMLElement, off: boolean): void {
  e.classList.toggle("jsd-disabled", off);
  for (const c of [e, ...e.querySelectorAll<HTMLElement>("input, select, button, textarea")]) {
    if ("disabled" in c) (c as HTMLInputElement).disabled = off;
  }
}

let radioGroups = 0;

function children(w: JsWidget, host: WidgetHost, into: HTMLElement): HTMLElement {
  // Radio buttons side by side in one container are one group (arrow keys move within it);
  // LibreOffice's ids repeat across a dialog (every sort key's grid is "grid1").
  const group = host.domId("radios-" + ++radioGroups);
  for (const c of w.children ?? []) {
    const e = buildWidget(c, host);
    if (!e) continue;
    if (c.type === "radiobutton") e.querySelector("input")!.name = group;
    into.append(e);
  }
  return into;
}

function buildContainer(w: JsWidget, host: WidgetHost): HTMLElement {
  return children(w, host, div("jsd-box" + (w.vertical === false ? " jsd-row" : " jsd-col")));
}

function buildGrid(w: JsWidget, host: WidgetHost): HTMLElement {
  return children(w, host, div("jsd-grid"));
}

/** A frame: its first text is its caption (a fieldset's legend). */
function buildFrame(w: JsWidget, host: WidgetHost): HTMLElement {
  const box = el("fieldset", { "class": "jsd-frame" });
  const [caption, ...rest] = w.children ?? [];
  // The caption keeps the id a field may name as its label (labelledBy).
  if (caption && caption.type === "fixedtext") box.append(el("legend", { id: caption.id ? host.domId(caption.id) + "-label" : null, text: plain(caption.text) }));
  else if (caption) buildInto(box, [caption], host);
  children({ ...w, children: rest }, host, box);
  // A field alone in a frame with no label of its own is named by the frame's caption
  // (Format Cells' "Format code").
  const legend = box.querySelector("legend")?.textContent;
  const fields = [...box.querySelectorAll<HTMLElement>("input:not([type=checkbox]):not([type=radio]), select, textarea")];
  if (legend && fields.length === 1 && !fields[0]!.getAttribute("aria-label") && !fields[0]!.getAttribute("aria-labelledby") && !box.querySelector("label[for]")) aria(fields[0]!, "label", legend);
  return box;
}

function buildText(w: JsWidget, host: WidgetHost): HTMLElement {
  // Its id is what a widget that names it as its label (labelledBy) points to.
  const id = w.id ? host.domId(w.id) + "-label" : null;
  const text = unfilled(plain(w.text));
  if (w.labelFor) return el("label", { "class": "jsd-label", id, for: host.domId(w.labelFor), text });
  return el("span", { "class": "jsd-text", id, text });
}

/**
 * A label whose placeholder LibreOffice fills only once something is chosen (the chart wizard's
 * "Range for %VALUETYPE" before a data series is picked): shown without the raw placeholder.
 */
export const unfilled = (t: string): string => t.includes("%") ? t.replace(/\s+(?:for|of)\s+%[A-Z_]+\b/g, "").replace(/\s*%[A-Z_]{2,}\b/g, "").trim() : t;

/** A widget's own input gets the label LibreOffice links to it, or its accessible name. */
function labelled(input: HTMLElement, w: JsWidget, host: WidgetHost): void {
  input.id = host.domId(w.id);
  if (w.labelledBy) aria(input, "labelledby", host.domId(w.labelledBy) + "-label");
  const name = accessibleName(w) || unlabelledName(w);
  if (name && !w.labelledBy) aria(input, "label", name);
}

/**
 * A name for a field LibreOffice gives none, where its id says what it is for in words the page
 * has in its language: a search field (the AutoFilter's). Ids themselves are never shown: they are
 * English and no words (`trWestFontName`).
 */
const unlabelledName = (w: JsWidget): string => (/search/i.test(String(w.id ?? "")) ? T.find : "");

function buildEdit(w: JsWidget, host: WidgetHost): HTMLElement {
  const multiline = w.type === "multilineedit";
  const input = multiline ? el("textarea", { "class": "jsd-edit", rows: "4" }) : el("input", { "class": "jsd-edit", type: "text" });
  input.value = w.text ?? "";
  labelled(input, w, host);
  const sendText = () => act(host, w, "change", "edit", input.value);
  listen(input, "change", sendText);
  // LibreOffice filters some lists as one types (Special Character's search).
  let typing: ReturnType<typeof setTimeout> | undefined;
  listen(input, "input", () => { clearTimeout(typing); typing = setTimeout(sendText, 300); });
  return input;
}

/**
 * A number with its unit ("1.00″", "100%"): typed as text, sent as the number (LibreOffice's
 * spin field takes it in the field's own unit); arrow keys step it.
 */
function buildNumber(w: JsWidget, host: WidgetHost): HTMLElement {
  const input = el("input", { "class": "jsd-number", type: "text", inputmode: "decimal", role: "spinbutton" });
  input.value = w.text ?? String(w.value ?? "");
  labelled(input, w, host);
  if (w.min !== undefined) aria(input, "valuemin", w.min);
  if (w.max !== undefined) aria(input, "valuemax", w.max);
  if (w.value !== undefined) aria(input, "valuenow", w.value);
  aria(input, "valuetext", input.value);
  const number = (text: string) => {
    const m = /-?\d+([.,]\d+)?/.exec(text);
    return m ? Number(m[0].replace(",", ".")) : NaN;
  };
  const sendValue = (v: number) => {
    if (Number.isFinite(v)) act(host, w, "value", "spinfield", v);
  };
  listen(input, "change", () => { sendValue(number(input.value)); });
  listen(input, "keydown", (e) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    const step = Number(w.step) || 1;
    const now = number(input.value);
    const next = Math.round(((Number.isFinite(now) ? now : 0) + (e.key === "ArrowUp" ? step : -step)) * 1000) / 1000;
    input.value = String(next);
    sendValue(next);
  });
  return input;
}

function buildCheck(w: JsWidget, host: WidgetHost): HTMLElement {
  const input = el("input", { type: w.type === "radiobutton" ? "radio" : "checkbox" });
  input.id = host.domId(w.id);
  input.checked = w.checked === true;
  listen(input, "change", () => {
    act(host, w, "change", w.type === "radiobutton" ? "radiobutton" : "checkbox", input.checked ? "true" : "false");
  });
  const label = el("label", { "class": "jsd-check", for: input.id }, [input, el("span", { text: plain(w.text) })]);
  return label;
}

function buildList(w: JsWidget, host: WidgetHost): HTMLElement {
  const entries = (w.entries ?? []).map((e) => plain(typeof e === "string" ? e : e.text));
  const selected = Number(w.selectedEntries?.[0] ?? -1);
  if (w.type === "combobox" && w.children?.some((c) => c.type === "edit")) {
    // A list one may also type into (a font name, a size).
    const input = el("input", { "class": "jsd-edit", type: "text" });
    const listId = host.domId(w.id) + "-entries";
    input.setAttribute("list", listId);
    input.value = w.text ?? entries[selected] ?? "";
    labelled(input, w, host);
    listen(input, "change", () => {
      const at = entries.indexOf(input.value);
      if (at >= 0) act(host, w, "selected", "combobox", `${at};${input.value}`);
      else act(host, w, "change", "combobox", input.value);
    });
    return el("span", { "class": "jsd-combo" }, [input, el("datalist", { id: listId }, entries.map((t) => el("option", { value: t })))]);
  }
  const select = el("select", { "class": "jsd-select" });
  entries.forEach((t, i) => { select.append(new Option(t, String(i))); });
  select.selectedIndex = selected;
  labelled(select, w, host);
  listen(select, "change", () => {
    act(host, w, "selected", "combobox", `${select.selectedIndex};${entries[select.selectedIndex] ?? ""}`);
  });
  return select;
}

function buildButton(w: JsWidget, host: WidgetHost): HTMLElement {
  const b = el("button", { "class": "jsd-button" + (w.has_default ? " jsd-default" : ""), text: plain(w.text) || symbolText(w.symbol) });
  b.id = host.domId(w.id);
  // A button of no text and no name of LibreOffice's (the sidebar's deck menu, Format Cells'
  // image buttons): named by what it does, else by its id, never left nameless for a screen reader.
  const name = accessibleName(w) || (w.type === "menubutton" ? T.more : plain(String(w.id ?? "").replace(/[_-]+/g, " ").trim()));
  if (name && !b.textContent) { aria(b, "label", name); b.title = name; }
  // A button LibreOffice draws as a picture (a range chooser, Format Cells' format-code buttons):
  // its picture (named by the button's label), never a blank pill.
  if (!b.textContent && w.image) b.append(el("img", { src: String(w.image), alt: "" }));
  if (w.type === "menubutton") {
    aria(b, "haspopup", "true");
    listen(b, "click", () => { act(host, w, "toggle", "menubutton"); });
    return b;
  }
  listen(b, "click", () => {
    act(host, w, "click", host.responses.has(w.id) ? "responsebutton" : "pushbutton");
  });
  return b;
}

const SYMBOLS: Record<string, string> = { SPIN_DOWN: "▾", SPIN_UP: "▴", NEXT: "›", PREV: "‹", ARROW_UP: "▲", ARROW_DOWN: "▼", ARROW_LEFT: "◀", ARROW_RIGHT: "▶" };
const symbolText = (symbol: string | undefined): string => SYMBOLS[symbol ?? ""] ?? "";

/** The dialog's OK, Cancel…: Help is left out (LibreOffice's help is not served here). */
function buildButtonBox(w: JsWidget, host: WidgetHost): HTMLElement {
  return buildInto(div("jsd-buttons"), w.children?.filter((c) => c.id !== "help"), host);
}

/** Tabs: one tablist, every page built (LibreOffice sends them all), the selected one shown. */
function buildTabs(w: JsWidget, host: WidgetHost): HTMLElement {
  const tabs = w.tabs ?? [];
  // A VCL tab control's pages are "tabpage"s; a notebook's (GtkNotebook in the .ui) are its
  // children in order, whatever their type.
  const tabPages = (w.children ?? []).filter((c) => c.type === "tabpage");
  const pages = tabPages.length ? tabPages : (w.children ?? []);
  const list = el("div", { role: "tablist", "class": "jsd-tablist" });
  const box = div("jsd-tabs", [list]);
  const selectedAt = Math.max(0, tabs.findIndex((t) => String(t.id) === String(w.selected)));
  const panels: HTMLElement[] = [];
  const buttons: HTMLButtonElement[] = [];
  tabs.forEach((t, i) => {
    const tabId = host.domId(w.id + "-tab-" + i);
    const panelId = host.domId(w.id + "-page-" + i);
    const b = el("button", { role: "tab", id: tabId, "aria-controls": panelId, "aria-selected": String(i === selectedAt), tabindex: i === selectedAt ? "0" : "-1", text: plain(t.text) });
    b.dataset.tab = t.name;
    listen(b, "click", () => { show(i); act(host, w, "selecttab", "tabcontrol", i); });
    buttons.push(b);
    list.append(b);
    const page = pages[i];
    const panel = page ? children(page, host, el("div", { role: "tabpanel", "class": "jsd-page", id: panelId, "aria-labelledby": tabId })) : el("div", { role: "tabpanel", id: panelId });
    panel.hidden = i !== selectedAt;
    panels.push(panel);
    box.append(panel);
  });
  const show = (i: number) => {
    buttons.forEach((b, j) => { aria(b, "selected", i === j); b.tabIndex = i === j ? 0 : -1; });
    panels.forEach((p, j) => { p.hidden = i !== j; });
  };
  listen(list, "keydown", (e) => {
    const at = buttons.indexOf(focused() as HTMLButtonElement);
    if (at < 0 || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    e.preventDefault();
    const next = buttons[(at + (e.key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length]!;
    next.focus();
    next.click();
  });
  return box;
}

/**
 * A picture LibreOffice draws (a preview, a character grid): shown as its image; a click is sent
 * where it fell, as a fraction of the picture (LibreOffice scales it to the area's size).
 */
function buildDrawing(w: JsWidget, host: WidgetHost): HTMLElement {
  const img = el("img", { "class": "jsd-drawing", alt: accessibleName(w), draggable: "false" });
  if (w.image) img.src = w.image;
  if (w.imagewidth) img.width = Number(w.imagewidth);
  if (w.imageheight) img.height = Number(w.imageheight);
  img.tabIndex = 0;
  for (const cmd of ["click", "dblclick"] as const) {
    listen(img, cmd, (e) => {
      const r = img.getBoundingClientRect();
      const x = r.width ? (e.clientX - r.left) / r.width : 0, y = r.height ? (e.clientY - r.top) / r.height : 0;
      act(host, w, cmd, "drawingarea", `${x.toFixed(4)};${y.toFixed(4)}`);
    });
  }
  return img;
}

/** A row's text: its own, else its columns' texts. */
const rowText = (r: JsTreeEntry): string => plain(r.text ?? r.columns?.map((c) => c.text ?? "").filter(Boolean).join("  ") ?? "");

/**
 * A list of rows each with a checkbox (the AutoFilter's values: rows with a `state`): a group of
 * labelled checkboxes. A tick goes as Collabora's client sends it: the row and its new state, as
 * URI-encoded JSON, which LibreOffice's executor decodes and sets (and then tells its handler).
 */
function buildCheckTree(w: JsWidget, host: WidgetHost, rows: JsTreeEntry[]): HTMLElement {
  const list = el("div", { role: "group", "class": "jsd-tree jsd-checktree", id: host.domId(w.id), "aria-label": accessibleName(w) || null });
  rows.forEach((r, i) => {
    const input = el("input", { type: "checkbox" });
    input.checked = r.state === true;
    listen(input, "change", () => {
      act(host, w, "change", "treeview", encodeURIComponent(JSON.stringify({ row: Number(r.row ?? i), value: input.checked })));
    });
    list.append(el("label", { "class": "jsd-check jsd-row-item" }, [input, el("span", { text: rowText(r) })]));
  });
  return list;
}

/**
 * A list of rows (a tree view): one option per row, in LibreOffice's order. A menu's separator
 * (a row LibreOffice names "Separator", as in the AutoFilter's menu) is drawn as a line, not a
 * row; a menu that acts on a single click (`singleclickactivate`) runs its entry on the click.
 */
function buildTree(w: JsWidget, host: WidgetHost): HTMLElement {
  const rows: JsTreeEntry[] = [];
  const flatten = (entries: JsTreeEntry[]) => { for (const e of entries) { rows.push(e); if (e.children) flatten(e.children); } };
  flatten((w.entries ?? []).filter((e): e is JsTreeEntry => typeof e !== "string"));
  if (rows.some((r) => r.state !== undefined)) return buildCheckTree(w, host, rows);
  const menu = w.singleclickactivate === true;
  // A menu (the AutoFilter's: acts on a single click, has separator lines) is a menu of items, a
  // list a listbox of options; the current row is marked as each role allows.
  const itemRole = menu ? "menuitem" : "option", current = menu ? "data-current" : "aria-selected";
  const list = el("div", { role: menu ? "menu" : "listbox", "class": "jsd-tree", tabindex: "0", id: host.domId(w.id), "aria-label": accessibleName(w) || unlabelledName(w) || null });
  const options = rows.map((r, i) => {
    const text = rowText(r);
    if (menu && text === "Separator") {
      const line = el("div", { role: "separator", "class": "jsd-menu-separator" });
      list.append(line);
      return line;
    }
    const o = el("div", { role: itemRole, "class": "jsd-row-item", [current]: String(r.selected === true), text });
    listen(o, "click", () => {
      select(i);
      if (menu) act(host, w, "activate", "treeview", i);
    });
    listen(o, "dblclick", () => { act(host, w, "activate", "treeview", i); });
    list.append(o);
    return o;
  });
  const select = (i: number) => {
    options.forEach((o, j) => { if (o.role === itemRole) o.setAttribute(current, String(i === j)); });
    options[i]?.scrollIntoView({ block: "nearest" });
    act(host, w, "select", "treeview", i);
  };
  listen(list, "keydown", (e) => {
    const at = options.findIndex((o) => o.getAttribute(current) === "true");
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      let next = Math.max(0, Math.min(options.length - 1, at + step));
      if (options[next]?.role === "separator") next = Math.max(0, Math.min(options.length - 1, next + step));
      select(next);
    } else if (e.key === "Enter" && at >= 0) {
      e.preventDefault();
      act(host, w, "activate", "treeview", at);
    }
  });
  return list;
}

function buildIconView(w: JsWidget, host: WidgetHost): HTMLElement {
  const list = el("div", { role: "listbox", "class": "jsd-icons", id: host.domId(w.id), "aria-label": accessibleName(w) });
  (w.entries ?? []).forEach((entry, i) => {
    const e = typeof entry === "string" ? { text: entry } : entry;
    const o = el("button", { role: "option", "class": "jsd-icon", "aria-selected": String(e.selected === true), title: officeTip(e.tooltip ?? e.text) });
    if (e.image) o.append(el("img", { src: e.image, alt: plain(e.text ?? e.tooltip) }));
    else o.textContent = plain(e.text);
    listen(o, "click", () => { act(host, w, "select", "iconview", i); });
    listen(o, "dblclick", () => { act(host, w, "activate", "iconview", i); });
    list.append(o);
  });
  return list;
}

function buildExpander(w: JsWidget, host: WidgetHost): HTMLElement {
  const [caption, ...rest] = w.children ?? [];
  const d = el("details", { "class": "jsd-expander" });
  if (w.expanded === true) d.open = true;
  const summary = el("summary", { text: plain(caption?.text ?? w.text) });
  listen(summary, "click", () => { act(host, w, "toggle", "expander"); });
  d.append(summary);
  return buildInto(d, rest, host);
}

/**
 * A toolbox: its items are LibreOffice's commands (the sidebar's Bold, Italic…), each a button with
 * its Colibre icon and its name, pressed when on; a control inside it (a font list) is built as
 * itself.
 */
function buildToolbox(w: JsWidget, host: WidgetHost): HTMLElement {
  const bar = el("div", { role: "toolbar", "class": "jsd-toolbox", "aria-label": accessibleName(w) || null });
  for (const item of w.children ?? []) {
    if (item.type !== "toolitem") {
      buildInto(bar, [item], host);
      continue;
    }
    const command = typeof item.command === "string" ? item.command : "";
    // A deck's own title-bar toggle (command "toggle", no id) has nothing to do here.
    if (!command.startsWith(".uno:") && !item.id) continue;
    const label = plain(item.text) || plain(item.aria?.label) || command || String(item.id ?? "");
    const b = el("button", { "class": "jsd-tool", ...named(label), "data-cmd": command || null });
    if (command.startsWith(".uno:")) b.append(icon(iconName(command), "sc"));
    else b.textContent = label;
    if ((item as { selected?: unknown }).selected === true || item.checked === true) aria(b, "pressed", "true");
    if (item.enabled === false) b.disabled = true;
    if (item.visible === false) b.hidden = true;
    if (command.startsWith(".uno:")) {
      // A command goes through the door as the toolbar's do (Collabora's sidebar sends it so too),
      // and shows the engine's state at the cursor; the watch ends once the button is gone.
      listen(b, "click", () => { run(command); });
      const stop = watch(command, (v) => {
        if (!b.isConnected && b.dataset.built) { stop(); return; }
        aria(b, "pressed", v === "true");
        b.disabled = v === "disabled";
      });
      requestAnimationFrame(() => { b.dataset.built = "1"; });
    } else {
      listen(b, "click", () => { act(host, w, "click", "toolbox", String(item.id ?? "")); });
    }
    bar.append(b);
  }
  return bar;
}

/** A sidebar panel: a titled section (Character, Paragraph…) of its deck. */
function buildPanel(w: JsWidget, host: WidgetHost): HTMLElement {
  const title = plain(w.text);
  const section = el("section", { "class": "jsd-panel", "aria-label": title || null });
  if (title) section.append(el("h3", { text: title }));
  return children(w, host, section);
}

const nothing = (): null => null;

const BUILDERS: Record<string, (w: JsWidget, host: WidgetHost) => HTMLElement | null> = {
  container: buildContainer,
  grid: buildGrid,
  frame: buildFrame,
  fixedtext: buildText,
  edit: buildEdit,
  multilineedit: buildEdit,
  formattedfield: buildNumber,
  spinfield: buildNumber,
  metricfield: buildNumber,
  checkbox: buildCheck,
  radiobutton: buildCheck,
  listbox: buildList,
  combobox: buildList,
  pushbutton: buildButton,
  okbutton: buildButton,
  cancelbutton: buildButton,
  // LibreOffice's help is not served here.
  helpbutton: nothing,
  menubutton: buildButton,
  buttonbox: buildButtonBox,
  tabcontrol: buildTabs,
  drawingarea: buildDrawing,
  treelistbox: buildTree,
  treeview: buildTree,
  iconview: buildIconView,
  expander: buildExpander,
  toolbox: buildToolbox,
  deck: buildContainer,
  panel: buildPanel,
  separator: () => el("hr", { "class": "jsd-separator" }),
  image: (w) => el("img", { "class": "jsd-image", src: String(w.image ?? ""), alt: accessibleName(w) }),
  scrollbar: nothing,
  scrollbarbox: nothing,
  // The popups of menu buttons (colour palettes) are sent as their own windows when opened.
  dockingwindow: nothing,
};
