// A document's views: making one for a page (its first frames and first screen), replacing or
// removing one, and routing the engine's callbacks to the views they are for.

import type { Kit } from "./kits";
import { lokLanguage } from "./door";
import { tokenHashOf } from "./journal";
import type { RecoveredView } from "./recovery";
import { sendTiles, sendTilesStale } from "./tile-sending";
import { ViewTiles, firstScreenTiles } from "./tile-push";
import { CALLBACK_NAMES, deliverAfterPushes } from "./view-callbacks";
import { LOK_CALLBACK } from "../../workers/lok-abi";
import { filterContextMenu } from "./protocol/uno-commands";
import { windowLife } from "./protocol/dialog-frames";
import type { CheckFileInfo } from "./wopi-client";
import type { ClientSession } from "./session";
import type { DocumentState } from "./document-state";
import { closeFrame, errorFrame, firstScreenFrame, serverFrame, statusFrame, type WopiInfo } from "./protocol/frames";

/** Callbacks kept for a view while it is attached (its first ones are a handful; a state dump is ~200). */
const MAX_HELD_CALLBACKS = 1000;

/** A view a recovery made again, waiting for its page; `inputDropped` when its input was left out to recover. */
export type OrphanView = RecoveredView;

export class DocumentViews {
  /**
   * While a view is being attached: the engine's callbacks for it (its first cursor, selection
   * and tile invalidation are emitted while the view is created, and can arrive in the same read
   * as the kit's answer, before the session knows its view id). They are handed to the session
   * once it has its first status, in the order they came. `viewId` is unknown until the kit answers.
   */
  private attaching: { viewId?: number; held: Map<number, string[]> } | null = null;

  constructor(private readonly doc: DocumentState) {}

  /**
   * Makes the session's view in the loaded document (or hands it the view a recovery made again
   * for it, `adopted`) and sends the page its first frames and first screen.
   */
  async attach(s: ClientSession, info: CheckFileInfo, adopted: OrphanView | null): Promise<boolean> {
    this.attaching = { held: new Map() };
    try {
      return await this.attachView(s, info, adopted);
    } finally {
      this.attaching = null;
    }
  }

