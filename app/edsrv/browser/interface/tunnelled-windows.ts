// LibreOffice's dialogs that it does not describe as JSDialog (conditional formatting, among
// others in 25.2) arrive as tunnelled windows (`window:`): LibreOffice paints them, the page shows
// the pixels and sends the person's mouse and keys back in window pixels (Collabora's LokDialog,
// written anew). A window's child (a list box's drop-down) is drawn over its parent at its place.

import { T } from "./texts";
import {
  paintWindowCommand,
  windowCloseCommand,
  windowKeyCommand,
  windowMouseCommand,
  windowTextCommand,
  type WindowMessage,
  type WindowPaint,
} from "../../protocol/dialog-frames";
import { MOD1, MOD2, SHIFT } from "../../protocol/keys";
import { div, el } from "./controls";
import { countTunnelled, dialogBox } from "./dialogs";
import { mirrorControls } from "./window-controls";
import { api, officeText } from "./state";
import { aria, focused, listen, moveTo } from "./dom";

interface TunnelledWindow {
  id: string;
  canvas: HTMLCanvasElement;
  /** The modal box of a dialog; null for a child window (drawn inside its parent's box). */
  box: HTMLElement | null;
  root: HTMLElement;
  title: HTMLElement | null;
  caret: HTMLElement;
  /** What has the keyboard in the window: a hidden field, so that an input method composes here. */
  input: HTMLTextAreaElement;
  paintAsked: boolean;
  /** A dialog's controls for a screen reader (window-controls.ts), once the kit described them. */
  controls: HTMLElement | null;
}

const windows = new Map<string, TunnelledWindow>();
/** The tunnelled windows open now, for the tests: id → title. */
export const openWindows = (): Record<string, string> => Object.fromEntries([...windows].map(([id, w]) => [id, w.title?.textContent ?? ""]));

const pair = (s: string | undefined): [number, number] => {
  const [a, b] = (s ?? "").split(",").map((v) => Math.round(Number(v.trim())));
  return [Number.isFinite(a) ? a! : 0, Number.isFinite(b) ? b! : 0];
};

/** Asks for the whole window once per frame, however many rectangles were invalidated. */
function askPaint(w: TunnelledWindow): void {
  if (w.paintAsked) return;
  w.paintAsked = true;
  requestAnimationFrame(() => {
    w.paintAsked = false;
    if (windows.get(w.id) === w) api.send(paintWindowCommand(w.id, 0, 0, w.canvas.width, w.canvas.height));
  });
}

/**
 * Mouse and keys on the window's pixels, as LibreOffice's own window would get them. The keyboard
 * is a hidden field's over the window (never the document's): keys, Ctrl+letter shortcuts (Ctrl+A
 * selects the field's text, not the page), characters of any script and an input method's
 * composition all go to the window.
 */
function drive(w: TunnelledWindow): void {
  const c = w.canvas, input = w.input;
  let composing = false;
  const modifier = (e: MouseEvent | KeyboardEvent) => (e.shiftKey ? SHIFT : 0) + (e.ctrlKey || e.metaKey ? MOD1 : 0) + (e.altKey ? MOD2 : 0);
  /** The mouse at its place in the window's pixels, with its button and modifiers. */
  const mouse = (type: "buttondown" | "buttonup" | "move", e: MouseEvent, count: number) => {
    const r = c.getBoundingClientRect();
    const x = Math.round(((e.clientX - r.left) * c.width) / r.width), y = Math.round(((e.clientY - r.top) * c.height) / r.height);
    api.send(windowMouseCommand(w.id, type, x, y, count, e.button === 2 ? 4 : e.button === 1 ? 2 : 1, modifier(e)));
  };
  /** A key pressed and released. */
  const key = (char: number, code: number) => {
    api.send(windowKeyCommand(w.id, "input", char, code));
    api.send(windowKeyCommand(w.id, "up", char, code));
  };
  listen(c, "focus", () => { input.focus(); });
  listen(c, "mousedown", (e) => {
    e.preventDefault();
    input.focus();
    mouse("buttondown", e, e.detail || 1);
  });
  listen(c, "mouseup", (e) => { mouse("buttonup", e, e.detail || 1); });
  listen(c, "mousemove", (e) => { if (e.buttons) mouse("move", e, 1); });
  listen(input, "keydown", (e) => {
    e.stopPropagation();
    if (composing || e.isComposing || e.keyCode === 229) return;
    const letter = e.key.length === 1 ? e.key.toLowerCase() : "";
    if ((e.ctrlKey || e.metaKey) && !e.altKey && /^[a-z]$/.test(letter)) {
      // LibreOffice's own shortcut in its field (select all, copy, paste, undo), never the page's.
      e.preventDefault();
      key(0, 512 + letter.charCodeAt(0) - 97 + modifier(e));
      return;
    }
    const code = api.vclKeys[e.key];
    if (code) {
      e.preventDefault();
      key(api.vclChars[e.key] || 0, code + modifier(e));
      return;
    }
    if (Array.from(e.key).length === 1 && !e.metaKey && e.ctrlKey === e.altKey) {
      e.preventDefault();
      api.send(windowTextCommand(w.id, e.key));
    }
  });
  listen(input, "compositionstart", () => { composing = true; });
  listen(input, "compositionend", (e) => {
    composing = false;
    if (e.data) api.send(windowTextCommand(w.id, e.data));
    input.value = "";
  });
  listen(input, "input", (e) => {
    const ev = e as InputEvent;
    if (composing || ev.isComposing) return;
    if ((ev.inputType === "insertText" || ev.inputType === "insertReplacementText") && ev.data) api.send(windowTextCommand(w.id, ev.data));
    input.value = "";
  });
}

