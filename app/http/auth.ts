// DocBuilder authentication: `Authorization: Bearer <value>` where the value is an API key from
// SVC_DOCBUILDER_API_KEYS or an HS256 JWT signed with SVC_DOCBUILDER_JWT_SECRET.

import { timingSafeEqual, createHash } from "node:crypto";
import { JWT_CLOCK_SKEW_S, verifyHs256 } from "../jwt";
import type { Clock } from "../clock";
import { ServiceError } from "../errors";

export interface CallerIdentity {
  /** Label for logs: the key's name or the JWT's `sub`; never the credential itself. */
  caller: string;
  kind: "api_key" | "jwt";
}

/** SHA-256 first, so both sides of the comparison have the same length whatever was sent. */
const digest = (s: string) => createHash("sha256").update(s).digest();

const unauthorized = (reason: "missing" | "invalid" | "no_keys_configured", message: string) =>
  new ServiceError("unauthorized", message, { reason });

export function createAuthenticator(opts: { apiKeys: { name: string; key: string }[]; jwtSecret: string; clock: Clock }) {
  const keys = opts.apiKeys.map((k) => ({ name: k.name, digest: digest(k.key) }));

  return async function authenticate(header: string | undefined | null): Promise<CallerIdentity> {
    if (keys.length === 0 && !opts.jwtSecret) {
      throw unauthorized("no_keys_configured", "Máy chủ chưa cấu hình khóa API (SVC_DOCBUILDER_API_KEYS) hay bí mật JWT (SVC_DOCBUILDER_JWT_SECRET).");
    }
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "");
    if (!m) throw unauthorized("missing", "Thiếu tiêu đề Authorization: Bearer <khóa API hoặc JWT>.");
    const value = m[1]!;

    if (value.split(".").length === 3) return verifyJwt(value);

    const sent = digest(value);
    let match: string | null = null;
    // Compare with every key, always: the time taken does not tell which key was close.
    for (const k of keys) if (timingSafeEqual(sent, k.digest) && match === null) match = k.name;
    if (match === null) throw unauthorized("invalid", "Khóa API không đúng.");
    return { caller: match, kind: "api_key" };
  };

  async function verifyJwt(token: string): Promise<CallerIdentity> {
    if (!opts.jwtSecret) throw unauthorized("invalid", "Máy chủ không bật xác thực JWT: hãy dùng khóa API.");
    // The spec grants DocBuilder JWTs 60 s of clock skew.
    const r = await verifyHs256(token, opts.jwtSecret, opts.clock.now(), { expSkewS: JWT_CLOCK_SKEW_S });
    if (!r.ok) {
      switch (r.failure) {
        case "expired":
          throw new ServiceError("token_expired", undefined, { reason: "expired" });
        case "missing_exp":
          throw unauthorized("invalid", "JWT thiếu trường exp.");
        case "too_long":
          throw unauthorized("invalid", "JWT có exp quá 24 giờ kể từ bây giờ.");
        case "bad_claim":
          throw unauthorized("invalid", "JWT có exp, nbf hoặc iat không hợp lệ: mỗi trường phải là số giây tính từ 1970, trước năm 10000.");
        default:
          throw unauthorized("invalid", "JWT không hợp lệ: sai chữ ký hoặc thuật toán không phải HS256.");
      }
    }
    const sub = typeof r.payload.sub === "string" ? r.payload.sub.slice(0, 64) : "jwt";
    return { caller: sub, kind: "jwt" };
  }
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