  private async attachView(s: ClientSession, info: CheckFileInfo, adopted: OrphanView | null): Promise<boolean> {
    const doc = this.doc;
    const kit = doc.kit!;
    let viewId: number;
    if (adopted) {
      // The page of a view a recovery made again: it takes that view back, caret and selection as they were.
      viewId = adopted.viewId;
      if (adopted.inputDropped) s.send(errorFrame("recovery", "actiondropped"));
      doc.log.info("view_recovered", { session: s.id, view_id: viewId });
    } else {
      try {
        const lang = lokLanguage(s.lang);
        const ref = doc.journal?.append("view", { readOnly: s.readOnly, author: s.userName, lang, token: tokenHashOf(s.auth.token) });
        viewId = (await kit.request("view", { readOnly: s.readOnly, author: s.userName, lang })).viewId;
        if (ref !== undefined) doc.journal?.append("viewmade", { ref, viewId });
      } catch (err) {
        doc.log.error("view_create_failed", { error: err as Error });
        s.send(errorFrame("load", "faileddocloading"));
        s.close();
        return false;
      }
    }
    this.attaching!.viewId = viewId;
    s.viewId = viewId;
    s.tiles = new ViewTiles((tiles) => (doc.kit && doc.sessions.has(s.id) ? sendTiles(doc.kit, s, tiles, "push") : Promise.resolve(null)));
    doc.sessions.set(s.id, s);
    doc.preloading = false;
    if (!s.readOnly) {
      doc.lastAuth = s.auth;
      doc.journal?.setAuth(s.auth);
    }
    doc.lastActivity = Date.now();
    const wopiInfo: WopiInfo = {
      BaseFileName: info.BaseFileName,
      UserCanWrite: info.UserCanWrite === true,
      PostMessageOrigin: info.PostMessageOrigin,
      UserId: s.userId,
      UserFriendlyName: s.userName,
      IsOwner: info.OwnerId !== undefined && info.OwnerId === info.UserId,
      HideSaveOption: info.HideSaveOption as boolean | undefined, // as the host sent it
      HidePrintOption: info.HidePrintOption === true,
      HideExportOption: info.HideExportOption === true,
      DisablePrint: info.DisablePrint === true,
      DisableExport: info.DisableExport === true,
      DisableCopy: info.DisableCopy === true,
      EnableOwnerTermination: info.EnableOwnerTermination,
      // What the page does with the rest of Collabora's connector properties (docs/editing-server.md,
      // "Using svc with an existing Collabora connector").
      BreadcrumbDocName: typeof info.BreadcrumbDocName === "string" ? info.BreadcrumbDocName : undefined,
      HideUserList: typeof info.HideUserList === "string" ? info.HideUserList : undefined,
      UserCanNotWriteRelative: info.UserCanNotWriteRelative !== false,
      EnableShare: info.EnableShare === true,
      EnableInsertRemoteImage: info.EnableInsertRemoteImage === true,
      DisableInsertLocalImage: info.DisableInsertLocalImage === true,
      HideChangeTrackingControls: info.HideChangeTrackingControls === true,
      DownloadAsPostMessage: info.DownloadAsPostMessage === true,
    };
    s.send(serverFrame("wopi", JSON.stringify(wopiInfo)));
    s.send(serverFrame("perm", s.readOnly ? "readonly" : "edit"));
    s.send(serverFrame("filemode", JSON.stringify({ readOnly: s.readOnly })));
    if (doc.lastModifiedTime !== null) s.send(serverFrame("lastmodtime", doc.lastModifiedTime));
    const st = await kit.request("status", { viewId });
    const ahead = firstScreenTiles(s.firstScreenArea, st);
    const grid = ahead[0];
    // Announced before the status, so the page's first request leaves these out.
    if (grid) s.send(firstScreenFrame({ part: grid.part, tilePosX: ahead.map((t) => t.x), tilePosY: ahead.map((t) => t.y), tileWidth: grid.w, tileHeight: grid.h, width: grid.width, height: grid.height }));
    s.send(statusFrame(st, viewId, doc.docType));
    s.send(serverFrame("statechanged", `.uno:ModifiedStatus=${doc.modified}`));
    if (grid) {
      s.tiles?.noteRequest(grid);
      void sendTiles(kit, s, ahead, "first").catch(() => sendTilesStale(s, ahead, "first")); // the page asks for them itself
    }
    for (const frame of this.attaching!.held.get(viewId) ?? []) s.send(frame);
    this.attaching = null;
    doc.broadcastViews();
    doc.deps.admin.addView(doc, s);
    doc.log.info("view_added", { session: s.id, view_id: viewId, read_only: s.readOnly, views: doc.sessions.size });
    return true;
  }

  /**
   * One editing view per access token: a new editing view replaces an earlier one of the same
   * token (a reload or reconnect whose old socket has not closed yet, or the token reused in a
   * second tab), before it is made, so the document never holds both. The gate admits a token's
   * later connections as reconnects of the view it counted, so a reused token never holds more
   * than one connection of the cap. The earlier page is told why (`close: replaced`).
   */
  async replaceEarlierViews(s: ClientSession): Promise<void> {
    for (const other of [...this.doc.sessions.values()]) {
      if (other.readOnly || other.auth.token !== s.auth.token) continue;
      this.doc.log.info("view_replaced", { session: other.id, by: s.id });
      other.send(closeFrame("replaced"));
      await this.detach(other);
      other.close();
    }
  }

  /** Takes a session's view out of the document (inside the serial chain); false when it was not in. */
  async detach(s: ClientSession): Promise<boolean> {
    const kit = this.doc.kit;
    return this.forget(s) && (await this.unview(s, kit));
  }

