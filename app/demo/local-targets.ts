// In development the demo's own URLs are given to the gate as document.url and callbackUrl. They
// are on the service's public address, usually loopback, which the SSRF rules rightly forbid the
// gate to fetch. Exactly these URLs (the demo's samples and its callback receiver, nothing a
// caller can choose beyond them) are reached on the gate's own listener instead, over HTTP,
// without the SSRF client. Every other URL goes through the SSRF rules as always.

import { writeFileSync } from "node:fs";
import type { CallbackFetch } from "../callbacks/sender";
import type { SourceDownload } from "../embed/documents";
import { ServiceError } from "../errors";
import { DEMO_SAMPLES } from "./samples";

export interface DemoTargets {
  /** The gate's own address for one of the demo's public URLs; null for any other URL. */
  local(url: string): string | null;
  download(inner: SourceDownload): SourceDownload;
  callbackFetch(inner: CallbackFetch): CallbackFetch;
  checkCallbackUrl(inner: (url: string) => Promise<void>): (url: string) => Promise<void>;
}

export function demoTargets(publicUrl: string, ownUrl: () => string): DemoTargets {
  const paths = new Set([...DEMO_SAMPLES.map((s) => `/svc/demo/${s.file}`), "/svc/demo/callback"]);
  const local = (url: string): string | null => {
    if (!url.startsWith(publicUrl)) return null;
    const rest = url.slice(publicUrl.length);
    return paths.has(rest) ? ownUrl() + rest : null;
  };
  return {
    local,
    download: (inner) => async (url, toFile, maxBytes) => {
      const target = local(url);
      if (!target) return inner(url, toFile, maxBytes);
      const res = await fetch(target, { redirect: "manual" });
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (res.status !== 200) throw new ServiceError("download_failed", `Mẫu của trang demo trả về mã ${res.status}.`, { status: res.status });
      if (bytes.byteLength > maxBytes) throw new ServiceError("file_too_large", undefined, { limit_mb: Math.round(maxBytes / 1048576) });
      writeFileSync(toFile, bytes);
    },
    callbackFetch: (inner) => async (url, opts) => {
      const target = local(url);
      if (!target) return inner(url, opts);
      const res = await fetch(target, {
        method: opts.method ?? "POST",
        headers: { ...opts.headers, ...(opts.userAgent ? { "user-agent": opts.userAgent } : {}) },
        body: opts.body as BodyInit | undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      await res.arrayBuffer();
      return { status: res.status };
    },
    checkCallbackUrl: (inner) => async (url) => (local(url) ? undefined : inner(url)),
  };
}
