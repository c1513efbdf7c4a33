// LibreOffice's dialogs in the page (issue 33): a dialog command (Format > Paragraph…) makes
// LibreOffice describe the dialog as JSDialog JSON (`jsdialog:`); it is drawn here as a modal
// HTML dialog (dialog-widgets.ts builds its widgets), each act on a widget goes back as a
// `dialogevent`, LibreOffice answers with the widgets that changed (`update`), acts on widgets
// (`action`: show, hide, enable, setText…) and finally `close`. On a narrow screen a dialog is a
// full-screen sheet. Nothing of the dialog's state is kept here: LibreOffice owns it.
// A drop-down LibreOffice opens (Calc's AutoFilter and its submenus: `jsontype` "dialog", `type`
// "modalpopup") is a popup at its place, over what opened it: its ✕, Escape and a click outside it
// close it as a popover (`__POPOVER__`), the topmost window first. LibreOffice also describes the
// AutoFilter's submenus, hidden, as `jsontype` "popup" when the drop-down opens: those are not
// shown (Collabora's client ignores them too); the one asked for comes again as a drop-down.
// While any of these is open the document behind takes no input (S.modalWindows; the server
// refuses it too).

import { dialogEventCommand, type DialogEvent, type JsDialogMessage, type JsWidget } from "../../protocol/dialog-frames";
import { act, applyWidgetAction, buildInto, buildWidget, plain, type WidgetHost } from "./dialog-widgets";
import { closeButton, div, el, keepTabIn } from "./controls";
import { api, S } from "./state";
import { scopeIds, stepList, wizardPages } from "./wizard";
import { aria, byId, focused, listen, moveTo } from "./dom";

interface OpenDialog {
  windowId: string;
  kind: string;
  root: HTMLElement;
  widgets: Map<string, HTMLElement>;
  responses: Map<string, number>;
  /** What had the keyboard before the dialog opened (given back when it closes). */
  before: Element | null;
  /** A drop-down (closed as a popover), not a dialog. */
  dropDown: boolean;
  /** A wizard's step list marks the step shown again (after LibreOffice shows or hides a page). */
  refresh?: () => void;
}

const open = new Map<string, OpenDialog>();
/**
 * Where the person last pressed the document, or the cell cursor's foot after a key (Calc's
 * Alt+Down opens a cell's validity list): a drop-down opened from it is placed there.
 */
let pressedAt = { x: 0, y: 0 };
/** The last press on the document was a key, not the mouse. */
let byKey = false;
const counted = () => { S.modalWindows = open.size + tunnelledCount() + asked; };
/** The page's own small forms open (ask.ts: a sheet's name, a link): modal too. */
let asked = 0;
export function askedOpen(open: boolean): void { asked = Math.max(0, asked + (open ? 1 : -1)); counted(); }
let tunnelledCount = (): number => 0;
/** The tunnelled windows' share of the modal windows (tunnelled-windows.ts tells it). */
export function countTunnelled(count: () => number): void { tunnelledCount = count; counted(); }
export const recount = (): void => { counted(); };
/** The dialogs open now, for the tests: window id → LibreOffice's dialog name. */
export const openDialogs = (): Record<string, string> => Object.fromEntries([...open].map(([id, d]) => [id, d.root.dataset.dialog ?? ""]));

function host(d: OpenDialog): WidgetHost {
  return {
    domId: (widgetId) => `jsd-${d.windowId}-${widgetId.replace(/[^A-Za-z0-9_-]/g, "_")}`,
    send: (e: DialogEvent) => { api.send(dialogEventCommand(d.windowId, e)); },
    responses: d.responses,
    remember: (w: JsWidget, e: HTMLElement) => { d.widgets.set(w.id, e); },
  };
}

const focusable = (root: HTMLElement): HTMLElement[] =>
  [...root.querySelectorAll<HTMLElement>("input, select, textarea, button, [tabindex]")].filter((e) => !(e as HTMLInputElement).disabled && e.tabIndex >= 0 && e.offsetParent !== null);

/**
 * A field LibreOffice gives no label (the line spacing list, a spare field) is named by the
 * frame it is in, else by the dialog's title: a screen reader never meets a nameless field.
 */
function nameUnlabelled(root: HTMLElement, fallback: string): void {
  for (const f of root.querySelectorAll<HTMLElement>("input, select, textarea, [role=listbox]")) {
    if (f.getAttribute("aria-label") || f.getAttribute("aria-labelledby") || f.closest("label")) continue;
    if (f.id && root.querySelector(`label[for="${CSS.escape(f.id)}"]`)) continue;
    const legend = f.closest("fieldset")?.querySelector("legend")?.textContent;
    aria(f, "label", legend || fallback);
  }
}