  /** Takes a session out of the document's list and the counts, at once; false when it was not in. */
  forget(s: ClientSession): boolean {
    const doc = this.doc;
    if (!doc.sessions.delete(s.id)) return false;
    doc.deps.admin.removeView(doc, s);
    doc.log.info("view_removed", { session: s.id, views: doc.sessions.size });
    return true;
  }

  /**
   * Ends a forgotten session's view in `kit`, the kit it was forgotten from (inside the serial
   * chain); true. A kit replaced since (a recovery) holds the view under another id: the recovery
   * ends it when its page does not come back.
   */
  async unview(s: ClientSession, kit: Kit | null): Promise<true> {
    const doc = this.doc;
    if (doc.kit === kit && doc.kit?.alive && doc.journaledKit && s.viewId !== undefined) {
      try {
        await doc.journaledKit.request("unview", { viewId: s.viewId });
      } catch {
        // the kit is going away anyway
      }
    }
    return true;
  }

  /** An engine callback of one view: to its session, after the tiles pushed for it (or held while it is attached). */
  onKitCallback(viewId: number, cb: number, payload: string, version?: number): void {
    const doc = this.doc;
    if (cb === LOK_CALLBACK.DOCUMENT_SIZE_CHANGED) {
      // The document size changed: send that view its new status.
      const s = [...doc.sessions.values()].find((x) => x.viewId === viewId);
      if (s && doc.kit) void doc.kit.request("status", { viewId }).then((st) => s.send(statusFrame(st, viewId, doc.docType)), () => {});
      return;
    }
    const name = CALLBACK_NAMES[cb];
    if (!name) return;
    if (cb === LOK_CALLBACK.STATE_CHANGED && payload.startsWith(".uno:ModifiedStatus")) return; // the broker owns the modified state
    const frame = version === undefined ? `${name}: ${payload}` : `${name}: ${payload} ver=${version}`;
    if (this.attaching && (this.attaching.viewId === viewId || ![...doc.sessions.values()].some((x) => x.viewId === viewId))) {
      // A context menu is filtered for the session it reaches (below), which is not known yet: a
      // menu asked for before the page has its view is dropped rather than held unfiltered.
      if (cb === LOK_CALLBACK.CONTEXT_MENU) return;
      const held = this.attaching.held.get(viewId) ?? [];
      // Bounded: a view being attached cannot grow the server's memory without limit.
      if (held.length >= MAX_HELD_CALLBACKS) held.shift();
      held.push(frame);
      this.attaching.held.set(viewId, held);
      return;
    }
    for (const s of doc.sessions.values()) {
      if (s.viewId !== viewId) continue;
      if (cb === LOK_CALLBACK.CONTEXT_MENU) {
        // LibreOffice's context menu offers only what the door lets this view run.
        const menu = filterContextMenu(payload, s.readOnly);
        if (menu) s.send(`${name}: ${menu}`);
        continue;
      }
      if (cb === LOK_CALLBACK.WINDOW || cb === LOK_CALLBACK.JSDIALOG) noteWindowLife(s, name as "window" | "jsdialog", payload);
      const pushed = cb === LOK_CALLBACK.INVALIDATE_TILES && version !== undefined ? s.tiles?.onInvalidation(payload, version) : null;
      deliverAfterPushes(s, frame, pushed ?? null);
    }
  }
}

/** Keeps the session's list of open dialogs (the windows its `dialogevent`s may name). */
function noteWindowLife(s: ClientSession, name: "window" | "jsdialog", payload: string): void {
  const life = windowLife(name, payload);
  if (!life) return;
  if (life.opened) (s.dialogs ??= new Map()).set(life.windowId, life.name);
  else s.dialogs?.delete(life.windowId);
  if (!life.opened) s.modal?.delete(life.windowId);
  else if (life.kind === "dialog" || (life.kind === "tunnelled" && tunnelledType(payload) === "dialog")) (s.modal ??= new Set()).add(life.windowId);
}

/** A tunnelled window's type ("dialog", "child", "tooltip"…), read from its `created`. */
function tunnelledType(payload: string): string {
  try {
    return String(JSON.parse(payload)?.type ?? "");
  } catch {
    return "";
  }
}
