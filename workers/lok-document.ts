// A document loaded in LibreOfficeKit (LibreOfficeKitDocumentClass), as bun:ffi calls. See lok.ts
// for the rules every call follows.

import { ptr, read, type Pointer } from "bun:ffi";
import { DOCUMENT_SLOTS, cstr, type DocumentSlot } from "./lok-abi";
import { callbackQueue } from "./lok-callbacks";

/** What a document needs of its office: the cached C functions and the string taking (LokOffice). */
export interface DocumentOffice {
  cfunc(key: string, p: Pointer, args: any[], returns: any): (...a: any[]) => any;
  takeString(p: Pointer | null | number): string | null;
  readonly partTileHasMode: boolean;
}

export function slotTable(objectPtr: Pointer, names: readonly string[], what: string): Map<string, Pointer> {
  const cls = read.ptr(objectPtr, 0) as unknown as Pointer;
  if (!cls) throw new Error(`${what}: null class table`);
  const nSize = Number(read.u64(cls, 0));
  const table = new Map<string, Pointer>();
  names.forEach((name, i) => {
    const end = 8 + 8 * (i + 1); // offsetof(slot) + sizeof(pointer)
    if (end > nSize) return; // the running library is older than the header: slot absent
    const fn = read.ptr(cls, 8 + 8 * i) as unknown as Pointer;
    if (fn) table.set(name, fn);
  });
  return table;
}

export class LokDocument {
  private readonly fns: Map<string, Pointer>;
  private readonly cache = new Map<string, (...a: any[]) => any>();
  private destroyed = false;

  constructor(
    private readonly office: DocumentOffice,
    readonly handle: Pointer,
  ) {
    this.fns = slotTable(handle, DOCUMENT_SLOTS, "document");
  }

  has(name: DocumentSlot): boolean {
    return this.fns.has(name);
  }

  private fn(name: DocumentSlot, args: any[], returns: any): (...a: any[]) => any {
    let f = this.cache.get(name);
    if (!f) {
      const p = this.fns.get(name);
      if (!p) throw new Error(`LibreOfficeKitDocumentClass has no ${name}`);
      // One CFunction per (class table, slot): tables are shared by all documents of a process.
      f = this.office.cfunc(`doc.${name}@${p}`, p, args, returns);
      this.cache.set(name, f);
    }
    return f;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.fn("destroy", ["ptr"], "void")(this.handle);
  }

  /** format is an extension known to LOK's own map (pdf, docx, xlsx, odt, txt, csv…), not a filter name. */
  saveAs(url: string, format: string, filterOptions: string): boolean {
    const u = cstr(url), f = cstr(format), o = cstr(filterOptions);
    return this.fn("saveAs", ["ptr", "ptr", "ptr", "ptr"], "i32")(this.handle, ptr(u), ptr(f), ptr(o)) !== 0;
  }

  getDocumentType(): number {
    return this.fn("getDocumentType", ["ptr"], "i32")(this.handle);
  }

  getParts(): number {
    return this.fn("getParts", ["ptr"], "i32")(this.handle);
  }

  getPart(): number {
    return this.fn("getPart", ["ptr"], "i32")(this.handle);
  }

  setPart(part: number): void {
    this.fn("setPart", ["ptr", "i32"], "void")(this.handle, part);
  }

  getPartName(part: number): string | null {
    return this.office.takeString(this.fn("getPartName", ["ptr", "i32"], "ptr")(this.handle, part));
  }

  getPartPageRectangles(): string | null {
    return this.office.takeString(this.fn("getPartPageRectangles", ["ptr"], "ptr")(this.handle));
  }

  getPartInfo(part: number): string | null {
    return this.office.takeString(this.fn("getPartInfo", ["ptr", "i32"], "ptr")(this.handle, part));
  }

  setPartMode(mode: number): void {
    this.fn("setPartMode", ["ptr", "i32"], "void")(this.handle, mode);
  }

  getTileMode(): number {
    return this.fn("getTileMode", ["ptr"], "i32")(this.handle);
  }

