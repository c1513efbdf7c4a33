// Tiles a view is sent without asking (Collabora's ClientSession::handleTileInvalidation): when the
// engine invalidates a rectangle, the tiles of it that the page shows are painted and sent at once,
// a round trip (server → page → server → kit) before the page's own request would have them painted.
// The page still asks, saying which pixel version it needs (`need=`) and which copy it holds
// (`have=`, a wire id): a request that a push answers is not painted twice. Nothing depends on a
// push arriving: a push that fails, or misses a tile because the page scrolled meanwhile, leaves
// the page's own request to paint it.

import { parseTileInvalidation } from "../../workers/tile-invalidation";

export interface TileRequest {
  part: number;
  /** Pixels. */
  width: number;
  height: number;
  /** Twips. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** The wire id of the copy the page holds (0: none): unchanged pixels are then sent as "same". */
  have: number;
}

/** What one sent tile frame carried. */
export interface SentTile {
  wid: number;
  /** False when the frame said "the pixels of `wid`, unchanged" and carried no picture. */
  picture: boolean;
  /** The picture was the changed rows of this copy (a delta): the page has it only if it held that copy. */
  base?: number;
}

/**
 * Paints tiles (one part and size) and sends them to the view; answers the pixel version and what
 * each frame carried, or null if nothing was sent.
 */
export type SendTiles = (tiles: TileRequest[]) => Promise<{ version: number; sent: SentTile[] } | null>;

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** At most this many tiles pushed for one invalidation: a screen of 1920×1200 px is 40 tiles. */
const MAX_PUSHED = 48;
/** Tiles remembered per view (a screen's tiles many times over; forgotten past it). */
const MAX_REMEMBERED = 1024;

export const tileKey = (t: Pick<TileRequest, "part" | "x" | "y" | "w" | "width">) => `${t.part}:${t.x}:${t.y}:${t.w}:${t.width}`;

export class ViewTiles {
  /** What the page shows, in twips (its `clientvisiblearea`). */
  private visible: Rect | null = null;
  /** The part and tile size of the page's latest tile request: the tiles it draws now. */
  private grid: { part: number; px: number; twips: number } | null = null;
  /** Pushes in flight, and the version to paint again for if an invalidation came meanwhile. */
  private inFlight = new Map<string, { done: Promise<void>; again: number }>();
  /** The last push at each key: its version and what it carried. */
  private pushed = new Map<string, { version: number } & SentTile>();
  /** The wire id of the last tile frame sent at each key (pushed or asked for): what the page holds. */
  private lastWid = new Map<string, number>();

  constructor(private readonly send: SendTiles) {}

  setVisibleArea(x: number, y: number, w: number, h: number): void {
    if ([x, y, w, h].every(Number.isFinite) && w > 0 && h > 0) this.visible = { x, y, w, h };
  }

  /** A tile the page asked for: its part and size are what the page draws now. */
  noteRequest(t: TileRequest): void {
    if (t.width !== t.height || t.w !== t.h || t.width < 1 || t.w < 1) return;
    const g = this.grid;
    if (g && g.part === t.part && g.px === t.width && g.twips === t.w) return;
    this.grid = { part: t.part, px: t.width, twips: t.w };
  }

  /** A tile frame went to the page (see view-commands.ts sendTiles). */
  noteSent(t: TileRequest, wid: number): void {
    if (this.lastWid.size >= MAX_REMEMBERED) this.lastWid.clear();
    this.lastWid.set(tileKey(t), wid);
  }

  /**
   * An `invalidatetiles` payload (`x, y, w, h[, part]` or `EMPTY[, part]`) sent to this view with
   * its version: pushes the visible tiles it covers. Resolves when they are sent (or failed); null
   * when nothing is pushed.
   */
  onInvalidation(payload: string, version: number): Promise<void> | null {
    const g = this.grid, v = this.visible;
    if (!g || !v) return null;
    const inv = parseTileInvalidation(payload);
    if (!inv) return null;
    const part = inv.part ?? g.part;
    if (part !== g.part) return null;
    let r: Rect = v;
    if (inv.rect) {
      const { x, y, w, h } = inv.rect;
      const x0 = Math.max(x, v.x), y0 = Math.max(y, v.y);
      const x1 = Math.min(x + w, v.x + v.w), y1 = Math.min(y + h, v.y + v.h);
      if (x1 <= x0 || y1 <= y0) return null;
      r = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
    }
    const t = g.twips;
    const tx0 = Math.floor(r.x / t), ty0 = Math.floor(r.y / t);
    const tx1 = Math.ceil((r.x + r.w) / t), ty1 = Math.ceil((r.y + r.h) / t);
    if ((tx1 - tx0) * (ty1 - ty0) > MAX_PUSHED) return null; // the page's own requests paint it
    const keys: { x: number; y: number }[] = [];
    for (let ty = ty0; ty < ty1; ty++) for (let tx = tx0; tx < tx1; tx++) keys.push({ x: tx * t, y: ty * t });
    return this.push(
      keys.map(({ x, y }) => ({ part, width: g.px, height: g.px, x, y, w: t, h: t, have: 0 })),
      version,
    );
  }

