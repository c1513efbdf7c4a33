// License token verification: pure, offline, no I/O. A token is
//   base64(payload_json) + "." + base64(signature)
// in standard Base64 (alphabet +/, "=" padding, canonical), with exactly one dot. The signature
// is Ed25519 (RFC 8032, strict) over the payload bytes exactly as they were Base64-encoded (the
// raw UTF-8 JSON bytes, not a re-serialisation). The public key is the standard Base64 of the
// 32-byte raw Ed25519 key. The time-independent part (format, signature, fields) is separated
// from the time-dependent part (expiry, build date, instance, DEV mode) so that a caller can
// cache the expensive part per token and re-evaluate the state on every read.
//
// State precedence when several apply (docs/licensing.md):
//   invalid (format, signature, fields) → wrong_product → invalid (TEST key outside DEV mode)
//   → instance_mismatch → update_expired → expired | grace | valid

import { ed25519 } from "@noble/curves/ed25519.js";
import type { Entitlement } from "./limits";
import { MAX_TIME_CLAIM_S } from "../jwt";

export const LICENSE_PRODUCT = "svc-online";
export const GRACE_DAYS = 7;
/** Annual plans: upd = exp + 7 days (the signer's default). */
export const UPDATE_DAYS_AFTER_EXP = 7;
/** Perpetual plans include 3 years of updates (the signer's default for upd). */
export const PERPETUAL_UPDATE_YEARS = 3;
export const COMMUNITY_CONNECTIONS = 50;
/** Longer tokens are refused before any decoding (a real one is well under 2 KiB). */
export const MAX_TOKEN_CHARS = 16 * 1024;

const DAY_MS = 86_400_000;
/** The license calendar is UTC+7: a day starts at 17:00 UTC of the day before. */
const UTC_OFFSET_MS = 7 * 3_600_000;

export type LicenseState =
  | "none"
  | "valid"
  | "grace"
  | "expired"
  | "invalid"
  | "wrong_product"
  | "update_expired"
  | "instance_mismatch";

export type LicenseKind = "enterprise" | "community";
export type LicensePlan = "year" | "life";

/** The payload after validation; optional fields absent (or null) become null, feat becomes []. */
export interface LicensePayload {
  v: 1 | 2;
  prod: string;
  kind: LicenseKind;
  conns: number;
  plan: LicensePlan;
  exp: string | null;
  upd: string | null;
  feat: string[];
  mid: string | null;
  key: string;
  cust: string | null;
  iat: number;
}

export interface LicenseStatus {
  state: LicenseState;
  kind: LicenseKind | null;
  plan: LicensePlan | null;
  conns: number | null;
  exp: string | null;
  upd: string | null;
  customer: string | null;
  /** Only the last 5 characters of the license code. */
  key_hint: string | null;
  /** Only in state grace: ceil(remaining grace time / 24 h), 1 to 7. */
  grace_days_left: number | null;
  /** Short explanation for the operator (Vietnamese, like the error catalogue). */
  message: string;
  /** Features of the token ([] when no token passed format, signature and field checks). */
  features: string[];
  /** Machine-readable cause for invalid states, e.g. "format", "signature", "field:conns", "test_key". */
  reason?: string;
  /** The validated payload, present once format, signature and fields are good. */
  payload?: LicensePayload;
}

export interface VerifyOptions {
  /** Standard Base64 of the 32-byte raw Ed25519 public key (SVC_LICENSE_PUBKEY). */
  publicKey: string;
  /** Unix milliseconds. */
  now: number;
  /** YYYY-MM-DD, the build date of the running image (BUILD_DATE in production). */
  buildDate: string;
  instanceId: string;
  devMode: boolean;
}

// ---------------------------------------------------------------------------------------------
// Encoding helpers

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict standard Base64: alphabet +/, mandatory "=" padding, canonical trailing bits. */
export function decodeBase64Strict(s: string): Uint8Array | null {
  if (s.length === 0 || !B64.test(s)) return null;
  const bytes = Buffer.from(s, "base64");
  if (bytes.toString("base64") !== s) return null;
  return new Uint8Array(bytes);
}

