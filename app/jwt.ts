// HS256 JWTs as the spec wants them for DocBuilder and embed configs alike: HS256 only (`none`,
// HS384, HS512 and every other algorithm refused), `exp` required and at most 24 hours ahead,
// `nbf` honoured when present (with 60 s of tolerance; the spec says nothing of nbf). Skew on
// `exp` is the caller's rule: 60 s for DocBuilder JWTs, none for embed config tokens. Signature and algorithm are checked by
// hono/jwt; the time rules here, against the injected clock.

import { verify } from "hono/jwt";

export const MAX_JWT_LIFETIME_S = 24 * 3600;
export const JWT_CLOCK_SKEW_S = 60;

export type JwtFailure =
  /** Bad signature, not HS256, not a JWT at all. */
  | "signature"
  | "missing_exp"
  | "too_long"
  | "not_yet_valid"
  | "expired";

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
  if (typeof exp !== "number" || !Number.isFinite(exp)) return { ok: false, failure: "missing_exp" };
  if (exp + rules.expSkewS <= now) return { ok: false, failure: "expired" };
  if (exp - now > MAX_JWT_LIFETIME_S + rules.expSkewS) return { ok: false, failure: "too_long" };
  if (typeof payload.nbf === "number" && payload.nbf - JWT_CLOCK_SKEW_S > now) return { ok: false, failure: "not_yet_valid" };
  return { ok: true, payload };
}
