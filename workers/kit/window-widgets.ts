// The controls of a tunnelled window, read from VCL (issue 45 item 6). LibreOffice 25.2 describes
// some dialogs to no one (conditional formatting, Insert Table's name field among them): they reach
// the page as pixels, which a screen reader cannot read. Every VCL window can write itself, with
// its children, as the JSON LibreOffice's JSDialog uses (vcl::Window::DumpAsPropertyTree: id, type,
// text, enabled, visible, checked, entries, children…); that is what Collabora's mobile wizard read
// before JSDialog. The kit writes a tunnelled dialog that way whenever it is created or repainted
// and tells its view the controls, where each is and which has the keyboard (callbacks.ts); the
// page mirrors them as named controls a screen reader reads, follows the keyboard's control, and
// presses a control where it is painted (LibreOfficeKit runs dialog events on JSDialog windows
// only: measured on 25.2, an event naming such a window's control changes nothing).
//
// The functions are C++ symbols of VCL and tools, exported by Debian's and TDF's builds (as
// unannounced-windows.ts's are); where a build lacks them the window stays a named picture.

import { dlopen, FFIType, read, toArrayBuffer, type Pointer } from "bun:ffi";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LOK_CALLBACK } from "../lok";
import { send } from "./state";
import { bindVcl, DIALOG_TYPES, topLevelWindows, VCL_BASE, withSolarMutex } from "./vcl";

const SYMBOLS = {
  ...VCL_BASE,
  _ZNK3vcl6Window9GetWindowE13GetWindowType: { args: [FFIType.ptr, FFIType.u16], returns: FFIType.ptr },
  _ZNK3vcl6Window6get_idEv: { args: [FFIType.ptr], returns: FFIType.ptr },
  _ZNK3vcl6Window15IsReallyVisibleEv: { args: [FFIType.ptr], returns: FFIType.bool },
  _ZNK3vcl6Window8HasFocusEv: { args: [FFIType.ptr], returns: FFIType.bool },
  // Answers a tools::Rectangle (four longs, in memory): by a hidden pointer to where it is written,
  // the window after it (the Itanium ABI's way for a result over 16 bytes).
  _ZNK3vcl6Window24GetWindowExtentsRelativeERKS0_: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  _ZN6Dialog18DumpAsPropertyTreeERN5tools10JsonWriterE: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.void },
  _ZN5tools10JsonWriterC1Ev: { args: [FFIType.ptr], returns: FFIType.void },
  _ZN5tools10JsonWriterD1Ev: { args: [FFIType.ptr], returns: FFIType.void },
  // Answers an OString: by a hidden pointer too (a class with a destructor), the writer after it.
  _ZN5tools10JsonWriter21finishAndGetAsOStringEv: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
} as const;
const SAL = { rtl_string_release: { args: [FFIType.ptr], returns: FFIType.void } } as const;

type Bound = { vcl: NonNullable<ReturnType<typeof bindVcl<typeof SYMBOLS>>>; sal: ReturnType<typeof dlopen<typeof SAL>>["symbols"] };

/** Larger than tools::JsonWriter (two pointers, two ints, two flags), zeroed. */
const WRITER_BYTES = 256;
/** A dialog's description is a few tens of kilobytes; one past this is not sent (a picture's pixels inside, a list of thousands). */
export const MAX_WIDGETS_JSON = 512 * 1024;

let bound: Bound | null | undefined;

function bind(programDir: string): Bound | null {
  const salFile = join(programDir, "libuno_sal.so.3");
  const vcl = bindVcl(programDir, SYMBOLS);
  if (!vcl || !existsSync(salFile)) return null;
  try {
    return { vcl, sal: dlopen(salFile, SAL).symbols };
  } catch {
    return null;
  }
}

/** Whether tunnelled windows can be described; the first call binds the functions. */
export function canDescribeWindows(programDir: string): boolean {
  if (bound === undefined) bound = bind(programDir);
  return bound !== null;
}