export const encodeBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** A YYYY-MM-DD string naming a real calendar day. */
export function isCalendarDate(s: unknown): s is string {
  if (typeof s !== "string") return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** The instant a UTC+7 calendar day ends (= the next day starts), in Unix milliseconds. */
export function endOfDayUtc7(date: string): number {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  return Date.UTC(y, mo - 1, d + 1) - UTC_OFFSET_MS;
}

/** The calendar date (YYYY-MM-DD) at instant `ms` in UTC+7. */
export function dateInUtc7(ms: number): string {
  return new Date(ms + UTC_OFFSET_MS).toISOString().slice(0, 10);
}

/** Adds calendar days (or years) to a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d + days)).toISOString().slice(0, 10);
}
export function addYears(date: string, years: number): string {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  // 29 February + 1 year → 28 February (never rolls into March).
  const t = new Date(Date.UTC(y + years, mo - 1, d));
  if (t.getUTCMonth() !== mo - 1) t.setUTCDate(0);
  return t.toISOString().slice(0, 10);
}

/** TEST keys: the license code starts with "TEST-" or contains "-TEST-" (case-insensitive). */
export function isTestKey(key: string): boolean {
  return /^TEST-|-TEST-/i.test(key);
}

/** Unbound: mid absent, empty or "*". */
export function isUnboundMid(mid: string | null): boolean {
  return mid === null || mid === "" || mid === "*";
}

// ---------------------------------------------------------------------------------------------
// Signing (vendor side; used by tools/license.ts and by tests with keys made at test time)

/** Signs raw payload text (or an object, serialised with JSON.stringify). No field checks. */
export function signToken(payload: string | object, privateKey: Uint8Array): string {
  const bytes = new TextEncoder().encode(typeof payload === "string" ? payload : JSON.stringify(payload));
  const sig = ed25519.sign(bytes, privateKey);
  return `${encodeBase64(bytes)}.${encodeBase64(sig)}`;
}

export function generateKeyPair(): { privateKey: string; publicKey: string } {
  const { secretKey, publicKey } = ed25519.keygen();
  return { privateKey: encodeBase64(secretKey), publicKey: encodeBase64(publicKey) };
}

/** The 32-byte private key (Ed25519 seed) from its standard Base64; throws when malformed. */
export function decodePrivateKey(b64: string): Uint8Array {
  const bytes = decodeBase64Strict(b64.trim());
  if (!bytes || bytes.length !== 32) throw new Error("private key must be the standard Base64 of 32 bytes");
  return bytes;
}

export function publicKeyOf(privateKey: Uint8Array): string {
  return encodeBase64(ed25519.getPublicKey(privateKey));
}

// ---------------------------------------------------------------------------------------------
// Field rules

export type PayloadCheck = { ok: true; payload: LicensePayload } | { ok: false; field: string; problem: string };

const isString = (x: unknown): x is string => typeof x === "string";
const absent = (x: unknown) => x === undefined || x === null;

/**
 * Every field rule of the spec's table. Unknown fields (and lid, aid) are ignored. Optional
 * fields given as null count as absent. `prod` is only checked to be a string here; its value
 * decides wrong_product later, so that the states keep their precedence.
 */
export function checkPayload(raw: unknown): PayloadCheck {
  const bad = (field: string, problem: string): PayloadCheck => ({ ok: false, field, problem });
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return bad("payload", "not a JSON object");
  const p = raw as Record<string, unknown>;

  if (p.v !== 1 && p.v !== 2) return bad("v", "must be 1 or 2");
  if (!isString(p.prod)) return bad("prod", "required string");
  if (p.kind !== "enterprise" && p.kind !== "community") return bad("kind", "must be enterprise or community");
  if (typeof p.conns !== "number" || !Number.isSafeInteger(p.conns) || p.conns < 1) return bad("conns", "must be an integer of 1 or more");
  if (p.plan !== "year" && p.plan !== "life") return bad("plan", "must be year or life");
  if (p.plan === "year" ? !isCalendarDate(p.exp) : !absent(p.exp) && !isCalendarDate(p.exp)) {
    return bad("exp", p.plan === "year" ? "required YYYY-MM-DD for annual plans" : "must be YYYY-MM-DD");
  }
  if (!absent(p.upd) && !isCalendarDate(p.upd)) return bad("upd", "must be YYYY-MM-DD");
  if (!absent(p.feat) && !(Array.isArray(p.feat) && p.feat.every(isString))) return bad("feat", "must be an array of strings");
  if (!absent(p.mid) && !isString(p.mid)) return bad("mid", "must be a string");
  if (!isString(p.key) || p.key.length === 0) return bad("key", "required non-empty string");
  if (!absent(p.cust) && !isString(p.cust)) return bad("cust", "must be a string");
  if (typeof p.iat !== "number" || !Number.isFinite(p.iat) || p.iat < 0 || p.iat > MAX_TIME_CLAIM_S) return bad("iat", "required number of seconds since 1970, before the year 10000");

  return {
    ok: true,
    payload: {
      v: p.v,
      prod: p.prod,
      kind: p.kind,
      conns: p.conns,
      plan: p.plan,
      exp: absent(p.exp) ? null : (p.exp as string),
      upd: absent(p.upd) ? null : (p.upd as string),
      feat: absent(p.feat) ? [] : [...(p.feat as string[])],
      mid: absent(p.mid) ? null : (p.mid as string),
      key: p.key,
      cust: absent(p.cust) ? null : (p.cust as string),
      iat: p.iat,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Verification

/** Result of the time-independent checks: cacheable per (token, public key). */
export type DecodedLicense = { kind: "none" } | { kind: "invalid"; reason: string; message: string } | { kind: "ok"; payload: LicensePayload };

const MSG = {
  none: "Chưa có giấy phép: dịch vụ chạy phiên bản community.",
  noKey: "Chưa cấu hình khóa công khai SVC_LICENSE_PUBKEY (hoặc khóa sai định dạng): không kiểm tra được giấy phép.",
  format: "Giấy phép không hợp lệ: sai định dạng (cần base64(payload).base64(chữ ký), Base64 chuẩn có dấu =, đúng một dấu chấm).",
  signature: "Giấy phép không hợp lệ: chữ ký không đúng với khóa công khai.",
  json: "Giấy phép không hợp lệ: nội dung không phải JSON.",
  tooLong: "Giấy phép không hợp lệ: chuỗi quá dài.",
} as const;

/** Format, public key, signature and field checks. Whitespace around the token is trimmed. */
export function decodeLicense(token: string | null | undefined, publicKey: string): DecodedLicense {
  const t = (token ?? "").trim();
  if (t === "") return { kind: "none" };
  const invalid = (reason: string, message: string): DecodedLicense => ({ kind: "invalid", reason, message });

  const pub = decodeBase64Strict((publicKey ?? "").trim());
  if (!pub || pub.length !== 32) return invalid("public_key", MSG.noKey);
  if (t.length > MAX_TOKEN_CHARS) return invalid("format", MSG.tooLong);

  const parts = t.split(".");
  if (parts.length !== 2) return invalid("format", MSG.format);
  const payloadBytes = decodeBase64Strict(parts[0]!);
  const sig = decodeBase64Strict(parts[1]!);
  if (!payloadBytes || !sig || sig.length !== 64) return invalid("format", MSG.format);

  let good = false;
  try {
    good = ed25519.verify(sig, payloadBytes, pub, { zip215: false });
  } catch {
    good = false;
  }
  if (!good) return invalid("signature", MSG.signature);

  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payloadBytes));
  } catch {
    return invalid("json", MSG.json);
  }
  const checked = checkPayload(raw);
  if (!checked.ok) {
    return invalid(`field:${checked.field}`, `Giấy phép không hợp lệ: trường ${checked.field} sai (${checked.problem}).`);
  }
  return { kind: "ok", payload: checked.payload };
}

const NULL_FIELDS = {
  kind: null,
  plan: null,
  conns: null,
  exp: null,
  upd: null,
  customer: null,
  key_hint: null,
  grace_days_left: null,
  features: [] as string[],
};

/** The state of a decoded token at `now`, for this image, instance and mode. */
export function evaluateLicense(decoded: DecodedLicense, opts: Omit<VerifyOptions, "publicKey">): LicenseStatus {
  if (!isCalendarDate(opts.buildDate)) throw new Error(`buildDate must be YYYY-MM-DD, got ${JSON.stringify(opts.buildDate)}`);
  if (decoded.kind === "none") return { state: "none", ...NULL_FIELDS, features: [], message: MSG.none };
  if (decoded.kind === "invalid") return { state: "invalid", ...NULL_FIELDS, features: [], message: decoded.message, reason: decoded.reason };

  const p = decoded.payload;
  const base = {
    kind: p.kind,
    plan: p.plan,
    conns: p.conns,
    exp: p.exp,
    upd: p.upd,
    customer: p.cust,
    key_hint: p.key.slice(-5),
    grace_days_left: null,
    features: [...p.feat],
    payload: p,
  };
  const out = (state: LicenseState, message: string, extra: Partial<LicenseStatus> = {}): LicenseStatus => ({ state, ...base, message, ...extra });

  if (p.prod !== LICENSE_PRODUCT) {
    return out("wrong_product", `Giấy phép dành cho sản phẩm khác (prod = ${JSON.stringify(p.prod).slice(0, 40)}), không phải ${LICENSE_PRODUCT}.`);
  }
  if (!opts.devMode && isTestKey(p.key)) {
    return out("invalid", "Giấy phép không hợp lệ: mã TEST chỉ dùng được khi SVC_DEV_MODE=1.", { reason: "test_key" });
  }
  if (!isUnboundMid(p.mid) && p.mid !== opts.instanceId) {
    return out("instance_mismatch", `Giấy phép gắn với một instance khác; instance này là ${opts.instanceId || "(chưa có)"}.`);
  }
  if (p.upd !== null && opts.buildDate > p.upd) {
    return out("update_expired", `Quyền cập nhật đã hết ngày ${p.upd}; bản dựng ngày ${opts.buildDate} không nhận giấy phép này.`);
  }
  const kindText = p.kind === "enterprise" ? "enterprise" : "community";
  if (p.plan === "life") return out("valid", `Giấy phép ${kindText} vĩnh viễn hợp lệ.`);

  const expEnd = endOfDayUtc7(p.exp!);
  if (opts.now < expEnd) return out("valid", `Giấy phép ${kindText} hợp lệ đến hết ngày ${p.exp} (UTC+7).`);
  const graceEnd = expEnd + GRACE_DAYS * DAY_MS;
  if (opts.now < graceEnd) {
    const left = Math.ceil((graceEnd - opts.now) / DAY_MS);
    return out("grace", `Giấy phép đã hết hạn ngày ${p.exp}; còn ${left} ngày gia hạn trước khi trở về community.`, { grace_days_left: left });
  }
  return out("expired", `Giấy phép đã hết hạn ngày ${p.exp} và quá ${GRACE_DAYS} ngày gia hạn: dịch vụ chạy phiên bản community.`);
}

export function verifyLicense(token: string | null, opts: VerifyOptions): LicenseStatus {
  return evaluateLicense(decodeLicense(token, opts.publicKey), opts);
}

// ---------------------------------------------------------------------------------------------
// What the state means for the editions

const COMMUNITY: Entitlement = { edition: "community", features: [] };

/**
 * Gate: enterprise when the state is valid or grace and kind is enterprise. DocBuilder: the same
 * and the token has `api_full`. Conns travel only with an enterprise entitlement; the features are
 * the live token's whatever DocBuilder's edition (`GET /v1/limits` `features`: "Features from the
 * token"): community's limits read none of them.
 */
export function entitlementOf(status: LicenseStatus): { gate: Entitlement; docbuilder: Entitlement } {
  const live = (status.state === "valid" || status.state === "grace") && status.kind === "enterprise" && status.conns !== null;
  if (!live) return { gate: { ...COMMUNITY, features: [] }, docbuilder: { ...COMMUNITY, features: [] } };
  const ent: Entitlement = { edition: "enterprise", features: [...status.features], conns: status.conns! };
  return {
    gate: ent,
    docbuilder: status.features.includes("api_full") ? { ...ent, features: [...ent.features] } : { ...COMMUNITY, features: [...ent.features] },
  };
}

export interface ConnectionCap {
  /** Effective cap: the smaller of plan_limit and cap. */
  limit: number;
  /** Community 50; enterprise exactly the token's conns (even below 50). */
  plan_limit: number;
  /** SVC_GATE_CONNECTION_CAP as configured, null when unset; it can only lower the limit. */
  cap: number | null;
}

export function connectionCap(status: LicenseStatus, lowerCap?: number | null): ConnectionCap {
  const gate = entitlementOf(status).gate;
  const plan_limit = gate.edition === "enterprise" ? gate.conns! : COMMUNITY_CONNECTIONS;
  const cap = lowerCap === undefined || lowerCap === null ? null : lowerCap;
  return { limit: cap === null ? plan_limit : Math.min(plan_limit, cap), plan_limit, cap };
}

/** Exactly the `license` object of GET /svc/status (no payload, no features, no reason). */
export function licenseStatusView(s: LicenseStatus) {
  return {
    state: s.state,
    kind: s.kind,
    plan: s.plan,
    conns: s.conns,
    exp: s.exp,
    upd: s.upd,
    customer: s.customer,
    key_hint: s.key_hint,
    grace_days_left: s.grace_days_left,
    message: s.message,
  };
}
