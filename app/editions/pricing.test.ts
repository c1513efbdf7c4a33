import { describe, expect, test } from "bun:test";
import { MIN_CONNECTIONS_PER_ORDER, quote, unitPriceCents, type PricePlan } from "./pricing";

/** The rule written out literally: min over every m in [max(n,50), limit] of m * unit(m). */
function bruteForce(n: number, plan: PricePlan) {
  let best = { m: 0, cents: Infinity };
  for (let m = Math.max(n, 50); m <= Math.max(n, 50) + 1000; m++) {
    const cents = m * unitPriceCents(m, plan);
    if (cents < best.cents) best = { m, cents };
  }
  return best;
}

describe("unit prices per tier (USD per connection)", () => {
  test("annual 5 / 4.5 / 3.5 and perpetual 10 / 9 / 8 at the tier edges", () => {
    const vectors: [number, number, number][] = [
      [50, 500, 1000],
      [200, 500, 1000],
      [201, 450, 900],
      [500, 450, 900],
      [501, 350, 800],
      [100_000, 350, 800],
    ];
    for (const [m, year, life] of vectors) {
      expect(unitPriceCents(m, "year")).toBe(year);
      expect(unitPriceCents(m, "life")).toBe(life);
    }
  });
});

describe("never-more-expensive rule, annual", () => {
  // [requested, billed, unit, total]
  const vectors: [number, number, number, number][] = [
    [1, 50, 5, 250],
    [49, 50, 5, 250],
    [50, 50, 5, 250],
    [180, 180, 5, 900], // 900 < 201 × 4.5 = 904.5
    [181, 201, 4.5, 904.5], // 905 > 904.5: buying 201 is cheaper
    [199, 201, 4.5, 904.5],
    [200, 201, 4.5, 904.5], // 1000 > 904.5
    [201, 201, 4.5, 904.5],
    [202, 202, 4.5, 909],
    [222, 222, 4.5, 999],
    [223, 223, 4.5, 1003.5],
    [389, 389, 4.5, 1750.5], // 1750.5 < 501 × 3.5 = 1753.5
    [390, 501, 3.5, 1753.5], // 1755 > 1753.5
    [499, 501, 3.5, 1753.5],
    [500, 501, 3.5, 1753.5],
    [501, 501, 3.5, 1753.5],
    [502, 502, 3.5, 1757],
    [1000, 1000, 3.5, 3500],
  ];
  for (const [n, billed, unit, total] of vectors) {
    test(`${n} requested → ${billed} billed at ${unit} = ${total}`, () => {
      expect(quote(n, "year")).toMatchObject({ requested: n, billed, unit_price: unit, total });
    });
  }
});

describe("never-more-expensive rule, perpetual", () => {
  const vectors: [number, number, number, number][] = [
    [10, 50, 10, 500],
    [50, 50, 10, 500],
    [180, 180, 10, 1800], // 1800 < 201 × 9 = 1809
    [181, 201, 9, 1809],
    [200, 201, 9, 1809],
    [201, 201, 9, 1809],
    [445, 445, 9, 4005], // 4005 < 501 × 8 = 4008
    [446, 501, 8, 4008],
    [500, 501, 8, 4008],
    [501, 501, 8, 4008],
    [502, 502, 8, 4016],
  ];
  for (const [n, billed, unit, total] of vectors) {
    test(`${n} requested → ${billed} billed at ${unit} = ${total}`, () => {
      expect(quote(n, "life")).toMatchObject({ requested: n, billed, unit_price: unit, total });
    });
  }
});

describe("rule properties", () => {
  test("matches the literal minimum over every m for 1..1200 on both plans", () => {
    for (const plan of ["year", "life"] as const) {
      for (let n = 1; n <= 1200; n++) {
        const q = quote(n, plan);
        const b = bruteForce(n, plan);
        expect([n, q.billed, q.total_cents]).toEqual([n, b.m, b.cents]);
      }
    }
  });

  test("ordering more never costs less than ordering fewer (the charge never decreases)", () => {
    for (const plan of ["year", "life"] as const) {
      let prev = 0;
      for (let n = 1; n <= 1200; n++) {
        const c = quote(n, plan).total_cents;
        expect(c).toBeGreaterThanOrEqual(prev);
        prev = c;
      }
    }
  });

  test("money is exact: totals are whole cents, no floating-point residue", () => {
    for (let n = 1; n <= 1200; n++) {
      const q = quote(n, "year");
      expect(q.total_cents).toBe(q.billed * q.unit_price_cents);
      expect(q.total).toBe(q.total_cents / 100);
      expect(Number.isInteger(q.total_cents)).toBe(true);
    }
    expect(quote(223, "year").total).toBe(1003.5);
  });

  test("billed is at least the minimum order and at least the request", () => {
    expect(MIN_CONNECTIONS_PER_ORDER).toBe(50);
    for (let n = 1; n <= 700; n += 7) expect(quote(n, "year").billed).toBeGreaterThanOrEqual(Math.max(n, 50));
  });

  test("bad input is refused", () => {
    for (const n of [0, -1, 1.5, NaN]) expect(() => quote(n, "year")).toThrow(RangeError);
    expect(() => quote(100, "month" as PricePlan)).toThrow(RangeError);
  });
});
