// The connection-limit page (HTTP 429) a user sees instead of the editor when the cap is reached at
// the page stage, in Vietnamese, with "Open read-only" (the same editor URL with
// permission=readonly, which the editor opens without edit rights) and "Try again" (the same
// request again).
//
// A file-sync host opens the editor with a form POST (access_token, access_token_ttl, ui_defaults
// … in the body, never in a URL). The gate's check (/svc/auth) never sees that body, so for a POST
// it answers 307 to /svc/limit-page/<the editor path and query>: the browser sends the same body
// there (307 keeps the method and the body, without asking), and that page carries the posted
// fields in two hidden forms, one per button, each POSTing them back to the editor URL. Pressing a
// button is a new form submission, not a reload, so the browser never asks to resend. For a GET the
// buttons are plain links (the URL is the whole request).
//
// The page has no script at all: its Content-Security-Policy allows its own style (by hash) and
// form submissions to this site only. Everything interpolated is HTML-escaped; the forms and links
// only ever lead to an editor page path of this site.

import { createHash } from "node:crypto";
import { ServiceError } from "../errors";
import { readTextBounded } from "../request-body";

/** Where the gate sends a refused editor-page POST (the editor path and query follow). */
export const LIMIT_PAGE_PREFIX = "/svc/limit-page";
/** The editor page paths the limit page may lead to (the proxy's page-stage path). */
const EDITOR_PAGE_PATH = /^\/browser\/[^/]+\/ed\.html$/;
/** What a file-sync host's form can carry: a few short fields. */
export const MAX_FORM_BYTES = 64 * 1024;
export const MAX_FORM_FIELDS = 64;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#222;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}
main{background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002;padding:2rem;max-width:32rem}
h1{font-size:1.3rem;margin-top:0}.buttons{display:flex;gap:.75rem;margin-top:1.5rem}form{margin:0}
.b{font:inherit;font-size:1rem;padding:.55rem 1.1rem;border-radius:5px;border:1px solid #2563eb;cursor:pointer;text-decoration:none;display:inline-block}
#readonly{background:#2563eb;color:#fff}#retry{background:#fff;color:#2563eb}.b[aria-disabled=true],.b:disabled{opacity:.5;cursor:default}small{color:#666}`;

/** No script; this page's style only; forms go to this site only; nothing else is loaded. */
export const LIMIT_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; form-action 'self'; base-uri 'none'`;

/** A path-absolute URI of this site (not scheme-relative, no host after normalisation), or null. */
function sameSitePath(rawUri: string, edit?: (u: URL) => void): string | null {
  if (!rawUri.startsWith("/") || rawUri.startsWith("//")) return null;
  try {
    const u = new URL(rawUri, "http://x");
    edit?.(u);
    // Dot segments can leave "//host/…" after normalisation: a scheme-relative link to another site.
    if (u.host !== "x" || u.pathname.startsWith("//")) return null;
    return u.pathname + u.search;
  } catch {
    return null;
  }
}

/** The editor URL with permission=readonly set; only a path-absolute URI is accepted. */
export function readOnlyUrl(rawUri: string): string | null {
  return sameSitePath(rawUri, (u) => u.searchParams.set("permission", "readonly"));
}

/** The same editor URL again ("Try again"); only a path-absolute URI is accepted. */
export function retryUrl(rawUri: string): string | null {
  return sameSitePath(rawUri);
}

/**
 * Where a refused editor-page POST is sent (307) so that its body reaches a page that can carry
 * it: null when the URI is not an editor page of this site (then the plain page is shown).
 */
export function limitPageLocation(rawUri: string): string | null {
  const same = sameSitePath(rawUri);
  if (!same) return null;
  const q = same.indexOf("?");
  return EDITOR_PAGE_PATH.test(q < 0 ? same : same.slice(0, q)) ? LIMIT_PAGE_PREFIX + same : null;
}

export interface LimitFigures {
  limit: number;
  current: number;
  edition: string;
}

export interface LimitPageAnswer {
  status: 429;
  html: string;
  headers: Record<string, string>;
}

const HEADERS = {
  "Cache-Control": "no-store",
  "Retry-After": "30",
  "Content-Security-Policy": LIMIT_PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/** One button: a link (GET), a form re-posting the fields (POST), or disabled when there is no safe target. */
function button(id: string, label: string, target: string | null, fields: [string, string][] | null): string {
  if (!target) return `<button class="b" id="${id}" type="button" disabled>${label}</button>`;
  if (!fields) return `<a class="b" id="${id}" href="${esc(target)}">${label}</a>`;
  const inputs = fields.map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join("");
  return `<form method="post" action="${esc(target)}">${inputs}<button class="b" id="${id}" type="submit">${label}</button></form>`;
}

/**
 * The page. `fields`: the form fields the editor page was POSTed with (the buttons POST them back),
 * or null for a GET (the buttons are links).
 */
export function limitPage(d: LimitFigures & { rawUri: string; fields?: [string, string][] | null }): string {
  const fields = d.fields ?? null;
  return `<!doctype html>
<html lang="vi"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Đã đạt giới hạn kết nối</title>
<style>${STYLE}</style></head>
<body><main>
<h1>Đã đạt giới hạn số người chỉnh sửa đồng thời</h1>
<p>Máy chủ đang có ${esc(String(d.current))} trên ${esc(String(d.limit))} phiên chỉnh sửa được phép (phiên bản ${esc(d.edition)}). Bạn vẫn có thể mở tài liệu ở chế độ chỉ đọc, hoặc thử lại sau khi có người đóng tài liệu.</p>
<div class="buttons">${button("readonly", "Mở chế độ chỉ đọc", readOnlyUrl(d.rawUri), fields)}${button("retry", "Thử lại", retryUrl(d.rawUri), fields)}</div>
<p><small>Các phiên đang mở không bị ảnh hưởng và việc lưu tài liệu không bị chặn.</small></p>
</main></body></html>
`;
}

/** The page as the gate answers it for a GET of the editor page (the proxy shows it instead). */
export function limitPageAnswer(d: LimitFigures & { rawUri: string }): LimitPageAnswer {
  return { status: 429, html: limitPage({ ...d, fields: null }), headers: { ...HEADERS } };
}

/** The form fields of a POSTed body: text fields only (a file part is dropped), bounded. */
async function formFields(req: Request): Promise<[string, string][]> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
    throw new ServiceError("bad_request", "Trang giới hạn kết nối chỉ nhận biểu mẫu của trang soạn thảo (application/x-www-form-urlencoded hoặc multipart/form-data): hãy mở lại tài liệu từ ứng dụng.", {
      content_type: type || null,
    });
  }
  const tooLarge = () =>
    new ServiceError("bad_request", `Biểu mẫu vượt quá ${MAX_FORM_BYTES} byte: trang soạn thảo chỉ cần vài trường ngắn, hãy mở lại tài liệu từ ứng dụng.`, { limit_bytes: MAX_FORM_BYTES, errors: [{ path: "", message: `form over ${MAX_FORM_BYTES} bytes` }] }, {}, 413);
  const text = await readTextBounded(req.body, MAX_FORM_BYTES, tooLarge);
  let form: FormData;
  try {
    form = await new Response(text, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
  } catch {
    throw new ServiceError("bad_request", "Biểu mẫu gửi tới trang giới hạn kết nối không đọc được: hãy mở lại tài liệu từ ứng dụng.");
  }
  const fields: [string, string][] = [];
  for (const [k, v] of form.entries()) if (typeof v === "string") fields.push([k, v]);
  if (fields.length > MAX_FORM_FIELDS) {
    throw new ServiceError("bad_request", `Biểu mẫu có quá ${MAX_FORM_FIELDS} trường: hãy mở lại tài liệu từ ứng dụng.`, { limit_fields: MAX_FORM_FIELDS });
  }
  return fields;
}

/**
 * POST /svc/limit-page/<editor path and query>: the limit page for an editor-page POST the gate
 * refused, with the posted fields in its two forms. The editor URL is the request's own path after
 * the prefix; anything but an editor page of this site is 404. `figures` are read now (the cap may
 * have changed since the refusal; the page says so, "Try again" asks the gate again anyway).
 */
export async function postedLimitPage(req: Request, figures: () => LimitFigures): Promise<LimitPageAnswer> {
  const url = new URL(req.url);
  const rawUri = url.pathname.slice(LIMIT_PAGE_PREFIX.length) + url.search;
  if (!url.pathname.startsWith(`${LIMIT_PAGE_PREFIX}/`) || limitPageLocation(rawUri) === null) {
    throw new ServiceError("not_found", "Trang giới hạn kết nối chỉ dẫn tới trang soạn thảo (/browser/<mã>/ed.html): hãy mở lại tài liệu từ ứng dụng.", { path: url.pathname });
  }
  const fields = await formFields(req);
  return { status: 429, html: limitPage({ ...figures(), rawUri, fields }), headers: { ...HEADERS } };
}
