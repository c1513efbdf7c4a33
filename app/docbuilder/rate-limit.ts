// Rate limits of the counted DocBuilder endpoints, for the whole instance (not per key): a fixed
// window per UTC clock minute and a day window that resets at 00:00 in UTC+7.

import type { Clock } from "../clock";
import { ServiceError } from "../errors";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const UTC7_MS = 7 * 3_600_000;

export interface RateLimits {
  perMinute: number;
  /** null: no daily limit. */
  perDay: number | null;
}

export interface WindowUsage {
  limit: number | null;
  used: number;
  remaining: number | null;
  reset_at: string;
}

/** A slot taken by an admitted request; give it back when the request ends refused with 401/403. */
export interface RateTicket {
  refund(): void;
  /** The X-RateLimit-* headers as the windows stand now: after a refund they show it. */
  headers(): Record<string, string>;
}

export class RateLimiter {
  private minuteKey = -1;
  private minuteUsed = 0;
  private dayKey = -1;
  private dayUsed = 0;

  constructor(private readonly clock: Clock) {}

  /** Counts one request, or throws 429 rate_limited with detail.window and Retry-After. */
  take(limits: RateLimits): RateTicket {
    const now = this.clock.now();
    this.roll(now);
    if (limits.perDay !== null && this.dayUsed >= limits.perDay) {
      throw this.refusal("day", Math.ceil((this.dayResetMs(now) - now) / 1000), limits, now);
    }
    if (this.minuteUsed >= limits.perMinute) {
      throw this.refusal("minute", Math.ceil((this.minuteResetMs(now) - now) / 1000), limits, now);
    }
    this.minuteUsed++;
    this.dayUsed++;
    const minuteKey = this.minuteKey;
    const dayKey = this.dayKey;
    let refunded = false;
    return {
      headers: () => this.headers(limits, now),
      refund: () => {
        if (refunded) return;
        refunded = true;
        // Only while the same windows are open: a refund never credits a later window.
        if (this.minuteKey === minuteKey && this.minuteUsed > 0) this.minuteUsed--;
        if (this.dayKey === dayKey && this.dayUsed > 0) this.dayUsed--;
      },
    };
  }

  usage(limits: RateLimits): { minute: WindowUsage; day: WindowUsage } {
    const now = this.clock.now();
    this.roll(now);
    return {
      minute: {
        limit: limits.perMinute,
        used: this.minuteUsed,
        remaining: Math.max(0, limits.perMinute - this.minuteUsed),
        reset_at: new Date(this.minuteResetMs(now)).toISOString(),
      },
      day: {
        limit: limits.perDay,
        used: this.dayUsed,
        remaining: limits.perDay === null ? null : Math.max(0, limits.perDay - this.dayUsed),
        reset_at: new Date(this.dayResetMs(now)).toISOString(),
      },
    };
  }

  private roll(now: number) {
    const minuteKey = Math.floor(now / MINUTE_MS);
    if (minuteKey !== this.minuteKey) {
      this.minuteKey = minuteKey;
      this.minuteUsed = 0;
    }
    const dayKey = Math.floor((now + UTC7_MS) / DAY_MS);
    if (dayKey !== this.dayKey) {
      this.dayKey = dayKey;
      this.dayUsed = 0;
    }
  }

  private minuteResetMs(now: number) {
    return (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS;
  }

  private dayResetMs(now: number) {
    return (Math.floor((now + UTC7_MS) / DAY_MS) + 1) * DAY_MS - UTC7_MS;
  }

  private headers(limits: RateLimits, now: number): Record<string, string> {
    const h: Record<string, string> = {
      "X-RateLimit-Limit": String(limits.perMinute),
      "X-RateLimit-Remaining": String(Math.max(0, limits.perMinute - this.minuteUsed)),
      "X-RateLimit-Reset": String(this.minuteResetMs(now) / 1000),
    };
    if (limits.perDay !== null) {
      h["X-RateLimit-Limit-Day"] = String(limits.perDay);
      h["X-RateLimit-Remaining-Day"] = String(Math.max(0, limits.perDay - this.dayUsed));
    }
    return h;
  }

  private refusal(window: "minute" | "day", retryAfter: number, limits: RateLimits, now: number) {
    const message =
      window === "minute"
        ? `Đã dùng hết ${limits.perMinute} yêu cầu trong phút này: hãy thử lại sau ${retryAfter} giây.`
        : `Đã dùng hết ${limits.perDay} yêu cầu trong ngày (đặt lại lúc 00:00 giờ Việt Nam): hãy thử lại sau ${retryAfter} giây.`;
    return new ServiceError("rate_limited", message, { window, limit: window === "minute" ? limits.perMinute : limits.perDay }, {
      ...this.headers(limits, now),
      "Retry-After": String(Math.max(1, retryAfter)),
    });
  }
}
