// The callback pump: the engine's document callbacks, queued in native memory by the view they
// were registered for (lok-callbacks.ts), drained between the office's events (kit-loop.ts) and
// forwarded to the editing server as `cb` lines. Tile invalidations are numbered (pixel versions),
// de-duplicated, dropped for views that have painted nothing, and widened or narrowed where the
// engine tells too little or too much (below).

import { drainCallbacks, LOK_CALLBACK, LOK_DOCTYPE, LOK_WINDOW_CLOSE, type QueuedCallback } from "../lok";
import { FORWARDED_CALLBACKS } from "../kit-protocol";
import { parseTileInvalidation } from "../tile-invalidation";
import { noteDialogCallback, offeredSidebar, screenWindow, type UnaskedWindow } from "./windows";
import { noteWindowCallback, tellRepaintedWidgets } from "./window-widgets";
import { kit, log, lookKey, send, unpainted, useView, views } from "./state";

/** Document callbacks worth forwarding (kit-protocol.ts); the rest (sidebar JSON…) is dropped. */
const FORWARDED = new Set(Object.keys(FORWARDED_CALLBACKS).map(Number));

/** Sends every callback the engine queued since the last pump. */
export function pump(): void {
  const events = drainCallbacks();
  let sheetChanged: Set<number> | null = null;
  let invalidated: Set<string> | null = null;
  let toClose: UnaskedWindow[] | null = null;
  const narrowed = kit.docType === LOK_DOCTYPE.TEXT ? wholeDocumentStandIns(events) : null;
  for (const e of events) {
    if (!FORWARDED.has(e.type)) continue;
    if (e.type === LOK_CALLBACK.INVALIDATE_TILES) {
      const standIns = narrowed?.get(e);
      if (standIns) {
        // The rectangles another view of the same look was told (their tiles are already marked stale).
        if (unpainted(e.tag)) continue;
        for (const payload of standIns) {
          const key = `${e.tag} ${payload}`;
          if ((invalidated ??= new Set()).has(key)) continue;
          invalidated.add(key);
          send({ type: "cb", viewId: e.tag, cb: e.type, payload, version: ++kit.pixelVersion });
        }
        continue;
      }
      kit.sharedTiles.invalidate(parseTileInvalidation(e.payload), kit.docType === LOK_DOCTYPE.TEXT);
      if (unpainted(e.tag)) continue;
      if (isSheetContentChange(e.payload)) {
        (sheetChanged ??= new Set()).add(e.tag);
        continue;
      }
      // The engine often reports the same rectangle twice in a row (the edit, then its layout).
      const key = `${e.tag} ${e.payload}`;
      if ((invalidated ??= new Set()).has(key)) continue;
      invalidated.add(key);
      send({ type: "cb", viewId: e.tag, cb: e.type, payload: e.payload, version: ++kit.pixelVersion });
      if (kit.docType === LOK_DOCTYPE.SPREADSHEET) {
        // A chart redrawn with new data is reported to the view that edited its cells only; the
        // other views would keep showing the old chart (7.4, and 25.2 still: repaint.browser.test.ts
        // fails without this). In a sheet every view hears of it.
        for (const other of views.keys()) {
          const otherKey = `${other} ${e.payload}`;
          if (other === e.tag || unpainted(other) || invalidated.has(otherKey)) continue;
          invalidated.add(otherKey);
          send({ type: "cb", viewId: other, cb: e.type, payload: e.payload, version: ++kit.pixelVersion });
        }
      }
      continue;
    }
    const payload = e.type === LOK_CALLBACK.JSDIALOG ? offeredSidebar(e.payload) : e.payload;
    // A window the view did not ask for is closed, never shown nor recorded as its own (windows.ts).
    const unasked = screenWindow(e.tag, e.type, payload);
    if (unasked) {
      (toClose ??= []).push(unasked);
      continue;
    }
    noteDialogCallback(e.tag, e.type, payload);
    send({ type: "cb", viewId: e.tag, cb: e.type, payload });
    if (e.type === LOK_CALLBACK.WINDOW) noteWindowCallback(e.tag, payload);
  }
  // A tunnelled dialog's controls, after its pixels (a screen reader's view of the picture).
  tellRepaintedWidgets();
  // Closed after the pump's caller is done (a paint for another view may be under way); the kit
  // has no timers (kit-loop.ts), its loop drains the promise jobs right after.
  if (toClose) {
    const windows = toClose;
    queueMicrotask(() => closeUnasked(windows));
  }
  // Every view repaints every sheet (formulas on other sheets may depend on the changed cell).
  if (sheetChanged && kit.doc) {
    kit.sharedTiles.clear();
    const parts = kit.doc.getParts();
    for (const viewId of sheetChanged) for (let p = 0; p < parts; p++) send({ type: "cb", viewId, cb: LOK_CALLBACK.INVALIDATE_TILES, payload: `EMPTY, ${p}`, version: ++kit.pixelVersion });
  }
}

