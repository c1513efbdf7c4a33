// `svc doctor --document URL`: fetches the URL as the gate fetches document.url (same fetcher,
// same SSRF rules, same limits) and reports which rule or network step refused it. The operator
// sees the exact address a name resolved to; callers of the API only ever see its block.

import { downloadFailedMessage, notAllowedMessage } from "../net/fetch-errors";
import { FetchError, safeFetch } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import { fail, ok, type Finding } from "./types";

/** Same as the gate's document downloads (app/embed/embed-gate.ts). */
export const DOCUMENT_TIMEOUT_MS = 60_000;

export async function checkDocument(url: string, o: { allow: AllowList; maxBytes: number; timeoutMs?: number }): Promise<Finding> {
  const t0 = performance.now();
  try {
    const res = await safeFetch(url, { allow: o.allow, maxBytes: o.maxBytes, timeoutMs: o.timeoutMs ?? DOCUMENT_TIMEOUT_MS, followRedirects: 5, requireOk: true, userAgent: "SVC-Gate/1.0" });
    const ms = Math.round(performance.now() - t0);
    return ok("document", `Fetched ${res.bytes} bytes in ${ms} ms (HTTP ${res.status}, ${res.headers.get("content-type") ?? "no content type"}): the gate can download it.`, { status: res.status, bytes: res.bytes, latency_ms: ms });
  } catch (e) {
    const ms = Math.round(performance.now() - t0);
    if (!(e instanceof FetchError)) return fail("document", `The download failed: ${e instanceof Error ? e.message : String(e)}.`, "Check the URL.");
    const facts = { kind: e.kind, ...e.detail, latency_ms: ms, ...(e.address ? { address: e.address } : {}) };
    if (e.kind === "url_not_allowed") {
      const where = e.address ? ` (resolved to ${e.address})` : "";
      return fail(
        "document",
        `Refused by the SSRF rule ${e.detail.rule}${where}: ${notAllowedMessage(e.detail)}`,
        e.detail.rule === "forbidden_address"
          ? `Serve the file from a public address, or add ${e.detail.host}${e.detail.port ? `:${e.detail.port}` : ""} to SVC_FETCH_ALLOW_HOSTS.`
          : e.detail.rule === "own_listener"
            ? "Serve documents from your file server, never from the service's own ports."
            : "Fix the URL: http(s), no user:pass@, a valid host.",
        facts,
      );
    }
    if (e.kind === "too_large") return fail("document", `The file is larger than ${Math.round(o.maxBytes / 1048576)} MB (SVC_EMBED_MAX_FILE_MB).`, "Raise SVC_EMBED_MAX_FILE_MB, or embed a smaller file.", facts);
    const fix: Record<string, string> = {
      dns: "Fix the host name, or the DNS this machine uses.",
      connect: "Start the file server, open the firewall from this machine to it, or fix the port.",
      tls: "Give the file server a valid certificate for its name.",
      timeout: "Make the file server answer within 60 s.",
      status: "Make the URL answer 200 without a browser session (a signed URL, or a token in the URL).",
      redirect: "Use the final address.",
      too_many_redirects: "Use the final address.",
    };
    return fail("document", `Step ${e.detail.reason}: ${downloadFailedMessage(e.detail)}`, fix[String(e.detail.reason)] ?? "Check the URL.", facts);
  }
}