/** vcl::Window::GetWindow's relations (include/vcl/window.hxx, unchanged since OpenOffice.org). */
const FIRST_CHILD = 1, NEXT = 4, FIRST_OVERLAP = 5;
/** More windows than any office holds: a walk past it has met a loop. */
const MAX_WINDOWS_WALKED = 20_000;

/** Pushes `w`'s children (FIRST_CHILD) or overlapping windows (FIRST_OVERLAP) onto `into`. */
function pushRelated(v: Bound["vcl"], w: Pointer, first: typeof FIRST_CHILD | typeof FIRST_OVERLAP, into: Pointer[]): void {
  for (let c = v._ZNK3vcl6Window9GetWindowE13GetWindowType(w, first) as Pointer | null; c; c = v._ZNK3vcl6Window9GetWindowE13GetWindowType(c, NEXT) as Pointer | null) into.push(c);
}

/**
 * The window with LibreOfficeKit id `windowId`: LibreOfficeKit's own map of them is not exported,
 * and a dialog need not be a top-level window of VCL's (25.2's modeless conditional formatting
 * dialog sits among a document frame's overlapping windows), so every top-level window's tree,
 * children and overlapping windows both, is walked.
 */
function findWindow(v: Bound["vcl"], windowId: number): Pointer | null {
  const pending = topLevelWindows(v);
  for (let walked = 0; pending.length && walked < MAX_WINDOWS_WALKED; walked++) {
    const w = pending.pop()!;
    if ((v._ZNK3vcl6Window14GetLOKWindowIdEv(w) as number) === windowId) return w;
    pushRelated(v, w, FIRST_CHILD, pending);
    pushRelated(v, w, FIRST_OVERLAP, pending);
  }
  return null;
}

/** A tunnelled dialog described: its controls in JSDialog's form, each shown one with its place in the window's pixels, and the one with the keyboard. */
export interface DialogDescription {
  widgets: Record<string, unknown>;
  focused: string;
}

/** The id VCL's builder gave a window (the .ui file's), "" for none. */
function controlId(v: Bound["vcl"], w: Pointer): string {
  const ref = v._ZNK3vcl6Window6get_idEv(w) as Pointer | null;
  const data = ref ? (read.ptr(ref, 0) as Pointer | null) : null;
  if (!data) return "";
  // rtl_uString: a reference count, the length, then UTF-16 code units.
  const length = read.i32(data, 4);
  if (length <= 0 || length > 256) return "";
  return Buffer.from(toArrayBuffer(data, 8, length * 2)).toString("utf16le");
}

/** Where each shown control with an id is, in the dialog's pixels ([x, y, width, height]), and the one with the keyboard. */
function controlPlaces(v: Bound["vcl"], dialog: Pointer): { places: Map<string, [number, number, number, number]>; focused: string } {
  const places = new Map<string, [number, number, number, number]>();
  let focused = "";
  const rect = new BigInt64Array(4);
  const pending: Pointer[] = [];
  pushRelated(v, dialog, FIRST_CHILD, pending);
  for (let walked = 0; pending.length && walked < MAX_WINDOWS_WALKED; walked++) {
    const w = pending.pop()!;
    if (!v._ZNK3vcl6Window15IsReallyVisibleEv(w)) continue;
    const id = controlId(v, w);
    if (id && !places.has(id)) {
      v._ZNK3vcl6Window24GetWindowExtentsRelativeERKS0_(rect, w, dialog);
      const [left, top, right, bottom] = [...rect].map(Number) as [number, number, number, number];
      places.set(id, [left, top, Math.max(0, right - left + 1), Math.max(0, bottom - top + 1)]);
    }
    if (id && v._ZNK3vcl6Window8HasFocusEv(w)) focused = id;
    pushRelated(v, w, FIRST_CHILD, pending);
  }
  return { places, focused };
}

interface Described {
  id?: string;
  rect?: [number, number, number, number];
  children?: Described[];
}

