// The demo's callback receiver: checks every callback as the spec's receiver rules say (raw body
// first, signature in constant time, timestamp within 300 s, only then parsed) and keeps the last
// 20 in memory for the demo page.

import { verifyCallback, type VerifyResult } from "../callbacks/verify";

export interface ReceivedDemoCallback {
  received_at: string;
  event: string | null;
  delivery_id: string | null;
  signature: { ok: boolean; reason: string | null };
  /** The parsed body when the signature checked out; null otherwise (an unchecked body is not trusted). */
  body: unknown;
}

const KEEP = 20;

export class DemoReceiver {
  private items: ReceivedDemoCallback[] = [];

  constructor(private readonly secret: string) {}

  receive(headers: Headers, raw: Uint8Array, now = Date.now()): { status: number; check: VerifyResult } {
    const check = verifyCallback({ secret: this.secret, headers, rawBody: raw, now });
    let body: unknown = null;
    if (check.ok) {
      try {
        body = JSON.parse(new TextDecoder().decode(raw));
      } catch {
        body = null;
      }
    }
    this.items.unshift({
      received_at: new Date(now).toISOString(),
      event: headers.get("x-svc-event"),
      delivery_id: headers.get("x-svc-delivery"),
      signature: { ok: check.ok, reason: check.ok ? null : check.reason },
      body,
    });
    this.items.length = Math.min(this.items.length, KEEP);
    return { status: check.ok ? 200 : 401, check };
  }

  /** Newest first. */
  list(): ReceivedDemoCallback[] {
    return [...this.items];
  }
}