/** A modal box as every dialog of the page is drawn: its heading (which names it) and close box, then `content`. */
export function dialogBox(heading: HTMLHeadingElement, close: () => void, content: HTMLElement, cls = ""): HTMLDivElement {
  return el("div", { role: "dialog", "aria-modal": "true", "aria-labelledby": heading.id, "class": "jsd-dialog" + cls }, [
    el("header", { "class": "jsd-title" }, [heading, closeButton("jsd-close", close)]),
    content,
  ]);
}

/** Cancel, as the dialog's own Cancel button (or its close box) would. */
function cancel(d: OpenDialog): void {
  const h = host(d);
  if (d.dropDown) act(h, { id: "__POPOVER__" }, "close", "popover");
  else if (d.responses.has("cancel")) act(h, { id: "cancel" }, "click", "responsebutton");
  else act(h, { id: "__DIALOG__" }, "close", "dialog");
}

function show(message: JsWidget & { jsontype: string }): void {
  const windowId = String(message.id);
  const existing = open.get(windowId);
  if (existing) existing.root.remove();
  const dropDown = message.type === "modalpopup" || message.type === "dropdown";
  const d: OpenDialog = { windowId, kind: message.jsontype, root: el("div"), widgets: new Map(), responses: new Map(), before: existing?.before ?? focused(), dropDown };
  for (const r of message.responses ?? []) d.responses.set(r.id, r.response);
  open.set(windowId, d);
  const h = host(d);
  const title = plain(message.title || message.text);
  const titleId = h.domId("title");
  const body = buildInto(div("jsd-body"), message.children, h);
  // The dialog's own buttons (OK, Cancel; a wizard's Back, Next, Finish) stay in view below its
  // scrolling body, however long the page.
  const buttons = [...body.querySelectorAll<HTMLElement>(".jsd-buttons")].reverse().find((b) => b.querySelector('[data-widget="ok"], [data-widget="cancel"], [data-widget="finish"], [data-widget="close"]'));
  const pages = dropDown ? null : wizardPages(message);
  let main: HTMLElement = body;
  if (pages) {
    const pageElements = [...body.querySelectorAll<HTMLElement>(".jsd-box, .jsd-grid")].filter((e) => pages.some((p) => String(p.id) === e.dataset.widget));
    pageElements.forEach((e, i) => { e.dataset.idScope = String(i); scopeIds(e, e); });
    const steps = stepList(pages, (p) => pageElements.find((e) => e.dataset.widget === String(p.id)));
    d.refresh = steps.refresh;
    main = div("jsd-wizard", [steps.nav, body]);
  }
  const box = dialogBox(el("h2", { id: titleId, text: title }), () => { cancel(d); }, main);
  if (buttons) { buttons.classList.add("jsd-footer"); box.append(buttons); }
  box.dataset.dialog = String(message.dialogid ?? (dropDown ? "dropdown" : ""));
  d.root = div(dropDown ? "jsd-overlay jsd-dropdown-layer" : "jsd-overlay", [box]);
  d.root.dataset.dialog = box.dataset.dialog;
  d.root.dataset.window = windowId;
  if (dropDown) {
    box.classList.add("jsd-dropdown");
    if (!title) aria(box, "label", plain(message.children?.[0]?.id) || "menu");
    place(box, message, existing, d);
    // A click outside the drop-down closes it (as on a desktop), never reaching the document.
    listen(d.root, "mousedown", (e) => { if (e.target === d.root) { e.preventDefault(); cancel(d); } });
  }
  listen(box, "keydown", (e) => {
    // The document's shortcuts never see a key typed in a dialog.
    e.stopPropagation();
    if (e.key === "Escape") { e.preventDefault(); cancel(d); return; }
    if (e.key === "Enter" && (e.target as HTMLElement).tagName === "INPUT" && d.responses.has("ok")) {
      // Enter in a field: the field's value first (its change), then OK, as on a desktop.
      (e.target as HTMLInputElement).dispatchEvent(new Event("change"));
      e.preventDefault();
      act(h, { id: "ok" }, "click", "responsebutton");
      return;
    }
    if (e.key !== "Tab") return;
    // The keyboard stays inside a modal dialog.
    keepTabIn(e, focusable(box));
  });
  document.body.append(d.root);
  counted();
  nameUnlabelled(box, title);
  const initial = message.init_focus_id ? d.widgets.get(message.init_focus_id) : undefined;
  const target = initial && focusable(initial).concat(initial.matches("input, select, button, textarea") ? [initial] : [])[0];
  (target || focusable(box)[0] || box).focus();
}

