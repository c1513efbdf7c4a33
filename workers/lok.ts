// bun:ffi binding to LibreOfficeKit (LOK), the in-process C API of LibreOffice.
//
// `libreofficekit_hook_2(installPath, profileUrl)` (exported by libmergedlo.so) returns a
// `LibreOfficeKit*` whose first field points to a table of function pointers
// (`LibreOfficeKitClass`); a loaded document (`LibreOfficeKitDocument*`) points to a
// `LibreOfficeKitDocumentClass`. Both tables start with `size_t nSize` followed by one 8-byte
// slot per function, in exactly the order of /usr/include/LibreOfficeKit/LibreOfficeKit.h
// (package libreofficekit-dev, 25.2; a table only ever grows at its end). OFFICE_SLOTS / DOCUMENT_SLOTS below copy that order; a
// test compares them with the header. Every slot is checked against the table's nSize before use.
//
// Rules for callers:
// - LOK is single-threaded from our side: every call blocks the JS thread until it returns.
// - Strings passed to C are NUL-terminated Buffers kept referenced until the call returns.
// - Strings returned by LOK are malloc'd; they are copied and freed with freeError (= free()).
// - LOK can be initialised once per process only.

import { CFunction, CString, JSCallback, dlopen, ptr, read, type Pointer } from "bun:ffi";
import { compileC } from "./native-c";

/** Debian's LibreOffice (libreoffice-core), the engine unless SVC_ENGINE_PROGRAM_DIR names another. */
export const DEFAULT_PROGRAM_DIR = "/usr/lib/libreoffice/program";

/**
 * The program folder this engine process loads: its parent names it in SVC_ENGINE_PROGRAM_DIR
 * (from the service's configuration, app/config.ts), read once when the engine starts.
 */
export function engineProgramDir(env: Record<string, string | undefined> = process.env): string {
  return env.SVC_ENGINE_PROGRAM_DIR || DEFAULT_PROGRAM_DIR;
}

/** Slot order of struct _LibreOfficeKitClass (after nSize). */
export const OFFICE_SLOTS = [
  "destroy",
  "documentLoad",
  "getError",
  "documentLoadWithOptions",
  "freeError",
  "registerCallback",
  "getFilterTypes",
  "setOptionalFeatures",
  "setDocumentPassword",
  "getVersionInfo",
  "runMacro",
  "signDocument",
  "runLoop",
  "sendDialogEvent",
  "setOption",
  // 7.5 and later (25.2's header)
  "dumpState",
  "extractRequest",
  "trimMemory",
  "startURP",
  "stopURP",
  "joinThreads",
  "startThreads",
  "setForkedChild",
  "extractDocumentStructureRequest",
  "registerAnyInputCallback",
] as const;

/** Slot order of struct _LibreOfficeKitDocumentClass (after nSize; the IOS-only slot is absent on Linux). */
export const DOCUMENT_SLOTS = [
  "destroy",
  "saveAs",
  "getDocumentType",
  "getParts",
  "getPartPageRectangles",
  "getPart",
  "setPart",
  "getPartName",
  "setPartMode",
  "paintTile",
  "getTileMode",
  "getDocumentSize",
  "initializeForRendering",
  "registerCallback",
  "postKeyEvent",
  "postMouseEvent",
  "postUnoCommand",
  "setTextSelection",
  "getTextSelection",
  "paste",
  "setGraphicSelection",
  "resetSelection",
  "getCommandValues",
  "setClientZoom",
  "setClientVisibleArea",
  "createView",
  "destroyView",
  "setView",
  "getView",
  "getViewsCount",
  "renderFont",
  "getPartHash",
  "paintPartTile",
  "getViewIds",
  "setOutlineState",
  "paintWindow",
  "postWindow",
  "postWindowKeyEvent",
  "postWindowMouseEvent",
  "setViewLanguage",
  "postWindowExtTextInputEvent",
  "getPartInfo",
  "paintWindowDPI",
  "insertCertificate",
  "addCertificate",
  "getSignatureState",
  "renderShapeSelection",
  "postWindowGestureEvent",
  "createViewWithOptions",
  "selectPart",
  "moveSelectedParts",
  "resizeWindow",
  "getClipboard",
  "setClipboard",
  "getSelectionType",
  "removeTextContext",
  "sendDialogEvent",
  "renderFontOrientation",
  "paintWindowForView",
  "completeFunction",
  "setWindowTextSelection",
  "sendFormFieldEvent",
  "setBlockedCommandList",
  "renderSearchResult",
  "sendContentControlEvent",
  "getSelectionTypeAndText",
  // 7.5 and later (25.2's header)
  "getDataArea",
  "getEditMode",
  "setViewTimezone",
  "setAccessibilityState",
  "getA11yFocusedParagraph",
  "getA11yCaretPosition",
  "setViewReadOnly",
  "setAllowChangeComments",
  "getPresentationInfo",
  "createSlideRenderer",
  "postSlideshowCleanup",
  "renderNextSlideLayer",
  "setViewOption",
] as const;

