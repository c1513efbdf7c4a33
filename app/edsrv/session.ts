// What a document's view and the commands a page sends share with the document broker: the
// session of one page (its socket, access, view and what it is shown) and the outcome of a save.
// Its own module, so that the broker (documents.ts) and the page's commands (view-commands.ts)
// both depend on it and not on each other.

import type { Logger } from "../log";
import type { ViewTiles } from "./tile-push";
import type { CheckFileInfo, WopiAuth } from "./wopi-client";

export interface ClientSession {
  id: string;
  send(frame: string | Uint8Array): void;
  close(): void;
  auth: WopiAuth;
  /** permission=readonly in the document URL. */
  requestedReadOnly: boolean;
  lang: string;
  readOnly: boolean;
  viewId?: number;
  /** The view's tiles sent without asking (tile-push.ts), once attached. */
  tiles?: ViewTiles;
  /** The page applies tile deltas (`tiledeltas=1` in its `load`): a changed band of rows of a tile it holds. */
  tileDeltas?: boolean;
  /** The area the page shows, as LibreOffice was last told it (`x y width height`, twips). */
  visibleArea?: string;
  /** The area of the page's first screen, when it asks for it to be painted ahead (`firstscreen=1`). */
  firstScreenArea?: string;
  /** Callback frames waiting for the tiles pushed for an invalidation (see deliverAfterPushes). */
  held?: { frames: string[]; pushes: number; timer: ReturnType<typeof setTimeout> };
  info?: CheckFileInfo;
  /** LibreOffice's dialogs open in this view: window id → dialog name (what a replay finds it by). */
  dialogs?: Map<string, string>;
  /**
   * Its modal windows among them (LibreOffice's dialogs, described or tunnelled; not drop-downs nor
   * the sidebar): while one is open the document behind takes none of this view's keys, text or
   * clicks (door.ts), as on a desktop.
   */
  modal?: Set<string>;
  userId: string;
  userName: string;
  joinedAt: number;
  lastActivity: number;
}

export type SaveReason = "user" | "auto" | "exit";
export interface SaveOutcome {
  success: boolean;
  result: "stored" | "unmodified" | "conflict" | "toolarge" | "unauthorized" | "failed" | "readonly" | "unavailable";
  errorMsg?: string;
}

/** What a page's commands may ask of its document (view-commands.ts). */
import type { AllowList } from "../net/ssrf";

export interface ViewDocument {
  readonly docType: string;
  readonly log: Logger;
  readonly modified: boolean;
  /** The document changed in storage while it had unsaved changes (a PutFile 409 or a new LastModifiedTime). */
  readonly conflict: boolean;
  /** What the editing server may fetch for a page (a picture's URL): SVC_FETCH_ALLOW_HOSTS under the SSRF rules. */
  readonly fetchAllow: AllowList;
  markEdited(): void;
  /** A document conflict resolved for the storage's version (Collabora's "Discard"): every view reopens it. */
  reloadFromStorage(by: ClientSession): Promise<void>;
  requestSave(req: { reason: SaveReason; force: boolean; extendedData?: string; session?: ClientSession }): Promise<SaveOutcome>;
  exportAs(format: string): Promise<string>;
}