  /** Document size in twips (1/1440 inch). */
  getDocumentSize(): { width: number; height: number } {
    const out = new BigInt64Array(2);
    this.fn("getDocumentSize", ["ptr", "ptr", "ptr"], "void")(this.handle, ptr(out, 0), ptr(out, 8));
    return { width: Number(out[0]), height: Number(out[1]) };
  }

  initializeForRendering(args = ""): void {
    const a = cstr(args);
    this.fn("initializeForRendering", ["ptr", "ptr"], "void")(this.handle, ptr(a));
  }

  /** Paints the twip rectangle (x, y, w, h) into a canvasW×canvasH buffer, 4 bytes per pixel (see getTileMode). */
  paintTile(buffer: Uint8Array, canvasW: number, canvasH: number, x: number, y: number, w: number, h: number): void {
    if (buffer.byteLength < canvasW * canvasH * 4) throw new Error("paintTile buffer too small");
    this.fn("paintTile", ["ptr", "ptr", "i32", "i32", "i32", "i32", "i32", "i32"], "void")(
      this.handle, ptr(buffer), canvasW, canvasH, x, y, w, h,
    );
  }

  /**
   * paintTile for another part (slide) than the view shows, without switching the view to it.
   * The one slot whose signature changed rather than being appended: 7.6 inserted `nMode` (0: the
   * slide, 1: its notes) after `nPart` (7.4's header has no nMode, 25.2's has it).
   */
  paintPartTile(buffer: Uint8Array, part: number, canvasW: number, canvasH: number, x: number, y: number, w: number, h: number): void {
    if (buffer.byteLength < canvasW * canvasH * 4) throw new Error("paintPartTile buffer too small");
    if (this.office.partTileHasMode) {
      this.fn("paintPartTile", ["ptr", "ptr", "i32", "i32", "i32", "i32", "i32", "i32", "i32", "i32"], "void")(
        this.handle, ptr(buffer), part, 0, canvasW, canvasH, x, y, w, h,
      );
    } else {
      this.fn("paintPartTile", ["ptr", "ptr", "i32", "i32", "i32", "i32", "i32", "i32", "i32"], "void")(
        this.handle, ptr(buffer), part, canvasW, canvasH, x, y, w, h,
      );
    }
  }

  /** Selects (1), deselects (0) or toggles (2) a part in the part list (slide sorter selection). */
  selectPart(part: number, select: number): void {
    this.fn("selectPart", ["ptr", "i32", "i32"], "void")(this.handle, part, select);
  }

  /** Moves (or duplicates) the selected parts to before `position`. */
  moveSelectedParts(position: number, duplicate: boolean): void {
    this.fn("moveSelectedParts", ["ptr", "i32", "bool"], "void")(this.handle, position, duplicate);
  }

  postUnoCommand(command: string, args = "", notifyWhenFinished = false): void {
    const c = cstr(command), a = cstr(args);
    this.fn("postUnoCommand", ["ptr", "ptr", "ptr", "bool"], "void")(this.handle, ptr(c), ptr(a), notifyWhenFinished);
  }

  getTextSelection(mimeType = "text/plain;charset=utf-8"): string | null {
    const m = cstr(mimeType);
    return this.office.takeString(this.fn("getTextSelection", ["ptr", "ptr", "ptr"], "ptr")(this.handle, ptr(m), null));
  }

  /** Pastes data of a MIME type into the current view as the user's paste would (the engine's own clipboard). */
  paste(mimeType: string, data: Uint8Array): boolean {
    const m = cstr(mimeType);
    const buf = data.byteLength ? data : new Uint8Array(1);
    return this.fn("paste", ["ptr", "ptr", "ptr", "usize"], "bool")(this.handle, ptr(m), ptr(buf), data.byteLength) as boolean;
  }

  resetSelection(): void {
    this.fn("resetSelection", ["ptr"], "void")(this.handle);
  }

