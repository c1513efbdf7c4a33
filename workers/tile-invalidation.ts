// LibreOfficeKit's tile invalidation payload (LOK_CALLBACK_INVALIDATE_TILES), read in one place:
// "x, y, w, h, part" in twips, or "EMPTY, part" for the whole part; the part is absent when the
// engine does not say it.

export interface TileInvalidation {
  /** null: the engine named no part. */
  part: number | null;
  /** Twips; null: the whole part. */
  rect: { x: number; y: number; w: number; h: number } | null;
}

/** The payload read, or null when it is neither form. */
export function parseTileInvalidation(payload: string): TileInvalidation | null {
  const n = payload.split(",").map((s) => s.trim());
  const partAt = (i: number) => (n.length > i && Number.isFinite(Number(n[i])) && n[i] !== "" ? Number(n[i]) : null);
  if (n[0] === "EMPTY") return { part: partAt(1), rect: null };
  const [x, y, w, h] = n.slice(0, 4).map(Number) as [number, number, number, number];
  if (n.length < 4 || ![x, y, w, h].every(Number.isFinite)) return null;
  return { part: partAt(4), rect: { x, y, w, h } };
}
