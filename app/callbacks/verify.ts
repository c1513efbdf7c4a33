// Callback signatures (spec: Events, "Headers and signature"). Pure crypto, no I/O: the sender
// signs with signPayload, receivers (the dev demo receiver, tests, callers' own code) check with
// verifyCallback.
//
//   X-SVC-Signature = "sha256=" + lowercase hex HMAC-SHA256(key, X-SVC-Timestamp + "." + raw body)

import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_PREFIX = "sha256=";
/** Spec: "Callback timestamp tolerance: 300 s". */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const HEADER_EVENT = "X-SVC-Event";
export const HEADER_DELIVERY = "X-SVC-Delivery";
export const HEADER_TIMESTAMP = "X-SVC-Timestamp";
export const HEADER_SIGNATURE = "X-SVC-Signature";

const encoder = new TextEncoder();
const asBytes = (b: string | Uint8Array): Uint8Array => (typeof b === "string" ? encoder.encode(b) : b);

/** `sha256=` + lowercase hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`), over the raw body bytes. */
export function signPayload(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  const mac = createHmac("sha256", secret);
  mac.update(encoder.encode(`${timestamp}.`));
  mac.update(asBytes(rawBody));
  return SIGNATURE_PREFIX + mac.digest("hex");
}

/** Headers as a Fetch `Headers`, a node `IncomingHttpHeaders`, or a plain record (any case). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() !== want || v === undefined) continue;
    // A repeated signature or timestamp header is ambiguous: take none rather than guess.
    if (Array.isArray(v)) return v.length === 1 ? v[0]! : null;
    return v;
  }
  return null;
}

export type VerifyFailure =
  /** The receiver has no key configured: nothing can be verified. */
  | "no_secret"
  | "missing_signature"
  | "missing_timestamp"
  /** Not a plain non-negative integer of Unix seconds. */
  | "bad_timestamp"
  /** More than toleranceSeconds away from the receiver's clock (either direction). */
  | "timestamp_out_of_window"
  | "bad_signature";

export type VerifyResult =
  | { ok: true; timestamp: number; event: string | null; deliveryId: string | null }
  | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  secret: string;
  headers: HeaderSource;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** Receiver's clock in Unix MILLISECONDS (Date.now() style); default Date.now(). */
  now?: number;
  toleranceSeconds?: number;
}

/**
 * Receiver-side check in the order the spec gives: signature over the raw bytes (constant-time
 * compare), then the timestamp window. Parse the body only after `ok` is true.
 */
export function verifyCallback(input: VerifyInput): VerifyResult {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = (input.now ?? Date.now()) / 1000;
  if (input.secret === "") return { ok: false, reason: "no_secret" };

  const signature = header(input.headers, HEADER_SIGNATURE);
  if (signature === null || signature === "") return { ok: false, reason: "missing_signature" };
  const tsText = header(input.headers, HEADER_TIMESTAMP);
  if (tsText === null || tsText === "") return { ok: false, reason: "missing_timestamp" };
  if (!/^[0-9]{1,15}$/.test(tsText.trim())) return { ok: false, reason: "bad_timestamp" };

  // The signature covers the timestamp exactly as sent, so the header text is what gets hashed.
  const expected = Buffer.from(signPayload(input.secret, tsText.trim(), input.rawBody), "utf8");
  const given = Buffer.from(signature.trim(), "utf8");
  // The expected length is public (71 bytes), so an early length mismatch leaks nothing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "bad_signature" };
  }

  const timestamp = Number(tsText.trim());
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: "timestamp_out_of_window" };

  return {
    ok: true,
    timestamp,
    event: header(input.headers, HEADER_EVENT),
    deliveryId: header(input.headers, HEADER_DELIVERY),
  };
}
