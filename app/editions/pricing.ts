// Enterprise prices (spec, Prices): one unit price for ALL connections of an order, by tier;
// at least 50 connections per order; and the never-more-expensive rule
//   charged(n) = min over every m >= n and m >= 50 of m * unit_price(m).
// Money is computed in integer cents. Because the unit price is constant within a tier and never
// rises with m, the minimum lies either at max(n, 50) or at the first count of a later tier, so
// those few candidates are enough.

export type PricePlan = "year" | "life";

export const MIN_CONNECTIONS_PER_ORDER = 50;

/** Tiers by their first connection count, unit prices in cents. */
const TIERS: { from: number; cents: Record<PricePlan, number> }[] = [
  { from: 50, cents: { year: 500, life: 1000 } },
  { from: 201, cents: { year: 450, life: 900 } },
  { from: 501, cents: { year: 350, life: 800 } },
];

export function unitPriceCents(connections: number, plan: PricePlan): number {
  let cents = TIERS[0]!.cents[plan];
  for (const t of TIERS) if (connections >= t.from) cents = t.cents[plan];
  return cents;
}

export interface Quote {
  plan: PricePlan;
  /** Connections asked for. */
  requested: number;
  /** Connections billed and granted (the token's conns). */
  billed: number;
  /** USD per connection (per year for annual plans). */
  unit_price: number;
  /** USD for the order. */
  total: number;
  unit_price_cents: number;
  total_cents: number;
}

export function quote(requested: number, plan: PricePlan): Quote {
  if (!Number.isSafeInteger(requested) || requested < 1) throw new RangeError("requested connections must be an integer of 1 or more");
  if (plan !== "year" && plan !== "life") throw new RangeError("plan must be year or life");
  const least = Math.max(requested, MIN_CONNECTIONS_PER_ORDER);
  const candidates = [least, ...TIERS.map((t) => t.from).filter((from) => from > least)];
  let best = { m: least, total: least * unitPriceCents(least, plan) };
  for (const m of candidates) {
    const total = m * unitPriceCents(m, plan);
    if (total < best.total) best = { m, total }; // a tie keeps the smaller count (none occurs with these prices)
  }
  const unit = unitPriceCents(best.m, plan);
  return {
    plan,
    requested,
    billed: best.m,
    unit_price: unit / 100,
    total: best.total / 100,
    unit_price_cents: unit,
    total_cents: best.total,
  };
}