function created(m: WindowMessage): void {
  const parentWindow = m.parentId ? windows.get(m.parentId) : undefined;
  // Dialogs and what they open. LibreOffice's other windows of the document (Calc's function
  // tooltip as a formula is typed) are not shown: a box taking the keyboard would swallow the typing.
  if (m.type !== "dialog" && !parentWindow) return;
  const [width, height] = pair(m.size);
  const canvas = el("canvas", { "class": "jsd-window", tabindex: "0", role: "application" });
  canvas.width = Math.max(1, width);
  canvas.height = Math.max(1, height);
  const caret = div("jsd-window-caret");
  caret.hidden = true;
  const input = el("textarea", { "class": "jsd-window-input", "aria-label": officeText(m.title), autocomplete: "off", autocapitalize: "off", spellcheck: "false" });
  const parent = parentWindow;
  let w: TunnelledWindow;
  if (parent) {
    // A drop-down or a popup of a dialog: over the parent, at its position in the parent.
    const [x, y] = pair(m.position);
    const holder = div("jsd-window-child", [canvas, caret, input]);
    moveTo(holder, x, y);
    parent.canvas.parentElement!.append(holder);
    w = { id: m.id, canvas, box: null, root: holder, title: null, caret, input, paintAsked: false, controls: null };
  } else {
    const title = el("h2", { id: "jsd-window-title-" + m.id, text: officeText(m.title) });
    const surface = div("jsd-window-surface", [canvas, caret, input]);
    const box = dialogBox(title, () => { api.send(windowCloseCommand(m.id)); }, surface, " jsd-tunnelled");
    box.dataset.dialog = m.unique_id ?? "";
    // LibreOffice 25.2 describes this dialog to no one (no JSDialog): until the kit has read its
    // controls (describe, below), a screen reader gets its name and how to use it by keyboard.
    canvas.setAttribute("role", "img");
    aria(canvas, "labelledby", title.id);
    aria(canvas, "description", T.paintedDialog);
    aria(box, "description", T.paintedDialog);
    const root = div("jsd-overlay", [box]);
    root.dataset.window = m.id;
    listen(box, "keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape" && e.target !== canvas && e.target !== input) api.send(windowCloseCommand(m.id));
    });
    document.body.append(root);
    w = { id: m.id, canvas, box, root, title, caret, input, paintAsked: false, controls: null };
  }
  windows.set(m.id, w);
  drive(w);
  countTunnelled(modalCount);
  if (!parent) input.focus();
  askPaint(w);
}

/**
 * A dialog's controls, described by the kit: mirrored for a screen reader, which from then on reads
 * them rather than the picture's description.
 */
function describe(w: TunnelledWindow, m: WindowMessage): void {
  if (!w.box) return;
  if (!w.controls) {
    w.controls = el("div", { "class": "sr-only jsd-window-controls", role: "group", "aria-labelledby": "jsd-window-title-" + w.id });
    w.box.append(w.controls);
    aria(w.canvas, "hidden", "true");
    w.box.removeAttribute("aria-description");
  }
  const press = (x: number, y: number) => {
    api.send(windowMouseCommand(w.id, "buttondown", x, y, 1, 1, 0));
    api.send(windowMouseCommand(w.id, "buttonup", x, y, 1, 1, 0));
  };
  mirrorControls({ id: w.id, press, keyboard: w.input }, m.widgets!, m.focused, w.controls);
}

function closed(id: string): void {
  const w = windows.get(id);
  if (!w) return;
  windows.delete(id);
  const hadFocus = w.root.contains(focused()) || focused() === document.body;
  w.root.remove();
  // Its children go with it.
  for (const [childId, child] of windows) if (!child.root.isConnected) windows.delete(childId);
  countTunnelled(modalCount);
  if (!hadFocus) return;
  // The keyboard goes to the window now on top (a child's parent), else back to the document.
  const top = [...windows.values()].pop();
  if (top) top.input.focus();
  else if (w.box) api.focus();
}

/** The tunnelled dialogs open (their drop-downs are inside them). */
const modalCount = (): number => [...windows.values()].filter((w) => w.box).length;

function onWindow({ message: m }: { message: WindowMessage }): void {
  const id = String(m.id);
  if (m.action === "created") return created({ ...m, id });
  const w = windows.get(id);
  if (!w) return;
  switch (m.action) {
    case "invalidate": askPaint(w); break;
    case "size_changed": {
      const [width, height] = pair(m.size);
      if (width > 0 && height > 0) { w.canvas.width = width; w.canvas.height = height; }
      askPaint(w);
      break;
    }
    case "title_changed": if (w.title) w.title.textContent = officeText(m.title); break;
    case "cursor_invalidate": {
      const [x, y] = pair(m.rectangle);
      const [, , , h] = (m.rectangle ?? "").split(",").map((v) => Number(v.trim()));
      moveTo(w.caret, x, y);
      w.caret.style.height = (h || 16) + "px";
      // The input method's window shows where the caret is.
      moveTo(w.input, x, y);
      break;
    }
    case "cursor_visible": w.caret.hidden = m.visible !== "true"; break;
    case "widgets": if (m.widgets) describe(w, m); break;
    case "close": closed(id); break;
  }
}

function onPaint({ paint: p }: { paint: WindowPaint }): void {
  const w = windows.get(String(p.id));
  if (!w) return;
  const img = new Image();
  img.onload = () => { w.canvas.getContext("2d")!.drawImage(img, p.x, p.y); };
  img.src = "data:image/png;base64," + p.png;
}

export function installTunnelledWindows(): void {
  api.on("window", onWindow);
  api.on("windowpaint", onPaint);
  api.on("reconnected", () => { for (const id of [...windows.keys()]) closed(id); });
}