/**
 * LibreOffice 25.2 tells every other view of a text document "EMPTY" (the whole document) for each
 * change one view makes, where 7.4 told them the rectangle that changed: each other person's page
 * asked for its whole screen again on every key anyone typed, and the kit repainted it, which
 * doubled a kit's CPU per person and halved the people per core (docs/benchmarks-history.md, "LibreOffice
 * 7.4 and 25.2"). Views of one look show the same pixels, so what changed for them is what the
 * engine told the view that made the change. In one drained batch, a view's whole-document
 * invalidation is replaced by the rectangles a view of the same look was told in that batch, when
 * there is such a view and it was told no whole-document invalidation itself (a real one, a page
 * setup change, reaches every view, the acting one too, and is kept).
 * Answers, for each invalidation to replace, the payloads that stand in for it.
 */
function wholeDocumentStandIns(events: QueuedCallback[]): Map<QueuedCallback, string[]> | null {
  let rects: Map<string, Map<number, string[]>> | null = null;
  let whole: Set<number> | null = null;
  for (const e of events) {
    if (e.type !== LOK_CALLBACK.INVALIDATE_TILES || !views.has(e.tag)) continue;
    const inv = parseTileInvalidation(e.payload);
    if (!inv) continue;
    if (!inv.rect) (whole ??= new Set()).add(e.tag);
    else {
      const byView = (rects ??= new Map()).get(lookKey(e.tag)) ?? new Map<number, string[]>();
      rects.set(lookKey(e.tag), byView);
      byView.set(e.tag, [...(byView.get(e.tag) ?? []), e.payload]);
    }
  }
  if (!rects || !whole) return null;
  let out: Map<QueuedCallback, string[]> | null = null;
  for (const e of events) {
    if (e.type !== LOK_CALLBACK.INVALIDATE_TILES || !whole.has(e.tag) || parseTileInvalidation(e.payload)?.rect !== null) continue;
    const told = [...(rects.get(lookKey(e.tag)) ?? new Map<number, string[]>())].filter(([view]) => view !== e.tag && !whole!.has(view));
    if (told.length) (out ??= new Map()).set(e, [...new Set(told.flatMap(([, payloads]) => payloads))]);
  }
  return out;
}

/**
 * LibreOffice 7.4's Calc repaints a whole row (an invalidation wider than any sheet's used width)
 * when a cell's content changes, and invalidates nothing for the cells and charts that depend on
 * it: a SUM row kept its old value on every screen. Such a row is taken as "the sheet changed".
 * 25.2 invalidates the edited cell only (measured at the engine, 2026-11-27), so this never fires
 * there; it stays for the older engines SVC_ENGINE_PROGRAM_DIR may name (7.4 and later).
 * repaint.browser.test.ts's SUM test passes on 25.2.
 */
const SHEET_ROW_WIDTH = 10_000_000; // twips; Calc sends 32212230
function isSheetContentChange(payload: string): boolean {
  if (kit.docType !== LOK_DOCTYPE.SPREADSHEET) return false;
  return (parseTileInvalidation(payload)?.rect?.w ?? 0) >= SHEET_ROW_WIDTH;
}

/** Closes windows no view asked for (screenWindow), as their close boxes would, and logs each (its name, never its content). */
function closeUnasked(windows: UnaskedWindow[]): void {
  for (const w of windows) {
    try {
      const d = useView(w.viewId);
      if (w.kind === "tunnelled") d.postWindow(Number(w.id), LOK_WINDOW_CLOSE);
      else d.sendDialogEvent(BigInt(w.id), JSON.stringify({ id: "__DIALOG__", cmd: "close", data: "", type: "dialog" }));
      log("warn", "kit_window_closed", { view_id: w.viewId, window: w.name, kind: w.kind, type: w.type || undefined });
    } catch (err) {
      log("warn", "kit_window_close_failed", { view_id: w.viewId, window: w.name, error: String((err as Error)?.message ?? err) });
    }
  }
}
