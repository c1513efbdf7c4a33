// The demo's token checker (development only): an integrator pastes the signed config their
// backend made and learns, before writing more code, which configured secret verifies it (by the
// setting's name, never its value), what the payload holds, and every field the gate would refuse,
// with the exact error POST /svc/embed/session would answer. Nothing here is trusted: the payload
// is read without verification to explain it, and the verdict comes from the gate's own resolver.

import { ServiceError } from "../errors";
import { decodeJwtUnverified, MAX_JWT_LIFETIME_S, signedWith } from "../jwt";
import { precheckUrl } from "../net/fetch-errors";
import type { AllowList } from "../net/ssrf";
import { zodErrors } from "../validation";
import { EMBED_FILE_TYPES, EmbedConfig, JWT_CLAIMS, isEmbedFileType } from "../../schemas/embed";
import { outsideToken, resolveConfig, type EmbedAuthSettings, type SessionBody } from "../embed/embed-config";

/** A secret the service is configured with, known by its setting's name. */
export interface NamedSecret {
  name: string;
  value: string;
}

export interface TokenProblem {
  /** JSON Pointer into the config (`/document/url`), or a token part (`header.alg`, `signature`, `exp`). */
  path: string;
  code: string;
  message: string;
}

export interface TokenReport {
  /** What POST /svc/embed/session would do with this body: accept it, or the spec error. */
  verdict: "accepted" | "refused";
  error: { code: string; message: string; detail: Record<string, unknown> } | null;
  header: Record<string, unknown> | null;
  /** Read WITHOUT verification, to explain the token; null when it is not a JWT. */
  payload: Record<string, unknown> | null;
  signature: {
    /** The name of the configured secret that verifies it (SVC_EMBED_JWT_SECRET is the one the gate uses). */
    verified_by: string | null;
    expected: string;
    /** Names of the secrets tried (values never leave the server). */
    tried: string[];
  };
  expires: { exp: string | null; seconds_left: number | null };
  problems: TokenProblem[];
}

export interface TokenCheckSettings {
  auth: EmbedAuthSettings;
  secrets: NamedSecret[];
  allow: AllowList;
  now: number;
  /** The demo's own sample and callback URLs, which the gate reaches on its own listener (local-targets.ts). */
  exempt?: (url: string) => boolean;
}

/** The body an integrator would send: `{token}` (with fields beside it, if they send some), or the bare token. */
export function parseCheckInput(input: unknown): SessionBody | null {
  if (typeof input === "string") {
    const t = input.trim();
    if (!t) return null;
    if (t.startsWith("{")) {
      try {
        return parseCheckInput(JSON.parse(t));
      } catch {
        return null;
      }
    }
    return { token: t };
  }
  if (input && typeof input === "object" && !Array.isArray(input)) {
    const o = input as Record<string, unknown>;
    if (typeof o.token !== "string") return null;
    return { token: o.token, document: o.document, editor: o.editor, ui: o.ui };
  }
  return null;
}

export async function checkToken(body: SessionBody, s: TokenCheckSettings): Promise<TokenReport> {
  const token = body.token ?? "";
  const decoded = decodeJwtUnverified(token);
  const problems: TokenProblem[] = [];
  const tried = s.secrets.filter((x) => x.value !== "");
  const verifiedBy = tried.find((x) => signedWith(token, x.value))?.name ?? null;
  const nowS = Math.floor(s.now / 1000);

  if (!decoded) {
    problems.push({ path: "token", code: "malformed", message: "Không phải JWT: cần ba phần base64url header.payload.signature, header và payload là JSON." });
  } else {
    const alg = decoded.header.alg;
    if (alg !== "HS256") problems.push({ path: "header.alg", code: "algorithm", message: `Thuật toán ${String(alg)}: máy chủ chỉ nhận HS256.` });
    if (!s.auth.jwtSecret) {
      problems.push({ path: "signature", code: "no_secret", message: "Máy chủ chưa đặt SVC_EMBED_JWT_SECRET nên không kiểm tra được token nào." });
    } else if (verifiedBy === null) {
      problems.push({ path: "signature", code: "wrong_secret", message: "Không khóa nào đã cấu hình khớp chữ ký: máy chủ của bạn ký bằng một khóa khác SVC_EMBED_JWT_SECRET." });
    } else if (verifiedBy !== "SVC_EMBED_JWT_SECRET") {
      problems.push({ path: "signature", code: "wrong_secret", message: `Token được ký bằng ${verifiedBy}, nhưng phiên nhúng được kiểm tra bằng SVC_EMBED_JWT_SECRET: hãy ký bằng khóa đó.` });
    }
    const exp = decoded.payload.exp;
    if (typeof exp !== "number") problems.push({ path: "exp", code: "missing_exp", message: "Thiếu exp (giây Unix): bắt buộc, tối đa 24 giờ sau lúc ký." });
    else if (exp <= nowS) problems.push({ path: "exp", code: "expired", message: `Đã hết hạn ${nowS - exp} giây trước (không có dung sai đồng hồ cho token nhúng).` });
    else if (exp - nowS > MAX_JWT_LIFETIME_S) problems.push({ path: "exp", code: "too_long", message: `exp còn ${exp - nowS} giây, quá 24 giờ (${MAX_JWT_LIFETIME_S} giây).` });

    // Every field, checked even when the signature is wrong: the integrator fixes all at once.
    const { document, editor, ui, ...rest } = decoded.payload;
    for (const c of JWT_CLAIMS) delete rest[c];
    const config: Record<string, unknown> = { document, editor, ui, ...rest };
    for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];
    const parsed = EmbedConfig.safeParse(config);
    if (!parsed.success) for (const e of zodErrors(parsed.error)) problems.push({ path: e.path || "/", code: "invalid_config", message: e.message });
    else {
      const ft = parsed.data.document.fileType;
      if (!isEmbedFileType(ft)) problems.push({ path: "/document/fileType", code: "unsupported_file_type", message: `Phải đúng một trong ${EMBED_FILE_TYPES.join(", ")}.` });
      for (const [path, url] of [
        ["/document/url", parsed.data.document.url],
        ["/editor/callbackUrl", parsed.data.editor.callbackUrl],
      ] as const) {
        if (!url || s.exempt?.(url)) continue;
        try {
          precheckUrl(url, s.allow);
        } catch (e) {
          if (e instanceof ServiceError) problems.push({ path, code: e.code, message: e.message });
        }
      }
    }
  }
  for (const k of outsideToken(body)) {
    problems.push({ path: `/${k}`, code: "outside_token", message: `${k} nằm ngoài token nên bị bỏ qua: khi có token, chỉ payload của token được dùng.` });
  }

  let error: TokenReport["error"] = null;
  try {
    await resolveConfig(body, s.auth, s.now);
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    error = { code: e.code, message: e.message, detail: e.detail };
  }
  const exp = typeof decoded?.payload.exp === "number" ? decoded.payload.exp : null;
  return {
    verdict: error || problems.some((p) => p.code !== "outside_token") ? "refused" : "accepted",
    error,
    header: decoded?.header ?? null,
    payload: decoded?.payload ?? null,
    signature: { verified_by: verifiedBy, expected: "SVC_EMBED_JWT_SECRET", tried: tried.map((x) => x.name) },
    expires: { exp: exp === null ? null : new Date(exp * 1000).toISOString(), seconds_left: exp === null ? null : exp - nowS },
    problems,
  };
}