  /**
   * Whether a tile the page asks for, needing `need` and holding `have`, is answered by a push
   * (sent, or in flight and then sent, at that version or later, with a picture or as "same" as
   * the copy the page holds): the page receives it before anything sent after.
   */
  async covered(t: TileRequest, need: number): Promise<boolean> {
    const key = tileKey(t);
    const flight = this.inFlight.get(key);
    if (flight) await flight.done;
    const p = this.pushed.get(key);
    if (p === undefined || p.version < need) return false;
    if (t.have !== 0 && p.wid === t.have) return true; // "same" as the copy the page holds
    return p.picture && (p.base === undefined || p.base === t.have);
  }

  /**
   * Pushes tiles painted at `version` or later; a tile already on its way is painted again after it
   * if needed. Resolves when every one of them is sent at that version (or its push failed).
   */
  private push(tiles: TileRequest[], version: number): Promise<void> {
    const flying: Promise<void>[] = [];
    const fresh = tiles.filter((tile) => {
      const flight = this.inFlight.get(tileKey(tile));
      if (flight) {
        flight.again = Math.max(flight.again, version);
        flying.push(flight.done);
      }
      return !flight;
    });
    if (!fresh.length) return Promise.all(flying).then(() => {});
    const entry = { again: -1, done: Promise.resolve() };
    entry.done = (async () => {
      for (;;) {
        // The copy the page holds is the last one sent (frames arrive in order).
        const batch = fresh.map((tile) => ({ ...tile, have: this.lastWid.get(tileKey(tile)) ?? 0 }));
        const r = await this.send(batch).catch(() => null);
        if (r === null) break;
        if (this.pushed.size + batch.length > MAX_REMEMBERED) this.pushed.clear();
        batch.forEach((tile, i) => this.pushed.set(tileKey(tile), { version: r.version, ...r.sent[i]! }));
        // An invalidation newer than the painted tiles came in during the paint: paint again.
        if (entry.again <= r.version) break;
        entry.again = -1;
      }
      for (const tile of fresh) if (this.inFlight.get(tileKey(tile)) === entry) this.inFlight.delete(tileKey(tile));
    })();
    for (const tile of fresh) this.inFlight.set(tileKey(tile), entry);
    return Promise.all([entry.done, ...flying]).then(() => {});
  }
}

/** The tile grid of the first screen: 256 px tiles at 100 % (the editor page's start). */
const FIRST_TILE_PX = 256;
const FIRST_TILE_TWIPS = 3840;
/** At most this many tiles sent ahead (a 2560×1600 px screen is 70; more is left to the page). */
const MAX_FIRST = 80;

/**
 * The tiles of a view's first screen, painted before the page asks (`firstscreen=1` with its
 * `clientvisiblearea=x;y;width;height` in `load`): the page announces them as asked and asks only for
 * the others once it has laid itself out, so the engine paints while the page builds its interface.
 * Text and spreadsheets only: a slide is first shown whole, at a zoom the page picks after the status.
 * The area is clipped to a text document's size (a spreadsheet's empty cells are drawn too).
 */
export function firstScreenTiles(area: string | undefined, st: { type?: unknown; selectedPart?: unknown; width?: unknown; height?: unknown }): TileRequest[] {
  if (st.type !== "text" && st.type !== "spreadsheet") return [];
  const n = (area ?? "").split(";").map((v) => (/^\d+$/.test(v) ? Number(v) : NaN));
  if (n.length !== 4 || n.some((v) => !Number.isFinite(v))) return [];
  let [x, y, w, h] = n as [number, number, number, number];
  if (st.type === "text") {
    w = Math.min(w, Math.max(0, Number(st.width) - x || 0));
    h = Math.min(h, Math.max(0, Number(st.height) - y || 0));
  }
  const part = Number(st.selectedPart) || 0;
  const tiles: TileRequest[] = [];
  for (let ty = Math.floor(y / FIRST_TILE_TWIPS); ty * FIRST_TILE_TWIPS < y + h; ty++)
    for (let tx = Math.floor(x / FIRST_TILE_TWIPS); tx * FIRST_TILE_TWIPS < x + w; tx++) {
      if (tiles.length >= MAX_FIRST) return tiles;
      tiles.push({ part, width: FIRST_TILE_PX, height: FIRST_TILE_PX, x: tx * FIRST_TILE_TWIPS, y: ty * FIRST_TILE_TWIPS, w: FIRST_TILE_TWIPS, h: FIRST_TILE_TWIPS, have: 0 });
    }
  return tiles;
}
