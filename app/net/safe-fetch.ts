// The one outgoing HTTP client for user-supplied URLs: document downloads, DocBuilder `url`,
// and callbacks. Every hop is resolved once, every address checked, and the socket is opened to
// the checked address itself, so a second DNS answer (rebinding) can never be dialled.
//
// node:http/https are used instead of fetch() because fetch cannot be told which IP to dial.

import http from "node:http";
import https from "node:https";
import tls from "node:tls";
import { lookup } from "node:dns/promises";
import { open, unlink } from "node:fs/promises";
import { asDiskError, diskProblem } from "../disk-errors";
import { type AllowList, forbiddenRange, isOwnListener, mayConnect, normalizeHostName, parseIp } from "./ssrf.ts";

/** The port a URL dials: its own, else its scheme's. */
export const portOf = (url: URL): number => (url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port));

export type FetchErrorKind = "url_not_allowed" | "download_failed" | "too_large";

/**
 * Errors are log-safe: messages and details never carry the query string or credentials.
 * `detail.reason` (download_failed) or `detail.rule` (url_not_allowed) names the step that
 * refused: dns, connect, tls, status, redirect, too_many_redirects, timeout (with `during`), or
 * an SSRF rule with the refused block (`address_range`).
 */
export class FetchError extends Error {
  /**
   * The exact refused address, for the operator's log and `svc doctor` only: never put in an
   * answer to a caller (it would make the service a DNS oracle for the private network).
   */
  address?: string;
  constructor(
    readonly kind: FetchErrorKind,
    message: string,
    readonly detail: Record<string, string | number | boolean> = {},
  ) {
    super(message);
    this.name = "FetchError";
  }
}

export type Resolver = (host: string) => Promise<string[]>;

export interface SafeFetchOptions {
  allow: AllowList;
  maxBytes: number;
  /** Covers DNS, connect, every redirect hop and the whole body. */
  timeoutMs: number;
  /** Redirect hops to follow; 0 returns the 3xx as is (callbacks: the spec forbids following). */
  followRedirects: number;
  /** true (default): anything but a final 200 is download_failed, as the spec requires for sources. */
  requireOk?: boolean;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  userAgent?: string;
  /** Injected in tests; default is the system resolver (all addresses). */
  resolver?: Resolver;
  /** Extra trusted CA (PEM) for https, for deployments with a private CA. */
  ca?: string;
  /** Stream the body into this file instead of memory; removed again on failure. */
  toFile?: string;
}

export interface SafeFetchResponse {
  status: number;
  headers: Headers;
  /** Full URL after redirects; may hold tokens, do not log it (use redactUrl). */
  finalUrl: string;
  bytes: number;
}
export interface SafeFetchBody extends SafeFetchResponse {
  body: Uint8Array;
}
export interface SafeFetchFile extends SafeFetchResponse {
  file: string;
}

const defaultResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Origin and path only, for logs and messages. */
export function redactUrl(url: string | URL): string {
  try {
    const u = new URL(String(url));
    return u.origin + u.pathname;
  } catch {
    return "(invalid url)";
  }
}

const notAllowed = (rule: string, message: string, detail: Record<string, string | number | boolean> = {}) =>
  new FetchError("url_not_allowed", message, { rule, ...detail });

/** Static checks that need no DNS: syntax, scheme, credentials, numeric host forms. */
export function checkUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw notAllowed("bad_url", "URL is not valid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw notAllowed("scheme", `scheme ${url.protocol} is not allowed (only http and https)`, {
      scheme: url.protocol.replace(/:$/, ""),
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw notAllowed("credentials", "credentials in the URL are not allowed", { host: url.hostname });
  }
  const host = normalizeHostName(url.hostname);
  if (host === "") throw notAllowed("bad_url", "URL has no host");
  // The WHATWG parser already rewrites 0x7f.1, 2130706433, 0177.0.0.1 into dotted quads; anything
  // numeric that still is not a strict address must not reach getaddrinfo, which has its own ideas.
  if (/^[0-9.]+$/.test(host) && parseIp(host) === null) {
    throw notAllowed("bad_url", "host is not a valid IP address", { host });
  }
  return url;
}

