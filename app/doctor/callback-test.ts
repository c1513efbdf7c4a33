// `svc doctor --callback URL`: a signed test callback, sent as the gate sends save callbacks
// (POST, SVC-Gate/1.0, X-SVC-* headers signed with SVC_EMBED_CALLBACK_SECRET, under the SSRF
// rules, redirects not followed), and whether the answer is the one the spec expects: a 2xx
// within 10 s (the body is ignored).

import { randomUUID } from "node:crypto";
import { CALLBACK_CONTENT_TYPE, DEFAULT_ATTEMPT_TIMEOUT_MS, USER_AGENTS, signPayload } from "../callbacks/sender";
import { downloadFailedMessage, notAllowedMessage } from "../net/fetch-errors";
import { FetchError, safeFetch } from "../net/safe-fetch";
import type { AllowList } from "../net/ssrf";
import { fail, ok, type Finding } from "./types";

/** The test body: a `document.saved` shape with key `svc-doctor-test` and no file (url null), for receivers to recognise. */
export function testCallbackBody(now: number) {
  return {
    status: "saved",
    key: "svc-doctor-test",
    version: 0,
    url: null,
    fileType: "docx",
    title: "svc doctor test",
    size: 0,
    sha256: "",
    users: [],
    savedBy: null,
    autosave: false,
    final: false,
    modifiedByUser: false,
    timestamp: new Date(now).toISOString(),
  };
}

export async function checkCallback(url: string, o: { secret: string; allow: AllowList; timeoutMs?: number; now?: () => number }): Promise<Finding> {
  const now = (o.now ?? Date.now)();
  const ts = Math.floor(now / 1000);
  const raw = new TextEncoder().encode(JSON.stringify(testCallbackBody(now)));
  const headers: Record<string, string> = {
    "content-type": CALLBACK_CONTENT_TYPE,
    "x-svc-event": "document.saved",
    "x-svc-delivery": randomUUID(),
    "x-svc-timestamp": String(ts),
  };
  if (o.secret) headers["x-svc-signature"] = signPayload(o.secret, ts, raw);
  const timeoutMs = o.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const t0 = performance.now();
  try {
    const res = await safeFetch(url, { allow: o.allow, maxBytes: 64 * 1024, timeoutMs, followRedirects: 0, requireOk: false, method: "POST", headers, body: raw, userAgent: USER_AGENTS.document });
    const latency = Math.round(performance.now() - t0);
    const facts = { status: res.status, latency_ms: latency, signed: !!o.secret };
    if (res.status >= 200 && res.status < 300) return ok("callback", `The receiver answered ${res.status} in ${latency} ms: what the spec expects (2xx within 10 s).`, facts);
    if (res.status >= 300 && res.status < 400) return fail("callback", `The receiver answered ${res.status} (a redirect${res.headers.get("location") ? ` to ${res.headers.get("location")}` : ""}) in ${latency} ms; callbacks never follow redirects.`, "Give editor.callbackUrl the final address (often http→https or a missing trailing slash).", facts);
    if (res.status === 401 || res.status === 403) return fail("callback", `The receiver answered ${res.status} in ${latency} ms: it refuses the signature or the timestamp.`, "Give the receiver the same secret as SVC_EMBED_CALLBACK_SECRET, verify the raw body before parsing, and keep both clocks within 300 s.", facts);
    return fail("callback", `The receiver answered ${res.status} in ${latency} ms instead of a 2xx.`, "Make the callback route answer 2xx (any body) within 10 s; do slow work after answering.", facts);
  } catch (e) {
    const latency = Math.round(performance.now() - t0);
    if (!(e instanceof FetchError)) return fail("callback", `The test callback failed: ${e instanceof Error ? e.message : String(e)}.`, "Check the URL.", { latency_ms: latency });
    const facts = { ...e.detail, latency_ms: latency, ...(e.address ? { address: e.address } : {}) };
    if (e.kind === "url_not_allowed") {
      return fail("callback", `The callback URL is refused by the SSRF rules (${e.detail.rule}${e.address ? `, ${e.address}` : ""}): ${notAllowedMessage(e.detail)}`, e.detail.rule === "forbidden_address" ? `Use a public address, or list the receiver in SVC_FETCH_ALLOW_HOSTS (${e.detail.host}${e.detail.port ? `:${e.detail.port}` : ""}).` : "Fix the URL's form.", facts);
    }
    if (e.kind === "too_large") return ok("callback", `The receiver answered ${e.detail.status} with a large body in ${latency} ms (the body is ignored).`, facts);
    return fail("callback", `The receiver could not be reached (${e.detail.reason}): ${downloadFailedMessage(e.detail)}`, e.detail.reason === "timeout" ? "Answer within 10 s: acknowledge first, work after." : "Start the receiver, open the firewall to it, or fix the host and port of the URL.", facts);
  }
}