  getCommandValues(command: string): string | null {
    const c = cstr(command);
    return this.office.takeString(this.fn("getCommandValues", ["ptr", "ptr"], "ptr")(this.handle, ptr(c)));
  }

  getSignatureState(): number {
    return this.fn("getSignatureState", ["ptr"], "i32")(this.handle);
  }

  // --- Views and input (used by the editing server's kit, workers/kit/) ---------------

  createView(): number {
    return this.fn("createView", ["ptr"], "i32")(this.handle);
  }

  /** A view's language (BCP 47, "vi-VN"): the language of the menus and texts LibreOffice makes for it. */
  setViewLanguage(id: number, language: string): void {
    const l = cstr(language);
    this.fn("setViewLanguage", ["ptr", "i32", "ptr"], "void")(this.handle, id, ptr(l));
  }

  destroyView(id: number): void {
    this.fn("destroyView", ["ptr", "i32"], "void")(this.handle, id);
  }

  setView(id: number): void {
    this.fn("setView", ["ptr", "i32"], "void")(this.handle, id);
  }

  getView(): number {
    return this.fn("getView", ["ptr"], "i32")(this.handle);
  }

  getViewsCount(): number {
    return this.fn("getViewsCount", ["ptr"], "i32")(this.handle);
  }

  /** type: LOK_KEYEVENT_KEYINPUT (0) or KEYUP (1); charCode: Unicode code point; keyCode: VCL key code. */
  postKeyEvent(type: number, charCode: number, keyCode: number): void {
    this.fn("postKeyEvent", ["ptr", "i32", "i32", "i32"], "void")(this.handle, type, charCode, keyCode);
  }

  /** Twip coordinates; type: LOK_MOUSEEVENT_*; buttons: 1 left, 2 middle, 4 right; modifier: VCL KEY_SHIFT etc. */
  postMouseEvent(type: number, x: number, y: number, count: number, buttons: number, modifier: number): void {
    this.fn("postMouseEvent", ["ptr", "i32", "i32", "i32", "i32", "i32", "i32"], "void")(this.handle, type, x, y, count, buttons, modifier);
  }

  /** windowId 0 = the document window; type: LOK_EXT_TEXTINPUT (0) or LOK_EXT_TEXTINPUT_END (2). */
  postWindowExtTextInputEvent(windowId: number, type: number, text: string): void {
    const t = cstr(text);
    this.fn("postWindowExtTextInputEvent", ["ptr", "u32", "i32", "ptr"], "void")(this.handle, windowId, type, ptr(t));
  }

  /** LibreOffice's accessibility events for a view (the focused paragraph's text and its caret). */
  setAccessibilityState(viewId: number, enabled: boolean): void {
    this.fn("setAccessibilityState", ["ptr", "i32", "bool"], "void")(this.handle, viewId, enabled);
  }

  // --- Slideshow rendering (LibreOffice 24.2 and later; Collabora's slideshow uses it) ---------

  /** The deck's slides as a show sees them (hidden ones, transitions, the fields' settings): JSON. */
  getPresentationInfo(): string | null {
    return this.office.takeString(this.fn("getPresentationInfo", ["ptr"], "ptr")(this.handle));
  }

  /**
   * Prepares a slide for the show at about `width`×`height` px (LibreOffice keeps the slide's
   * aspect and answers the size it chose); false when the slide cannot be rendered.
   */
  createSlideRenderer(slide: number, width: number, height: number, background: boolean, masterPage: boolean): { width: number; height: number } | null {
    const size = new Uint32Array([width, height]);
    const ok = this.fn("createSlideRenderer", ["ptr", "i32", "ptr", "ptr", "bool", "bool"], "bool")(this.handle, slide, ptr(size), ptr(size.subarray(1)), background, masterPage);
    return ok ? { width: size[0]!, height: size[1]! } : null;
  }