/**
 * The slots svc calls and cannot do without (setOption and getFilterTypes are optional): an engine
 * whose tables end before one of them is refused at start (workers/engine-identity.ts).
 */
export const REQUIRED_OFFICE_SLOTS = [
  "destroy", "getError", "documentLoadWithOptions", "freeError", "registerCallback", "setOptionalFeatures",
  "setDocumentPassword", "getVersionInfo", "runLoop",
] as const satisfies readonly (typeof OFFICE_SLOTS)[number][];
export const REQUIRED_DOCUMENT_SLOTS = [
  "destroy", "saveAs", "getDocumentType", "getParts", "getPartPageRectangles", "getPart", "setPart", "getPartName",
  "setPartMode", "paintTile", "getTileMode", "getDocumentSize", "initializeForRendering", "registerCallback",
  "postKeyEvent", "postMouseEvent", "postUnoCommand", "setTextSelection", "getTextSelection", "paste",
  "resetSelection", "getCommandValues", "setClientZoom", "setClientVisibleArea", "createView", "destroyView",
  "setView", "getView", "getViewsCount", "paintPartTile", "setViewLanguage", "postWindowExtTextInputEvent",
  "getPartInfo", "getSignatureState", "selectPart", "moveSelectedParts",
] as const satisfies readonly (typeof DOCUMENT_SLOTS)[number][];

type OfficeSlot = (typeof OFFICE_SLOTS)[number];
type DocumentSlot = (typeof DOCUMENT_SLOTS)[number];

/** LibreOfficeKitEnums.h */
export const LOK_DOCTYPE = { TEXT: 0, SPREADSHEET: 1, PRESENTATION: 2, DRAWING: 3, OTHER: 4 } as const;
export const LOK_FEATURE_DOCUMENT_PASSWORD = 1n << 0n;
export const LOK_FEATURE_DOCUMENT_PASSWORD_TO_MODIFY = 1n << 1n;
/** The client shows comments itself: LibreOffice reports each change (LOK_CALLBACK_COMMENT) instead of painting them. */
export const LOK_FEATURE_NO_TILED_ANNOTATIONS = 1n << 3n;
export const LOK_CALLBACK_STATUS_INDICATOR_START = 9;
export const LOK_CALLBACK_STATUS_INDICATOR_SET_VALUE = 10;
export const LOK_CALLBACK_STATUS_INDICATOR_FINISH = 11;
export const LOK_CALLBACK_DOCUMENT_PASSWORD = 20;
export const LOK_CALLBACK_DOCUMENT_PASSWORD_TO_MODIFY = 21;
export const LOK_CALLBACK_ERROR = 22;
/** LibreOfficeKitEnums.h LibreOfficeKitTileMode */
export const LOK_TILEMODE_RGBA = 0;
export const LOK_TILEMODE_BGRA = 1;

/** A NUL-terminated UTF-8 buffer for C. Keep the returned Buffer referenced until the call returns. */
export function cstr(s: string): Buffer {
  return Buffer.from(s + "\0", "utf8");
}

