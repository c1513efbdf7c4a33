// The one reader of an editing URL, shared by the gate (/svc/auth, from the RAW URI the proxy
// forwards in X-Original-URI) and the editing server (its WebSocket upgrade): both must see the same
// document, the same access token and the same permission, or a URL can be read-only for the one
// that counts connections and editable for the one that opens them. Every WebSocket form of the
// spec's routing table and of Collabora's client (protocol notes §6):
//   /ed/<A>/ws?WOPISrc=<B>&compat=/ws          canonical (A = enc(docURL + "?" + params))
//   /ed/<A>/ws/  and  /ed/<A>/ws/<sid>/<cmd>/<n>   trailing slash, further segments
//   /ed/<A>/ws                                  no query: the document URL of A is the WOPISrc
//   /ed/ws?WOPISrc=<B>[&access_token=…]         the spec's short form
//   /ed/0x<hex of "<A>/ws?WOPISrc=<B>&compat=">/ws   Collabora's hexified form
//   A (or B) encoded twice (%253A …)
//   /cool/… and /lool/… instead of /ed/ (a real Collabora's prefixes)
// and the editor page /browser/<hash>/ed.html?WOPISrc=<B>[&permission=…][&access_token=…].
// Anything else is not an editing WebSocket: the gate refuses it (spec rule 7).
// The access token and the permission of a WebSocket are read from its document part A only (the
// short form has no A: its query is the document part), which is where Collabora reads them; a
// `permission` or `access_token` appended to the outer query means nothing to either reader.
// The document key maps host aliases to their group's first entry (documentKeyer), as the editing
// server's docKey does, so that a file reached through two aliases is one document for admission.

import { canonicalDocKey, type AliasGroup } from "./alias-groups";

const PREFIXES = new Set(["ed", "cool", "lool"]);
const SCHEME = /^https?:\/\//i;

export interface EditTarget {
  /** WOPISrc without query, as given (decoded). */
  wopiSrc: string;
  /** WOPISrc as given (decoded), with its own query when it has one: the editing server's WOPI address. */
  wopiSrcAsGiven: string;
  /** The parameters of the document part: access_token, access_token_ttl, permission, … */
  docParams: URLSearchParams;
  /** `load` arguments carried in the WebSocket URL by our editor page (outer query); null when none. */
  load: string | null;
  /** scheme://host:port/path, lower-case scheme and host, explicit port, alias mapped: Collabora's docKey form. */
  docKey: string;
  /** The access token of the document part, or null when the URI has none. */
  token: string | null;
  /** `permission` of the document part (Collabora adds it on reconnects); for a page, of its query. */
  permission: string | null;
}

/**
 * Read-only as requested by the URL: `permission=readonly` in the document part, the one form both
 * Collabora and our editing server open read-only. Anything else (`view`, another place in the
 * URL) is an editing request and is counted as one.
 */
export const requestsReadOnly = (t: EditTarget) => t.permission === "readonly";

/** scheme://host:port/path of an http(s) URL, without query or fragment; null when not one. */
export const normaliseWopiSrc = (url: string): string | null => canonicalDocKey([], url);

/** The document key of a WOPISrc (or of an admin-channel docKey once decoded); null when not http(s). */
export type DocKeyFn = (url: string) => string | null;

/** The key function for the configured alias groups (SVC_ONLINE_ALIASGROUP1, 2, …). */
export function documentKeyer(groups: AliasGroup[]): DocKeyFn {
  return groups.length ? (url) => canonicalDocKey(groups, url) : normaliseWopiSrc;
}

/** Decodes until the text starts with a scheme (a part encoded once or twice); null otherwise. */
function decodeToUrl(part: string, rounds = 3): string | null {
  let v = part;
  for (let i = 0; i <= rounds; i++) {
    if (SCHEME.test(v)) return v;
    try {
      const next = decodeURIComponent(v);
      if (next === v) return null;
      v = next;
    } catch {
      return null;
    }
  }
  return SCHEME.test(v) ? v : null;
}

function target(wopiSrcRaw: string | null, docParams: URLSearchParams, outer: URLSearchParams, keyOf: DocKeyFn): EditTarget | null {
  if (!wopiSrcRaw) return null;
  const wopi = decodeToUrl(wopiSrcRaw);
  if (!wopi) return null;
  const q = wopi.indexOf("?");
  const wopiSrc = q < 0 ? wopi : wopi.slice(0, q);
  const docKey = keyOf(wopiSrc);
  if (!docKey) return null;
  const token = docParams.get("access_token");
  const permission = docParams.get("permission");
  return { wopiSrc, wopiSrcAsGiven: wopi, docParams, load: outer.get("load"), docKey, token: token || null, permission: permission || null };
}

function splitUri(raw: string): { path: string; query: string } | null {
  if (!raw.startsWith("/")) {
    // An absolute-form request target: keep only path and query.
    try {
      const u = new URL(raw);
      return { path: u.pathname, query: u.search.slice(1) };
    } catch {
      return null;
    }
  }
  const hash = raw.indexOf("#");
  const r = hash < 0 ? raw : raw.slice(0, hash);
  const q = r.indexOf("?");
  return q < 0 ? { path: r, query: "" } : { path: r.slice(0, q), query: r.slice(q + 1) };
}

/** The document of an editing WebSocket URI, or null when the URI is not one (refused). */
export function parseWsUri(raw: string, keyOf: DocKeyFn = normaliseWopiSrc): EditTarget | null {
  const parts = splitUri(raw);
  if (!parts) return null;
  const segs = parts.path.split("/");
  if (segs[0] !== "" || !PREFIXES.has(segs[1] ?? "")) return null;
  let query = new URLSearchParams(parts.query);

  // The short form /ed/ws?WOPISrc=… (also with a trailing slash or further segments): no
  // document part, its query stands for it.
  if (segs[2] === "ws") return target(query.get("WOPISrc"), query, query, keyOf);

  if (segs.length < 4 || segs[3] !== "ws") return null;
  let a = segs[2]!;
  if (a === "") return null;
  if (/^0x[0-9a-f]+$/i.test(a) && a.length % 2 === 0) {
    const unhex = Buffer.from(a.slice(2), "hex").toString("utf8"); // "<A>/ws?WOPISrc=<B>&compat="
    const at = unhex.indexOf("/ws?");
    if (at < 0) return null;
    query = new URLSearchParams(unhex.slice(at + 4));
    a = unhex.slice(0, at);
  }
  const doc = decodeToUrl(a);
  if (!doc) return null;
  const q = doc.indexOf("?");
  const docUrl = q < 0 ? doc : doc.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : doc.slice(q + 1));
  // As the editing server does: the WOPISrc of the query, else the document URL itself.
  return target(query.get("WOPISrc") || docUrl, params, query, keyOf);
}

/** The document of an editor page request (/browser/<hash>/ed.html?WOPISrc=…), or null. */
export function parsePageUri(raw: string, keyOf: DocKeyFn = normaliseWopiSrc): EditTarget | null {
  const parts = splitUri(raw);
  if (!parts) return null;
  if (!/^\/browser\/[^/]+\/(ed|cool)\.html$/.test(parts.path)) return null;
  const query = new URLSearchParams(parts.query);
  return target(query.get("WOPISrc"), query, query, keyOf);
}