// A user-facing reason without the internal address: telling a caller what an internal name
// resolves to would make the service a DNS oracle for the private network.
// The detail names the refused block ("10.0.0.0/8 private"), not the address itself.
function checkAddresses(url: URL, addresses: string[], allow: AllowList, hop = 0): void {
  const host = normalizeHostName(url.hostname);
  const port = portOf(url);
  const where: Record<string, number> = hop > 0 ? { redirect_hop: hop } : {};
  for (const ip of addresses) {
    if (isOwnListener(allow, ip, port)) {
      const e = notAllowed("own_listener", `host ${host} port ${port} is one of this service's own listeners, never a source`, { host, port, ...where });
      e.address = ip;
      throw e;
    }
    if (!mayConnect(allow, host, ip, port)) {
      const range = forbiddenRange(ip) ?? "listed for another port";
      const e = notAllowed(
        "forbidden_address",
        `host ${host} is or resolves to an internal address (${range}) that is not listed in SVC_FETCH_ALLOW_HOSTS`,
        { host, port, address_range: range, literal: parseIp(host) !== null, ...where },
      );
      e.address = ip;
      throw e;
    }
  }
}

/** The step a time-out cut: dns, connect (no connection yet), answer (connected, no status line), body. */
export type TimeoutStep = "dns" | "connect" | "answer" | "body";

const timeoutError = (ms: number, during: TimeoutStep = "answer") =>
  new FetchError("download_failed", `no complete answer within ${ms} ms (cut during ${during})`, { reason: "timeout", timeoutMs: ms, during });