/** file:// URL of an absolute path, each segment percent-encoded (spaces, '#', '%', non-ASCII). */
export function fileUrl(absPath: string): string {
  if (!absPath.startsWith("/")) throw new Error(`not an absolute path: ${absPath}`);
  return "file://" + absPath.split("/").map((seg) => encodeURIComponent(seg)).join("/");
}

function slotTable(objectPtr: Pointer, names: readonly string[], what: string): Map<string, Pointer> {
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

type CallbackFn = (type: number, payload: string | null) => void;

/**
 * Native front for the office callback, compiled at run time with Bun's built-in TinyCC.
 *
 * LibreOffice calls the office callback on whatever thread it is on. The password request comes
 * synchronously on the thread that called documentLoad (the JS thread, blocked inside FFI) and
 * must be answered before documentLoad can return: only a non-threadsafe JSCallback, run
 * re-entrantly, can do that (a threadsafe one is queued to the blocked event loop: deadlock).
 * But LibreOffice also calls back from its own worker threads (progress of the threaded XLSX
 * import, for instance), and a non-threadsafe JSCallback entered from a foreign thread blocks
 * forever. This trampoline forwards only calls made on the JS thread and drops (counts) the rest.
 */
const TRAMPOLINE_C = `
#include <pthread.h>
typedef void (*lok_cb)(int, const char*, void*);
static lok_cb js_cb = 0;
static pthread_t js_thread;
static volatile int dropped = 0;
void lok_tramp_set(lok_cb f) { js_cb = f; js_thread = pthread_self(); }
int lok_tramp_dropped(void) { return dropped; }
static void lok_tramp(int type, const char* payload, void* data) {
  if (js_cb && pthread_equal(pthread_self(), js_thread)) js_cb(type, payload, data);
  else dropped++; /* a statistic only: races are harmless */
}
void* lok_tramp_ptr(void) { return (void*)&lok_tramp; }
`;

interface Trampoline {
  set(js: Pointer): void;
  dropped(): number;
  fn: Pointer;
  keep: unknown;
}

function compileTrampoline(): Trampoline {
  const lib = compileC("lok-trampoline", TRAMPOLINE_C, {
    lok_tramp_set: { args: ["ptr"], returns: "void" },
    lok_tramp_dropped: { args: [], returns: "i32" },
    lok_tramp_ptr: { args: [], returns: "ptr" },
  });
  return {
    set: (js) => lib.symbols.lok_tramp_set(js),
    dropped: () => lib.symbols.lok_tramp_dropped() as number,
    fn: lib.symbols.lok_tramp_ptr() as Pointer,
    keep: lib,
  };
}

export class LokDocument {
  private readonly fns: Map<string, Pointer>;
  private readonly cache = new Map<string, (...a: any[]) => any>();
  private destroyed = false;

  constructor(
    private readonly office: LokOffice,
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

  // --- Views and input (used by the editing server's kit, workers/kit-main.ts) ---------------

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

/** One queued document callback event (see LokDocument.registerQueuedCallback). */
export interface QueuedCallback {
  tag: number;
  type: number;
  payload: string;
}

const QUEUE_C = `
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
typedef struct ev { struct ev* next; int tag; int type; int len; char* payload; } ev;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static ev* head = 0;
static ev* tail = 0;
static volatile int pending = 0;
static void lok_q_cb(int type, const char* payload, void* data) {
  ev* e = (ev*)malloc(sizeof(ev));
  if (!e) return;
  int len = payload ? (int)strlen(payload) : 0;
  e->next = 0; e->tag = (int)(long)data; e->type = type; e->len = len;
  e->payload = (char*)malloc(len + 1);
  if (!e->payload) { free(e); return; }
  if (len) memcpy(e->payload, payload, len);
  e->payload[len] = 0;
  pthread_mutex_lock(&mu);
  if (tail) tail->next = e; else head = e;
  tail = e;
  pending++;
  pthread_mutex_unlock(&mu);
}
void* lok_q_ptr(void) { return (void*)&lok_q_cb; }
int lok_q_pending(void) { return pending; }
/* Moves queued events into buf as [i32 tag][i32 type][i32 len][len bytes]...; returns bytes used.
   An event larger than the whole buffer is dropped (its payload replaced by nothing). */
int lok_q_drain(char* buf, int cap) {
  int used = 0;
  pthread_mutex_lock(&mu);
  while (head) {
    ev* e = head;
    int len = e->len;
    if (12 + len > cap) len = 0;
    if (used + 12 + len > cap) break;
    memcpy(buf + used, &e->tag, 4); memcpy(buf + used + 4, &e->type, 4); memcpy(buf + used + 8, &len, 4);
    if (len) memcpy(buf + used + 12, e->payload, len);
    used += 12 + len;
    head = e->next;
    if (!head) tail = 0;
    pending--;
    free(e->payload); free(e);
  }
  pthread_mutex_unlock(&mu);
  return used;
}
`;

interface CallbackQueue {
  fn: Pointer;
  pending(): number;
  drain(buf: Uint8Array): number;
  keep: unknown;
}

let queueSingleton: CallbackQueue | null = null;

function callbackQueue(): CallbackQueue {
  if (queueSingleton) return queueSingleton;
  const lib = compileC("lok-queue", QUEUE_C, {
    lok_q_ptr: { args: [], returns: "ptr" },
    lok_q_pending: { args: [], returns: "i32" },
    lok_q_drain: { args: ["ptr", "i32"], returns: "i32" },
  });
  queueSingleton = {
    fn: lib.symbols.lok_q_ptr() as Pointer,
    pending: () => lib.symbols.lok_q_pending() as number,
    drain: (buf) => lib.symbols.lok_q_drain(ptr(buf), buf.byteLength) as number,
    keep: lib,
  };
  return queueSingleton;
}

const drainBuffer = new Uint8Array(4 << 20);

/** Takes every queued document callback event (in arrival order). */
export function drainCallbacks(): QueuedCallback[] {
  if (!queueSingleton) return [];
  const out: QueuedCallback[] = [];
  const dec = new TextDecoder();
  for (;;) {
    const n = queueSingleton.drain(drainBuffer);
    if (n <= 0) break;
    const dv = new DataView(drainBuffer.buffer, 0, n);
    let o = 0;
    while (o < n) {
      const tag = dv.getInt32(o, true), type = dv.getInt32(o + 4, true), len = dv.getInt32(o + 8, true);
      out.push({ tag, type, payload: dec.decode(drainBuffer.subarray(o + 12, o + 12 + len)) });
      o += 12 + len;
    }
  }
  return out;
}

/** LibreOfficeKitEnums.h: key, mouse and text-input event types. */
export const LOK_KEYEVENT_KEYINPUT = 0;
export const LOK_KEYEVENT_KEYUP = 1;
export const LOK_MOUSEEVENT_MOUSEBUTTONDOWN = 0;
export const LOK_MOUSEEVENT_MOUSEBUTTONUP = 1;
export const LOK_MOUSEEVENT_MOUSEMOVE = 2;
export const LOK_EXT_TEXTINPUT = 0;
export const LOK_EXT_TEXTINPUT_END = 2;
export const LOK_CALLBACK_INVALIDATE_TILES = 0;
export const LOK_CALLBACK_INVALIDATE_VISIBLE_CURSOR = 1;
export const LOK_CALLBACK_TEXT_SELECTION = 2;
export const LOK_CALLBACK_STATE_CHANGED = 8;
export const LOK_CALLBACK_DOCUMENT_SIZE_CHANGED = 13;
export const LOK_CALLBACK_SET_PART = 14;
export const LOK_CALLBACK_UNO_COMMAND_RESULT = 16;
export const LOK_CALLBACK_CELL_CURSOR = 17;

export class LokOffice {
  readonly handle: Pointer;
  private readonly fns: Map<string, Pointer>;
  private readonly cfuncs = new Map<string, (...a: any[]) => any>();
  private callback: JSCallback | null = null;
  private trampoline: Trampoline | null = null;
  private listener: CallbackFn | null = null;
  private features = 0n;

  private static created = false;

  /**
   * Starts LibreOffice in this process. profileUrl is a file:// URL of the user profile
   * directory. Throws when the library cannot be loaded or the hook returns NULL.
   */
  constructor(profileUrl: string, programDir = DEFAULT_PROGRAM_DIR, env: Record<string, string> = {}) {
    if (LokOffice.created) throw new Error("LibreOfficeKit can be initialised only once per process");
    LokOffice.created = true;
    // LibreOffice reads its environment (TMPDIR…) through libc; Bun's process.env does not write
    // through to the C environment, so set it with setenv(3) before the library starts.
    if (Object.keys(env).length) {
      const libc = dlopen("libc.so.6", { setenv: { args: ["ptr", "ptr", "i32"], returns: "i32" } });
      for (const [k, v] of Object.entries(env)) {
        const kb = cstr(k), vb = cstr(v);
        if (libc.symbols.setenv(ptr(kb), ptr(vb), 1) !== 0) throw new Error(`setenv ${k} failed`);
      }
    }
    const lib = dlopen(`${programDir}/libmergedlo.so`, {
      libreofficekit_hook_2: { args: ["ptr", "ptr"], returns: "ptr" },
    });
    const ip = cstr(programDir), pu = cstr(profileUrl);
    const h = lib.symbols.libreofficekit_hook_2(ptr(ip), ptr(pu)) as Pointer | null;
    if (!h) throw new Error("libreofficekit_hook_2 returned NULL");
    this.handle = h;
    this.fns = slotTable(h, OFFICE_SLOTS, "office");
    const [major, minor] = this.versionNumber();
    this.partTileHasMode = major > 7 || (major === 7 && minor >= 6);
  }

  /** Whether paintPartTile takes LibreOffice 7.6's nMode argument (see LokDocument.paintPartTile). */
  readonly partTileHasMode: boolean;

  /** [major, minor] of the running LibreOffice ([0, 0] when it does not say). */
  versionNumber(): [number, number] {
    try {
      const m = /^(\d+)\.(\d+)/.exec(String(JSON.parse(this.getVersionInfo() ?? "{}").ProductVersion ?? ""));
      return m ? [Number(m[1]), Number(m[2])] : [0, 0];
    } catch {
      return [0, 0];
    }
  }

  /** @internal a CFunction for a slot pointer, cached by name (class tables never change in a process). */
  cfunc(key: string, p: Pointer, args: any[], returns: any): (...a: any[]) => any {
    let f = this.cfuncs.get(key);
    if (!f) {
      f = CFunction({ ptr: p, args, returns }) as unknown as (...a: any[]) => any;
      this.cfuncs.set(key, f);
    }
    return f;
  }

  has(name: OfficeSlot): boolean {
    return this.fns.has(name);
  }

  private fn(name: OfficeSlot, args: any[], returns: any): (...a: any[]) => any {
    const p = this.fns.get(name);
    if (!p) throw new Error(`LibreOfficeKitClass has no ${name}`);
    return this.cfunc(`office.${name}@${p}`, p, args, returns);
  }

  /** @internal copy a malloc'd C string and free it. */
  takeString(p: Pointer | null | number): string | null {
    if (!p) return null;
    const s = new CString(p as Pointer).toString();
    if (this.fns.has("freeError")) this.fn("freeError", ["ptr"], "void")(p);
    return s;
  }

  getError(): string {
    return this.takeString(this.fn("getError", ["ptr"], "ptr")(this.handle)) ?? "";
  }

  getVersionInfo(): string | null {
    return this.takeString(this.fn("getVersionInfo", ["ptr"], "ptr")(this.handle));
  }

  getFilterTypes(): string | null {
    return this.takeString(this.fn("getFilterTypes", ["ptr"], "ptr")(this.handle));
  }

  setOptionalFeatures(features: bigint): void {
    this.features = features;
    this.fn("setOptionalFeatures", ["ptr", "u64"], "void")(this.handle, features);
  }

  get optionalFeatures(): bigint {
    return this.features;
  }

  /** Answers a LOK_CALLBACK_DOCUMENT_PASSWORD(_TO_MODIFY); password null = none (abort / read-only). */
  setDocumentPassword(url: string, password: string | null): void {
    const u = cstr(url);
    const p = password === null ? null : cstr(password);
    this.fn("setDocumentPassword", ["ptr", "ptr", "ptr"], "void")(this.handle, ptr(u), p ? ptr(p) : null);
  }

  setOption(option: string, value: string): void {
    if (!this.fns.has("setOption")) return;
    const o = cstr(option), v = cstr(value);
    this.fn("setOption", ["ptr", "ptr", "ptr"], "void")(this.handle, ptr(o), ptr(v));
  }

  /**
   * Registers the office-level callback.
   *
   * Threading: LOK invokes this callback synchronously, on the thread that called
   * documentLoad, while that FFI call is still blocked (the password interaction waits on a
   * condition that only setDocumentPassword sets). A `threadsafe: true` JSCallback would only
   * queue the call to the JS event loop, which is blocked inside documentLoad: deadlock. So the
   * JSCallback here is NOT threadsafe: Bun runs it re-entrantly on the JS thread, inside the
   * FFI call, and the handler may call setDocumentPassword from within it (SolarMutex is
   * recursive and LOK releases it around the callback). Calls LibreOffice makes from its other
   * threads never reach JS: the native trampoline drops them (see TRAMPOLINE_C).
   */
  registerCallback(listener: CallbackFn): void {
    this.listener = listener;
    if (!this.callback) {
      const trampoline = compileTrampoline();
      this.callback = new JSCallback(
        (type: number, payload: Pointer | null) => {
          let text: string | null = null;
          try {
            text = payload ? new CString(payload).toString() : null;
          } catch {
            text = null;
          }
          try {
            this.listener?.(type, text);
          } catch {
            // never let an exception unwind through C frames
          }
        },
        { args: ["i32", "ptr", "ptr"], returns: "void" },
      );
      trampoline.set(this.callback.ptr!);
      this.trampoline = trampoline;
    }
    this.fn("registerCallback", ["ptr", "ptr", "ptr"], "void")(this.handle, this.trampoline!.fn, null);
  }

  /** Callback invocations LibreOffice made from threads other than the JS thread (dropped). */
  droppedCallbacks(): number {
    return this.trampoline?.dropped() ?? 0;
  }

  /**
   * Removes the office callback (LibreOffice then behaves as if no client listened: password
   * requests are aborted at once, and in Batch mode dialogs are cancelled instead of awaited).
   * The JSCallback itself stays allocated for the next registerCallback.
   */
  unregisterCallback(): void {
    this.listener = null;
    this.fn("registerCallback", ["ptr", "ptr", "ptr"], "void")(this.handle, null, null);
  }

  /** Loads a document; null when LibreOffice cannot open it (see getError). */
  documentLoad(url: string, options = ""): LokDocument | null {
    const u = cstr(url), o = cstr(options);
    const d = this.fn("documentLoadWithOptions", ["ptr", "ptr", "ptr"], "ptr")(this.handle, ptr(u), ptr(o)) as Pointer | null;
    return d ? new LokDocument(this, d) : null;
  }

  /**
   * LibreOfficeKit's runLoop (unipoll, see workers/kit-loop.ts): runs the office's main loop on
   * this thread, calling `poll(closure, timeoutUs)` whenever it would wait and `wake(closure)`
   * (from any thread) to cut such a wait short. Returns only when a poll answers -1.
   */
  runLoop(poll: Pointer, wake: Pointer, closure: Pointer): void {
    this.fn("runLoop", ["ptr", "ptr", "ptr", "ptr"], "void")(this.handle, poll, wake, closure);
  }

  /** LOK's destroy: tears the office down. Can hang in some builds; callers usually prefer process.exit. */
  destroy(): void {
    this.fn("destroy", ["ptr"], "void")(this.handle);
  }
}