  /**
   * The slide's next layer (background, master page, the slide's objects, text fields…): pixels
   * into `buffer` when `bitmap`, and LibreOffice's JSON description of it; `done` once none is left.
   */
  renderNextSlideLayer(buffer: Uint8Array): { done: boolean; bitmap: boolean; json: string | null } {
    const isBitmap = new Uint8Array(1);
    const message = new BigUint64Array(1);
    const done = this.fn("renderNextSlideLayer", ["ptr", "ptr", "ptr", "ptr"], "bool")(this.handle, ptr(buffer), ptr(isBitmap), ptr(message));
    const json = message[0] ? this.office.takeString(Number(message[0])) : null;
    return { done, bitmap: isBitmap[0] !== 0, json };
  }

  postSlideshowCleanup(): void {
    this.fn("postSlideshowCleanup", ["ptr"], "void")(this.handle);
  }

  // --- Dialogs: JSDialog (described as JSON) and tunnelled windows (painted) ------------------

  /**
   * An event on a widget of a JSDialog window of the current view: `json` is LibreOffice's own
   * argument object ({"id":…,"cmd":…,"data":…,"type":…}), the window id a decimal number.
   */
  sendDialogEvent(windowId: bigint, json: string): void {
    const j = cstr(json);
    this.fn("sendDialogEvent", ["ptr", "u64", "ptr"], "void")(this.handle, windowId, ptr(j));
  }

  /** Paints a tunnelled window's rectangle (window pixels) into `buffer` (BGRA, width×height×4). */
  paintWindow(windowId: number, buffer: Uint8Array, x: number, y: number, width: number, height: number): void {
    this.fn("paintWindow", ["ptr", "u32", "ptr", "i32", "i32", "i32", "i32"], "void")(this.handle, windowId, ptr(buffer), x, y, width, height);
  }

  /** action: LOK_WINDOW_CLOSE (1) closes a tunnelled window as its close box would. */
  postWindow(windowId: number, action: number): void {
    this.fn("postWindow", ["ptr", "u32", "i32", "ptr"], "void")(this.handle, windowId, action, null);
  }

  postWindowKeyEvent(windowId: number, type: number, charCode: number, keyCode: number): void {
    this.fn("postWindowKeyEvent", ["ptr", "u32", "i32", "i32", "i32"], "void")(this.handle, windowId, type, charCode, keyCode);
  }

  /** Window pixels (not twips), as LibreOffice's own tunnelled-dialog clients send them. */
  postWindowMouseEvent(windowId: number, type: number, x: number, y: number, count: number, buttons: number, modifier: number): void {
    this.fn("postWindowMouseEvent", ["ptr", "u32", "i32", "i32", "i32", "i32", "i32", "i32"], "void")(this.handle, windowId, type, x, y, count, buttons, modifier);
  }

  setTextSelection(type: number, x: number, y: number): void {
    this.fn("setTextSelection", ["ptr", "i32", "i32", "i32"], "void")(this.handle, type, x, y);
  }

  setClientZoom(tilePixelWidth: number, tilePixelHeight: number, tileTwipWidth: number, tileTwipHeight: number): void {
    this.fn("setClientZoom", ["ptr", "i32", "i32", "i32", "i32"], "void")(this.handle, tilePixelWidth, tilePixelHeight, tileTwipWidth, tileTwipHeight);
  }

  setClientVisibleArea(x: number, y: number, w: number, h: number): void {
    this.fn("setClientVisibleArea", ["ptr", "i32", "i32", "i32", "i32"], "void")(this.handle, x, y, w, h);
  }

  /**
   * Registers a document callback for the CURRENT view (setView first) that only queues events
   * in native memory, tagged with `tag` (usually the view id). LibreOffice calls document
   * callbacks from its main-loop thread, where no JS may run; drain them with drainCallbacks().
   */
  registerQueuedCallback(tag: number): void {
    const q = callbackQueue();
    this.fn("registerCallback", ["ptr", "ptr", "ptr"], "void")(this.handle, q.fn, tag);
  }

  /** Removes the current view's document callback. */
  unregisterCallback(): void {
    this.fn("registerCallback", ["ptr", "ptr", "ptr"], "void")(this.handle, null, null);
  }
}

