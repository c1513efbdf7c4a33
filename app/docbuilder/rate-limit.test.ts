import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock";
import { ServiceError } from "../errors";
import { RateLimiter } from "./rate-limit";

const community = { perMinute: 10, perDay: 200 };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError) return e;
  }
  throw new Error("expected a refusal");
};

describe("rate windows", () => {
  test("the minute window is the UTC clock minute (fixed window)", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 3, 0, 59, 500));
    const rl = new RateLimiter(clock);
    for (let i = 0; i < 10; i++) rl.take(community);
    const e = refusal(() => rl.take(community));
    expect(e.code).toBe("rate_limited");
    expect(e.detail.window).toBe("minute");
    expect(e.headers["Retry-After"]).toBe("1");
    clock.advance(500); // 03:01:00.000 — a new minute
    expect(rl.take(community).headers()["X-RateLimit-Remaining"]).toBe("9");
  });

  test("the day window resets at 00:00 in UTC+7 (17:00 UTC)", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 16, 59, 0));
    const rl = new RateLimiter(clock);
    const day = { perMinute: 1000, perDay: 3 };
    for (let i = 0; i < 3; i++) rl.take(day);
    const e = refusal(() => rl.take(day));
    expect(e.detail.window).toBe("day");
    expect(e.headers["Retry-After"]).toBe("60");
    clock.set(Date.UTC(2026, 10, 22, 16, 59, 59, 999));
    expect(refusal(() => rl.take(day)).detail.window).toBe("day");
    clock.set(Date.UTC(2026, 10, 22, 17, 0, 0));
    expect(() => rl.take(day)).not.toThrow();
    expect(rl.usage(day).day.reset_at).toBe("2026-11-23T17:00:00.000Z");
  });

  test("daily headers are absent when there is no daily limit", () => {
    const rl = new RateLimiter(new ManualClock());
    const h = rl.take({ perMinute: 60, perDay: null }).headers();
    expect(h["X-RateLimit-Limit"]).toBe("60");
    expect(h["X-RateLimit-Limit-Day"]).toBeUndefined();
    expect(h["X-RateLimit-Remaining-Day"]).toBeUndefined();
  });

  test("a refunded request (refused with 401 or 403) is not counted, once only", () => {
    const rl = new RateLimiter(new ManualClock());
    const t = rl.take(community);
    t.refund();
    t.refund();
    expect(rl.usage(community).minute.used).toBe(0);
    expect(rl.usage(community).day.used).toBe(0);
  });

  test("a refund never credits a later window", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 3, 0, 30));
    const rl = new RateLimiter(clock);
    const t = rl.take(community);
    clock.advance(60_000);
    rl.take(community);
    t.refund();
    expect(rl.usage(community).minute.used).toBe(1);
  });

  test("X-RateLimit-Reset is the Unix second when the minute window resets", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 3, 7, 12));
    const h = new RateLimiter(clock).take(community).headers();
    expect(h["X-RateLimit-Reset"]).toBe(String(Date.UTC(2026, 10, 22, 3, 8, 0) / 1000));
  });
});
