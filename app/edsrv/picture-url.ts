// Collabora's Action_InsertGraphic {url}: the editing server fetches the picture a host names,
// under the project's SSRF rules (app/net/safe-fetch.ts: SVC_FETCH_ALLOW_HOSTS, every hop's
// address checked, the socket opened to that address), bounded as a pasted picture is, and only
// a picture whose bytes say so (PNG, JPEG, GIF, WebP), whatever the answer's Content-Type claims.

import { FetchError, redactUrl, safeFetch } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import type { Logger } from "../log";
import { EDSRV_VERSION } from "./discovery";

/** The picture types the kit inserts (workers/kit/clipboard.ts GRAPHIC_TYPES), by their first bytes. */
export function sniffPicture(b: Uint8Array): string | null {
  const at = (i: number, ...bytes: number[]) => bytes.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return null;
}

export type PictureFetch =
  | { ok: true; mime: string; bytes: Uint8Array }
  /** notallowed: the URL or an address it led to is refused; toolarge; badtype: not a picture; failed: no answer, not 200. */
  | { ok: false; kind: "notallowed" | "toolarge" | "badtype" | "failed" };

export async function fetchPicture(url: string, o: { allow: AllowList; maxBytes: number; timeoutMs?: number; log: Logger }): Promise<PictureFetch> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, kind: "notallowed" };
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return { ok: false, kind: "notallowed" };
  try {
    const res = await safeFetch(u, {
      allow: o.allow,
      maxBytes: o.maxBytes,
      timeoutMs: o.timeoutMs ?? 20_000,
      followRedirects: 3,
      requireOk: true,
      userAgent: `SVC-edsrv/${EDSRV_VERSION}`,
      headers: { Accept: "image/png, image/jpeg, image/gif, image/webp" },
    });
    const mime = sniffPicture(res.body);
    if (!mime) {
      o.log.warn("insertgraphic_refused", { url: redactUrl(u), reason: "badtype", bytes: res.body.byteLength });
      return { ok: false, kind: "badtype" };
    }
    return { ok: true, mime, bytes: res.body };
  } catch (err) {
    const kind = err instanceof FetchError ? (err.kind === "url_not_allowed" ? "notallowed" : err.kind === "too_large" ? "toolarge" : "failed") : "failed";
    o.log.warn("insertgraphic_refused", { url: redactUrl(u), reason: kind, ...(err instanceof FetchError ? err.detail : {}) });
    return { ok: false, kind };
  }
}