async function resolveHost(url: URL, resolver: Resolver, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  const host = normalizeHostName(url.hostname);
  if (parseIp(host)) return [host];
  let addresses: string[];
  try {
    addresses = await raceAbort(resolver(host), signal, () => timeoutError(timeoutMs, "dns"));
  } catch (e) {
    if (e instanceof FetchError) throw e;
    throw new FetchError("download_failed", `host ${host} could not be resolved`, { reason: "dns", host });
  }
  if (addresses.length === 0) {
    throw new FetchError("download_failed", `host ${host} could not be resolved`, { reason: "dns", host });
  }
  return addresses;
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal, err: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(err());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(err());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

interface Exchange {
  req: http.ClientRequest;
  res: http.IncomingMessage;
}

// Errors where no byte reached the server, so trying the next checked address cannot
// duplicate a POST.
const RETRY_NEXT_ADDRESS = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT"]);

function openOnce(
  url: URL,
  ip: string,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  ca: string | undefined,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Exchange> {
  const name = normalizeHostName(url.hostname);
  const isHttps = url.protocol === "https:";
  const options: https.RequestOptions = {
    host: ip, // the checked address: no lookup happens for an IP literal
    port: url.port === "" ? (isHttps ? 443 : 80) : Number(url.port),
    path: url.pathname + url.search,
    method,
    headers,
    agent: false, // a pooled socket could outlive the check it was opened under
  };
  if (isHttps) {
    // SNI must be a name (RFC 6066), and the certificate is checked against the URL's name,
    // not against the IP we dialled.
    if (!parseIp(name)) options.servername = name;
    options.checkServerIdentity = (_h, cert) => tls.checkServerIdentity(name, cert);
    if (ca) options.ca = ca;
  }
  return new Promise<Exchange>((resolve, reject) => {
    const req = (isHttps ? https : http).request(options);
    let connected = false;
    req.on("socket", (sock) => {
      sock.once(isHttps ? "secureConnect" : "connect", () => (connected = true));
    });
    const onAbort = () => {
      req.destroy();
      reject(timeoutError(timeoutMs, connected ? "answer" : "connect"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // Kept for the socket's whole life: Bun re-emits a response error on the request, and an
    // unhandled 'error' would crash the process.
    req.on("error", (e: NodeJS.ErrnoException) => {
      signal.removeEventListener("abort", onAbort);
      reject(e);
    });
    req.on("response", (res) => {
      signal.removeEventListener("abort", onAbort);
      resolve({ req, res });
    });
    req.end(body);
  });
}

async function openAny(
  url: URL,
  addresses: string[],
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  opts: SafeFetchOptions,
  signal: AbortSignal,
): Promise<Exchange> {
  const host = normalizeHostName(url.hostname);
  let last: NodeJS.ErrnoException | undefined;
  for (const ip of addresses) {
    try {
      return await openOnce(url, ip, method, headers, body, opts.ca, signal, opts.timeoutMs);
    } catch (e) {
      if (e instanceof FetchError) throw e;
      last = e as NodeJS.ErrnoException;
      if (!RETRY_NEXT_ADDRESS.has(last.code ?? "")) break;
    }
  }
  const code = last?.code ?? "ERROR";
  const tlsProblem = /CERT|TLS|SSL/i.test(code);
  throw new FetchError(
    "download_failed",
    tlsProblem ? `TLS handshake with ${host} failed (${code})` : `could not connect to ${host} port ${portOf(url)} (${code})`,
    { reason: tlsProblem ? "tls" : "connect", host, port: portOf(url), code },
  );
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

// The status travels with the error: a caller that ignores bodies (callbacks) still knows the answer.
const tooLarge = (limit: number, status: number, declared?: number) =>
  new FetchError("too_large", `response is larger than ${limit} bytes`, {
    reason: "too_large",
    limitBytes: limit,
    status,
    ...(declared !== undefined ? { declared_bytes: declared } : {}),
  });

async function readBody(
  ex: Exchange,
  maxBytes: number,
  toFile: string | undefined,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ bytes: number; body?: Uint8Array }> {
  const { req, res } = ex;
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, res.statusCode ?? 0, declared);

  let timedOut = false;
  // Destroying without an error argument: for-await then ends or throws "aborted", and the
  // timeout is reported from the flag, not from whatever Bun makes of the destroy.
  const onAbort = () => {
    timedOut = true;
    res.destroy();
    req.destroy();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const file = toFile ? await open(toFile, "w").catch((e) => Promise.reject(asDiskError(e))) : undefined;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw tooLarge(maxBytes, res.statusCode ?? 0); // leaving the loop destroys the stream
      if (file) await file.write(chunk);
      else chunks.push(chunk);
    }
    if (timedOut) throw timeoutError(timeoutMs, "body");
    if (!res.complete) throw new Error("connection closed early");
  } catch (e) {
    res.destroy();
    req.destroy();
    await file?.close().catch(() => {});
    if (toFile) await unlink(toFile).catch(() => {});
    if (timedOut) throw timeoutError(timeoutMs, "body");
    if (e instanceof FetchError) throw e;
    // Our disk, not their server: the data directory is full or read-only.
    if (diskProblem(e)) throw asDiskError(e);
    throw new FetchError("download_failed", `connection broke off after ${bytes} bytes of the body`, { reason: "connect", during: "body", received_bytes: bytes });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  await file?.close();
  if (file) return { bytes };
  return { bytes, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) };
}

/**
 * The SSRF rules on a URL without fetching it: its shape, then every address its host resolves to
 * now (a caller-supplied callback URL is refused when it is made, not after the work). A name that
 * does not resolve is not refused here: it may resolve when the callback is sent, and is checked
 * again then. Throws FetchError url_not_allowed.
 */
export async function checkTarget(url: string, allow: AllowList, opts: { resolver?: Resolver; timeoutMs?: number } = {}): Promise<void> {
  const u = checkUrl(url);
  const ac = new AbortController();
  const timeoutMs = opts.timeoutMs ?? 2000;
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  let addresses: string[];
  try {
    addresses = await resolveHost(u, opts.resolver ?? defaultResolver, ac.signal, timeoutMs);
  } catch {
    return;
  } finally {
    clearTimeout(timer);
  }
  checkAddresses(u, addresses, allow);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * What the first bytes of a refused answer look like (html, json, xml, text, binary, empty):
 * an HTML sign-in page instead of the file says the URL needs a browser session. Reads at most
 * one chunk, for at most 1 s; never returns the bytes themselves.
 */
async function peekBodyKind(ex: Exchange): Promise<string> {
  const first = await new Promise<Buffer | null>((resolve) => {
    const done = (b: Buffer | null) => {
      clearTimeout(timer);
      ex.res.off("data", onData);
      ex.res.off("end", onEnd);
      ex.res.off("error", onEnd);
      resolve(b);
    };
    const onData = (b: Buffer) => done(b);
    const onEnd = () => done(null);
    const timer = setTimeout(onEnd, 1000);
    ex.res.on("data", onData);
    ex.res.once("end", onEnd);
    ex.res.once("error", onEnd);
  });
  return sniffKind(first);
}

export function sniffKind(bytes: Uint8Array | null): string {
  if (!bytes || bytes.length === 0) return "empty";
  const head = Buffer.from(bytes.subarray(0, 256)).toString("utf8").replace(/^\uFEFF/, "").trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html") || /^<(head|body|title|meta)\b/.test(head)) return "html";
  if (head.startsWith("<?xml") || head.startsWith("<")) return "xml";
  if (head.startsWith("{") || head.startsWith("[")) return "json";
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return "zip";
  const sample = bytes.subarray(0, 256);
  let binary = 0;
  for (const b of sample) if (b < 32 && b !== 9 && b !== 10 && b !== 13) binary++;
  return binary > 0 ? "binary" : "text";
}
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Fetches a user-supplied URL under the SSRF rules. Throws FetchError:
 * url_not_allowed (rule in detail), download_failed (reason in detail), too_large (limitBytes).
 */
export function safeFetch(url: string | URL, opts: SafeFetchOptions & { toFile: string }): Promise<SafeFetchFile>;
export function safeFetch(url: string | URL, opts: SafeFetchOptions & { toFile?: undefined }): Promise<SafeFetchBody>;
export async function safeFetch(url: string | URL, opts: SafeFetchOptions): Promise<SafeFetchBody | SafeFetchFile> {
  const requireOk = opts.requireOk ?? true;
  const resolver = opts.resolver ?? defaultResolver;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs);

  let method = (opts.method ?? "GET").toUpperCase();
  let body = typeof opts.body === "string" ? new TextEncoder().encode(opts.body) : opts.body;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  if (opts.userAgent && !headers["user-agent"]) headers["user-agent"] = opts.userAgent;

  try {
    let current = checkUrl(url);
    for (let hop = 0; ; hop++) {
      const addresses = await resolveHost(current, resolver, ac.signal, opts.timeoutMs);
      checkAddresses(current, addresses, opts.allow, hop);

      const sent: Record<string, string> = { ...headers, host: current.host };
      if (body) sent["content-length"] = String(body.byteLength);
      else delete sent["content-length"];
      const ex = await openAny(current, addresses, method, sent, body, opts, ac.signal);
      const status = ex.res.statusCode ?? 0;
      const location = ex.res.headers.location;

      if (REDIRECTS.has(status) && location && opts.followRedirects > 0) {
        ex.res.destroy();
        ex.req.destroy();
        if (hop >= opts.followRedirects) {
          throw new FetchError("download_failed", `more than ${opts.followRedirects} redirects`, {
            reason: "too_many_redirects",
            limit: opts.followRedirects,
          });
        }
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw notAllowed("bad_url", "redirect target is not a valid URL", { host: normalizeHostName(current.hostname), redirect_hop: hop + 1 });
        }
        try {
          next = checkUrl(next);
        } catch (e) {
          if (e instanceof FetchError) Object.assign(e.detail, { redirect_hop: hop + 1 });
          throw e;
        }
        if (next.origin !== current.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
        // Same rewrite browsers do: 303 always, and 301/302 for POST, continue as a body-less GET.
        if (status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST") {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        current = next;
        continue;
      }

      if (requireOk && status !== 200) {
        const kind = await peekBodyKind(ex);
        ex.res.destroy();
        ex.req.destroy();
        const host = normalizeHostName(current.hostname);
        const contentType = String(ex.res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase().slice(0, 100);
        if (REDIRECTS.has(status) || (status >= 300 && status < 400)) {
          // Redirects not followed here (followRedirects 0): the answer was a redirect.
          let target = "";
          try {
            target = location ? new URL(location, current).host : "";
          } catch {
            target = "";
          }
          throw new FetchError("download_failed", `server answered ${status} (a redirect${target ? ` to ${target}` : ""}), and redirects are not followed here`, {
            reason: "redirect",
            status,
            host,
            ...(target ? { location_host: target } : {}),
          });
        }
        throw new FetchError("download_failed", `server answered ${status}, expected 200 (body: ${contentType || "no content type"}, looks like ${kind})`, {
          reason: "status",
          status,
          host,
          content_type: contentType,
          body_kind: kind,
        });
      }
      const read = await readBody(ex, opts.maxBytes, opts.toFile, ac.signal, opts.timeoutMs);
      const base = { status, headers: toHeaders(ex.res.headers), finalUrl: current.href, bytes: read.bytes };
      return opts.toFile ? { ...base, file: opts.toFile } : { ...base, body: read.body ?? new Uint8Array() };
    }
  } finally {
    clearTimeout(timer);
  }
}