/**
 * The tunnelled dialog whose LibreOfficeKit id is `windowId`, described, or null (not a dialog,
 * gone, too large, or the functions missing). Called on the office's thread (the kit's loop) with
 * the SolarMutex taken as unannounced-windows.ts takes it.
 */
export function describeDialog(windowId: number): DialogDescription | null {
  if (!bound) return null;
  const { vcl: v, sal } = bound;
  return withSolarMutex(v, () => {
    const dialog = findWindow(v, windowId);
    if (!dialog || !DIALOG_TYPES.has(v._ZNK3vcl6Window7GetTypeEv(dialog) as number)) return null;
    const writer = new BigUint64Array(WRITER_BYTES / 8);
    const result = new BigUint64Array(1);
    v._ZN5tools10JsonWriterC1Ev(writer);
    v._ZN6Dialog18DumpAsPropertyTreeERN5tools10JsonWriterE(dialog, writer);
    v._ZN5tools10JsonWriter21finishAndGetAsOStringEv(result, writer);
    v._ZN5tools10JsonWriterD1Ev(writer);
    const data = Number(result[0]) as Pointer;
    if (!data) return null;
    let json: string;
    try {
      // rtl_String: a reference count, the length, then the bytes.
      const length = read.i32(data, 4);
      if (length <= 0 || length > MAX_WIDGETS_JSON) return null;
      json = Buffer.from(toArrayBuffer(data, 8, length)).toString("utf8");
    } finally {
      sal.rtl_string_release(data);
    }
    let widgets: Described & Record<string, unknown>;
    try {
      widgets = JSON.parse(json);
    } catch {
      return null;
    }
    const { places, focused } = controlPlaces(v, dialog);
    const place = (n: Described): void => {
      const at = n.id ? places.get(n.id) : undefined;
      if (at) n.rect = at;
      n.children?.forEach(place);
    };
    place(widgets);
    return { widgets, focused };
  });
}

/**
 * The tunnelled dialogs open, by id, with what their view was last told of them ("" before the
 * first description), and those repainted since the last pump (id → view). Only a window created
 * as a dialog is described: its drop-downs and the document's tooltips are repainted far more
 * often and are no Dialog (a walk for nothing).
 */
const dialogs = new Map<string, string>();
const repainted = new Map<string, number>();

/** Reads a window callback a view was sent: a tunnelled dialog created or repainted is described again after the pump. */
export function noteWindowCallback(viewId: number, payload: string): void {
  let j: { id?: unknown; action?: unknown; type?: unknown };
  try {
    j = JSON.parse(payload);
  } catch {
    return;
  }
  const id = String(j?.id ?? "");
  if (j.action === "close") dialogs.delete(id);
  else if (j.action === "created" && j.type === "dialog") dialogs.set(id, "");
  if (dialogs.has(id) && j.action !== "close" && j.action !== "cursor_invalidate" && j.action !== "cursor_visible") repainted.set(id, viewId);
}

/**
 * Tells each view the controls of its tunnelled dialogs repainted since the last pump, when they
 * changed: a `window` callback of svc's own action, `widgets` ({"id", "action": "widgets",
 * "widgets": <the dialog in JSDialog's form, each shown control with its "rect">, "focused": <the
 * control with the keyboard>}). The page acts on a control as a person would, with the mouse at its
 * place and the keys (LibreOfficeKit runs dialog events on JSDialog windows only).
 */
export function tellRepaintedWidgets(): void {
  if (!repainted.size) return;
  const windows = [...repainted];
  repainted.clear();
  for (const [id, viewId] of windows) {
    const described = describeDialog(Number(id));
    if (!described) continue;
    const payload = JSON.stringify({ id: Number(id), action: "widgets", ...described });
    if (!dialogs.has(id) || dialogs.get(id) === payload) continue;
    dialogs.set(id, payload);
    send({ type: "cb", viewId, cb: LOK_CALLBACK.WINDOW, payload });
  }
}
