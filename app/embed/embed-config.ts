// From the body of POST /svc/embed/session to a checked configuration, in the spec's order:
// the token first (required when the server has a secret; its payload replaces document, editor
// and ui), then the configuration itself (400 invalid_config with every problem, 415 for a
// fileType outside the 12). Defaults the spec leaves open are filled here (schemas/embed.ts).

import { randomBytes } from "node:crypto";
import { ServiceError } from "../errors";
import { decodeJwtUnverified, MAX_JWT_LIFETIME_S, signatureCause, verifyHs256 } from "../jwt";
import { zodErrors, type FieldError } from "../validation";
import {
  EMBED_FILE_TYPES,
  EmbedConfig,
  JWT_CLAIMS,
  isEmbedFileType,
  type EditorMode,
  type EmbedFileType,
  type EmbedUiValue,
} from "../../schemas/embed";

export interface EmbedAuthSettings {
  /** SVC_EMBED_JWT_SECRET; empty: no token can be verified. */
  jwtSecret: string;
  /** SVC_EMBED_ALLOW_UNSIGNED: without a secret, accept the body's config as it is. */
  allowUnsigned: boolean;
}

export interface ResolvedConfig {
  document: { url: string; title: string; fileType: EmbedFileType; key: string };
  editor: { mode: EditorMode; lang: string; user: { id: string; name: string }; callbackUrl: string | null };
  ui: EmbedUiValue;
  /** Where the configuration came from, for the log line. */
  signed: boolean;
}

export interface SessionBody {
  token?: string;
  document?: unknown;
  editor?: unknown;
  ui?: unknown;
}

const TOKEN_FAILURES: Record<string, string> = {
  signature: "Token không hợp lệ: sai chữ ký, hỏng định dạng hoặc không dùng thuật toán HS256.",
  missing_exp: "Token thiếu trường exp: hãy đặt exp, tối đa 24 giờ kể từ lúc ký.",
  too_long: "Token có exp quá 24 giờ kể từ bây giờ: hãy ký token ngắn hạn hơn.",
  bad_claim: "Token có exp, nbf hoặc iat không hợp lệ: mỗi trường phải là số giây tính từ 1970, trước năm 10000 (ví dụ exp = thời điểm ký + 3600).",
};

/** detail.cause of a "signature" failure: which of the three it is, and what to change. */
const SIGNATURE_CAUSES: Record<string, (alg?: string) => string> = {
  malformed: () => "Token không hợp lệ: không phải JWT (cần ba phần base64url header.payload.signature, header và payload là JSON).",
  algorithm: (alg) => `Token không hợp lệ: ký bằng thuật toán ${alg ?? "?"}, máy chủ chỉ nhận HS256: hãy ký với alg HS256.`,
  wrong_secret: () =>
    "Token không hợp lệ: chữ ký không khớp SVC_EMBED_JWT_SECRET: máy chủ của bạn đang ký bằng một khóa khác (hãy so hai khóa, kể cả khoảng trắng và xuống dòng ở cuối).",
};

/** Fields of the body sent beside `token`: a valid token replaces them (spec), so they are never used. */
export function outsideToken(body: SessionBody): string[] {
  return body.token === undefined ? [] : (["document", "editor", "ui"] as const).filter((k) => body[k] !== undefined);
}

const outsideNote = (outside: string[]) =>
  outside.length ? ` Trường ${outside.join(", ")} nằm ngoài token nên bị bỏ qua: mọi cấu hình phải nằm trong payload của token.` : "";

