// bun:ffi binding to LibreOfficeKit (LOK), the in-process C API of LibreOffice.
//
// `libreofficekit_hook_2(installPath, profileUrl)` (exported by libmergedlo.so) returns a
// `LibreOfficeKit*` whose first field points to a table of function pointers
// (`LibreOfficeKitClass`); a loaded document (`LibreOfficeKitDocument*`) points to a
// `LibreOfficeKitDocumentClass`. Both tables start with `size_t nSize` followed by one 8-byte
// slot per function, in exactly the order of /usr/include/LibreOfficeKit/LibreOfficeKit.h
// (package libreofficekit-dev, 25.2; a table only ever grows at its end). OFFICE_SLOTS / DOCUMENT_SLOTS (lok-abi.ts) copy that order; a
// test compares them with the header. Every slot is checked against the table's nSize before use.
//
// Rules for callers:
// - LOK is single-threaded from our side: every call blocks the JS thread until it returns.
// - Strings passed to C are NUL-terminated Buffers kept referenced until the call returns.
// - Strings returned by LOK are malloc'd; they are copied and freed with freeError (= free()).
// - LOK can be initialised once per process only.

import { CFunction, CString, JSCallback, dlopen, ptr, type Pointer } from "bun:ffi";
import { DEFAULT_PROGRAM_DIR, OFFICE_SLOTS, cstr, type OfficeSlot } from "./lok-abi";
import { compileTrampoline, type CallbackFn, type Trampoline } from "./lok-callbacks";
import { LokDocument, slotTable, type DocumentOffice } from "./lok-document";

// The binding is split by idea: plain enums and slot tables (lok-abi.ts, free of bun:ffi), the
// native callback fronts (lok-callbacks.ts), the document (lok-document.ts) and the office (here).
export * from "./lok-abi";
export { drainCallbacks, type QueuedCallback } from "./lok-callbacks";
export { LokDocument } from "./lok-document";

export class LokOffice implements DocumentOffice {
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
