// HS256 JWTs as the spec wants them for DocBuilder and embed configs alike: HS256 only (`none`,
// HS384, HS512 and every other algorithm refused), `exp` required and at most 24 hours ahead. The
// spec's rules name `exp` alone: an `nbf` is range-checked like every time claim (a token never
// makes a 500) but a future one refuses nothing (issue 34, D8). Skew on
// `exp` is the caller's rule: 60 s for DocBuilder JWTs, none for embed config tokens. Signature and algorithm are checked by
// hono/jwt; the time rules here, against the injected clock.

import { verify } from "hono/jwt";
import { timingSafeEqual } from "node:crypto";

export const MAX_JWT_LIFETIME_S = 24 * 3600;
export const JWT_CLOCK_SKEW_S = 60;
/** The last second a time claim may name: 9999-12-31T23:59:59Z (what a Date can print as ISO 8601). */
export const MAX_TIME_CLAIM_S = 253_402_300_799;

/** The time claims of a JWT, seconds since 1970: checked for range before any arithmetic or Date uses them. */
const TIME_CLAIMS = ["exp", "nbf", "iat"] as const;
// RFC 7519 NumericDate: a number of seconds, fractions allowed.
const validTime = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_TIME_CLAIM_S;

export type JwtFailure =
  /** Bad signature, not HS256, not a JWT at all. */
  | "signature"
  | "missing_exp"
  | "too_long"
  | "expired"
  /** exp, nbf or iat is not a number of seconds between 1970 and 9999 (1e308, 2^63, -1, "soon"). */
  | "bad_claim";

export type JwtResult = { ok: true; payload: Record<string, unknown> } | { ok: false; failure: JwtFailure };

export interface JwtRules {
  /**
   * Seconds of clock skew granted on `exp` (both "expired" and "more than 24 hours ahead").
   * DocBuilder JWTs get JWT_CLOCK_SKEW_S (spec "Authentication: DocBuilder"); embed config tokens
   * get none: the spec grants skew to DocBuilder only, so an embed token is expired from `exp` on.
   */
  expSkewS: number;
}

export async function verifyHs256(token: string, secret: string, nowMs: number, rules: JwtRules): Promise<JwtResult> {
  let payload: Record<string, unknown>;
  try {
    payload = (await verify(token, secret, { alg: "HS256", exp: false, nbf: false, iat: false })) as Record<string, unknown>;
  } catch {
    return { ok: false, failure: "signature" };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return { ok: false, failure: "signature" };
  const now = Math.floor(nowMs / 1000);
  const exp = payload.exp;
  if (exp === undefined || exp === null) return { ok: false, failure: "missing_exp" };
  for (const claim of TIME_CLAIMS) {
    if (payload[claim] !== undefined && !validTime(payload[claim])) return { ok: false, failure: "bad_claim" };
  }
  const expS = exp as number; // a valid time claim: checked just above
  if (expS + rules.expSkewS <= now) return { ok: false, failure: "expired" };
  if (expS - now > MAX_JWT_LIFETIME_S + rules.expSkewS) return { ok: false, failure: "too_long" };
  return { ok: true, payload };
}

/** Why a token's signature check failed: not a JWT at all, another algorithm, or another key. */
export type SignatureCause = "malformed" | "algorithm" | "wrong_secret";

export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/**
 * Reads a JWT's header and payload WITHOUT verifying anything: for telling an integrator why a
 * token was refused (which algorithm it names, what its payload holds). Never trust the result.
 * Returns null when the text is not three base64url parts of JSON objects.
 */
export function decodeJwtUnverified(token: string): DecodedJwt | null {
  const parts = token.trim().split(".");
  if (parts.length !== 3) return null;
  const part = (s: string): Record<string, unknown> | null => {
    try {
      if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
      const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const header = part(parts[0]!);
  const payload = part(parts[1]!);
  return header && payload ? { header, payload } : null;
}

/** The cause of a "signature" failure, read from the token itself. */
export function signatureCause(token: string): { cause: SignatureCause; alg?: string } {
  const d = decodeJwtUnverified(token);
  if (!d) return { cause: "malformed" };
  const alg = typeof d.header.alg === "string" ? d.header.alg : String(d.header.alg);
  if (alg !== "HS256") return { cause: "algorithm", alg };
  return { cause: "wrong_secret", alg };
}

/** Whether `secret` is the key that signed this HS256 token (constant-time compare). */
export function signedWith(token: string, secret: string): boolean {
  if (!secret) return false;
  const parts = token.trim().split(".");
  if (parts.length !== 3) return false;
  const want = new Bun.CryptoHasher("sha256", secret).update(`${parts[0]}.${parts[1]}`).digest();
  let got: Buffer;
  try {
    got = Buffer.from(parts[2]!, "base64url");
  } catch {
    return false;
  }
  return got.length === want.length && timingSafeEqual(got, want);
}