async function configFromToken(body: SessionBody, auth: EmbedAuthSettings, now: number): Promise<{ config: Record<string, unknown>; signed: boolean }> {
  if (!auth.jwtSecret) {
    if (!auth.allowUnsigned) {
      throw new ServiceError(
        "embed_auth_not_configured",
        "Máy chủ chưa đặt SVC_EMBED_JWT_SECRET và chế độ không ký (SVC_EMBED_ALLOW_UNSIGNED) đang tắt: quản trị viên cần đặt một trong hai.",
      );
    }
    if (body.token !== undefined) {
      throw new ServiceError("invalid_token", "Máy chủ không có SVC_EMBED_JWT_SECRET để kiểm tra token: hãy bỏ trường token hoặc nhờ quản trị viên đặt khóa.", {
        reason: "no_secret",
      });
    }
    return { config: { document: body.document, editor: body.editor, ui: body.ui }, signed: false };
  }
  if (body.token === undefined) {
    throw new ServiceError("token_required", "Máy chủ yêu cầu cấu hình được ký: hãy gửi trường token là JWT HS256 ký bằng SVC_EMBED_JWT_SECRET.");
  }
  // No skew on exp: the spec grants it to DocBuilder JWTs only.
  const r = await verifyHs256(body.token, auth.jwtSecret, now, { expSkewS: 0 });
  if (!r.ok) {
    const outside = outsideToken(body);
    const extra: Record<string, unknown> = outside.length ? { outside_token: outside } : {};
    const claims = decodeJwtUnverified(body.token)?.payload ?? {};
    const exp = typeof claims.exp === "number" ? claims.exp : null;
    const nowS = Math.floor(now / 1000);
    if (r.failure === "expired") {
      throw new ServiceError(
        "token_expired",
        `Token đã hết hạn ${nowS - exp!} giây trước (exp ${new Date(exp! * 1000).toISOString()}): hãy ký token mới cho mỗi phiên và kiểm tra đồng hồ máy chủ ký.${outsideNote(outside)}`,
        { reason: "expired", exp: new Date(exp! * 1000).toISOString(), expired_seconds_ago: nowS - exp!, ...extra },
      );
    }
    if (r.failure === "signature") {
      const { cause, alg } = signatureCause(body.token);
      throw new ServiceError("invalid_token", SIGNATURE_CAUSES[cause]!(alg) + outsideNote(outside), {
        reason: "signature",
        cause,
        ...(alg !== undefined ? { alg } : {}),
        ...extra,
      });
    }
    if (r.failure === "too_long") {
      throw new ServiceError("invalid_token", `${TOKEN_FAILURES.too_long} (exp còn ${exp! - nowS} giây, tối đa ${MAX_JWT_LIFETIME_S}.)${outsideNote(outside)}`, {
        reason: "too_long",
        exp: new Date(exp! * 1000).toISOString(),
        seconds_ahead: exp! - nowS,
        max_seconds: MAX_JWT_LIFETIME_S,
        ...extra,
      });
    }
    throw new ServiceError("invalid_token", TOKEN_FAILURES[r.failure]! + outsideNote(outside), { reason: r.failure, ...extra });
  }
  // The payload is the configuration itself, with the JWT's own claims beside it.
  const { document, editor, ui, ...rest } = r.payload;
  for (const claim of JWT_CLAIMS) delete rest[claim];
  const config: Record<string, unknown> = { document, editor, ui };
  for (const [k, v] of Object.entries(rest)) config[k] = v;
  return { config, signed: true };
}

function fileNameOf(url: string): string | null {
  try {
    const last = new URL(url).pathname.split("/").pop() ?? "";
    const name = decodeURIComponent(last).trim();
    return name && !/[\u0000-\u001f\u007f]/.test(name) ? name.slice(0, 255) : null;
  } catch {
    return null;
  }
}

export async function resolveConfig(body: SessionBody, auth: EmbedAuthSettings, now: number): Promise<ResolvedConfig> {
  const { config, signed } = await configFromToken(body, auth, now);
  // Keys whose value is undefined are "absent" (a token without ui), not "unknown".
  for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];
  const parsed = EmbedConfig.safeParse(config);
  if (!parsed.success) {
    const errors: FieldError[] = zodErrors(parsed.error);
    // A partly signed config (document beside the token, editor inside it): say so, since the
    // missing field was sent, only in the wrong place.
    const outside = signed ? outsideToken(body) : [];
    throw new ServiceError(
      "invalid_config",
      `Cấu hình nhúng có ${errors.length} lỗi: ${errors
        .slice(0, 3)
        .map((e) => `${e.path || "/"} ${e.message}`)
        .join("; ")}.${outsideNote(outside)}`,
      outside.length ? { errors, outside_token: outside } : { errors },
    );
  }
  const c = parsed.data;
  if (!isEmbedFileType(c.document.fileType)) {
    throw new ServiceError(
      "unsupported_file_type",
      `document.fileType ${JSON.stringify(c.document.fileType.slice(0, 32))} không được hỗ trợ: hãy gửi đúng một trong ${EMBED_FILE_TYPES.join(", ")} (chữ thường, không có dấu chấm).`,
      { fileType: c.document.fileType, allowed: [...EMBED_FILE_TYPES] },
    );
  }
  const fileType = c.document.fileType;
  const user = c.editor.user ?? { id: `guest-${randomBytes(4).toString("hex")}`, name: "Khách" };
  return {
    document: {
      url: c.document.url,
      key: c.document.key,
      fileType,
      title: c.document.title ?? fileNameOf(c.document.url) ?? `${c.document.key}.${fileType}`,
    },
    editor: {
      mode: c.editor.mode,
      lang: c.editor.lang,
      user: { id: user.id, name: user.name ?? user.id },
      callbackUrl: c.editor.callbackUrl ?? null,
    },
    ui: c.ui,
    signed,
  };
}

/** The file name the editing server shows and saves under: the title, with the type's extension. */
export function baseFileName(title: string, fileType: string): string {
  const safe = title.replace(/[\/\\]/g, "_");
  return safe.toLowerCase().endsWith(`.${fileType}`) ? safe : `${safe}.${fileType}`;
}

/** Collabora's ui_defaults form field ("UIMode=compact;TextRuler=false;…") for the editor page. */
export function uiDefaults(ui: EmbedUiValue): string {
  const parts = [`UIMode=${ui.toolbar}`];
  if (ui.ruler !== undefined) parts.push(`TextRuler=${ui.ruler}`);
  if (ui.statusbar !== undefined) for (const c of ["Text", "Spreadsheet", "Presentation"]) parts.push(`${c}Statusbar=${ui.statusbar}`);
  return parts.join(";");
}