/** A widget described again: built anew in its place, keeping the keyboard where it was. */
function update(d: OpenDialog, w: JsWidget): void {
  const old = d.widgets.get(w.id);
  if (!old || !old.isConnected) return;
  const hadFocus = old.contains(focused());
  const placed = { column: old.style.gridColumn, row: old.style.gridRow };
  const fresh = buildWidget(w, host(d));
  if (!fresh) return;
  // An update carries no grid place of its own: it keeps the old one.
  if (!fresh.style.gridColumn) fresh.style.gridColumn = placed.column;
  if (!fresh.style.gridRow) fresh.style.gridRow = placed.row;
  old.replaceWith(fresh);
  const scope = fresh.closest<HTMLElement>("[data-id-scope]");
  if (scope) scopeIds(fresh, scope);
  const box = boxOf(d);
  if (box) nameUnlabelled(box, box.querySelector("h2")?.textContent ?? "");
  if (hadFocus) (focusable(fresh)[0] ?? fresh).focus();
}


/**
 * A drop-down at its place: the first over the document where the person pressed it (Calc's
 * filter arrow), a submenu beside the drop-down it came from; kept inside the window.
 */
/** An open dialog's box (its overlay holds nothing else). */
const boxOf = (d: OpenDialog): HTMLElement | null => d.root.querySelector(".jsd-dialog");

function place(box: HTMLElement, m: JsWidget, existing: OpenDialog | undefined, self: OpenDialog): void {
  const old = existing && boxOf(existing);
  // Another drop-down, not this one (already among the open windows): the first has no parent.
  const above = [...open.values()].reverse().find((o) => o.dropDown && o !== self);
  const parent = above && boxOf(above);
  const cell = byId("cellcursor");
  if (byKey && cell?.offsetParent) {
    const r = cell.getBoundingClientRect();
    pressedAt = { x: r.left, y: r.bottom - 4 };
  }
  let x = pressedAt.x, y = pressedAt.y + 4;
  if (old) { x = old.offsetLeft; y = old.offsetTop; }
  else if (parent) {
    const r = parent.getBoundingClientRect();
    x = r.right;
    y = r.top + Math.max(0, Number(m.posy) || 0) / 2;
  }
  moveTo(box, x, y);
  requestAnimationFrame(() => {
    const r = box.getBoundingClientRect();
    if (r.right > innerWidth) box.style.left = Math.max(0, innerWidth - r.width - 4) + "px";
    if (r.bottom > innerHeight) box.style.top = Math.max(0, innerHeight - r.height - 4) + "px";
  });
}

function close(windowId: string): void {
  const d = open.get(windowId);
  if (!d) return;
  open.delete(windowId);
  const hadFocus = d.root.contains(focused()) || focused() === document.body;
  d.root.remove();
  counted();
  if (!hadFocus) return;
  // The keyboard goes to the window now on top, else back to the document (or where it was),
  // never to the page's body (where Escape and typing would reach nothing).
  const top = [...open.values()].pop();
  if (top) {
    const box = boxOf(top)!;
    (focusable(box)[0] ?? box).focus();
  } else if (d.before instanceof HTMLElement && d.before.isConnected && d.before !== document.body && !d.before.closest(".jsd-overlay")) d.before.focus();
  else api.focus();
}

export function onJsDialog({ message: m }: { message: JsDialogMessage }): void {
  const windowId = String(m.id);
  if (m.action === "close") return close(windowId);
  if (m.action === "update") {
    const d = open.get(windowId);
    if (d) { update(d, m.control); d.refresh?.(); }
    return;
  }
  if (m.action === "action") {
    const d = open.get(windowId);
    const e = d?.widgets.get(m.data.control_id);
    if (e) { applyWidgetAction(e, m.data); d!.refresh?.(); }
    return;
  }
  // Whole descriptions: dialogs and drop-downs. Sidebars, notebookbars and the hidden "popup"
  // descriptions (the AutoFilter's submenus before anyone asks for them) are not shown.
  if (m.action === undefined && m.jsontype === "dialog") show(m);
}

export function installDialogs(): void {
  api.on("jsdialog", onJsDialog);
  listen(document, "mousedown", (e) => { if (!(e.target as Element).closest?.(".jsd-overlay")) { pressedAt = { x: e.clientX, y: e.clientY }; byKey = false; } }, true);
  // Only noted on a key (typing reads no layout): the cell cursor's place is read when a drop-down opens.
  listen(document, "keydown", (e) => { if (!(e.target as Element).closest?.(".jsd-overlay")) byKey = true; }, true);
  // A reconnection (the engine recovered) brings a new engine, where no dialog is open.
  api.on("reconnected", () => { for (const id of [...open.keys()]) close(id); });
}
