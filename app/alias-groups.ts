// Alias groups SVC_ONLINE_ALIASGROUP1 (always the gate), 2, … (other hosts): which WOPI hosts the
// editing server opens documents from, and which document a WOPISrc is. Shared by the editing
// server and the gate, so both agree on one key per file whatever alias reached it. Each group is
// "scheme://host:port[,alias,…]": the first item is the group's canonical host, matched on the
// host name exactly; each alias after a comma is a regular expression over the host name (a
// plain "scheme://name:port" alias is matched exactly). Matching is case-insensitive and on the
// host name only, as Collabora does. The docKey maps an alias to its group's canonical host, so
// the same file reached through an alias is the same document.

import { parseHttpUrl } from "./net/http-url";

export interface AliasGroup {
  canonical: { protocol: string; host: string; port: string };
  patterns: RegExp[];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The host-name part of an alias item: strips scheme, port and path. */
function hostPattern(item: string): string {
  return item.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/.*$/, "").replace(/:\d+$/, "");
}

export function parseAliasGroups(groups: string[], onInvalid: (item: string) => void = () => {}): AliasGroup[] {
  const out: AliasGroup[] = [];
  for (const g of groups) {
    const items = g.split(",").map((s) => s.trim()).filter(Boolean);
    if (!items.length) continue;
    let canonical: AliasGroup["canonical"];
    try {
      const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(items[0]!) ? items[0]! : `http://${items[0]}`);
      canonical = { protocol: u.protocol.replace(":", ""), host: u.hostname.toLowerCase(), port: u.port };
    } catch {
      onInvalid(items[0]!);
      continue;
    }
    const patterns = [new RegExp(`^${escapeRe(canonical.host.replace(/^\[|\]$/g, ""))}$`, "i")];
    for (const alias of items.slice(1)) {
      const host = hostPattern(alias);
      try {
        patterns.push(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(host) ? new RegExp(`^${escapeRe(host)}$`, "i") : new RegExp(`^(?:${host})$`, "i"));
      } catch {
        onInvalid(alias);
      }
    }
    out.push({ canonical, patterns });
  }
  return out;
}

function groupOf(groups: AliasGroup[], u: URL): AliasGroup | null {
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return groups.find((g) => g.patterns.some((p) => p.test(host))) ?? null;
}

/** scheme://host:port/path, explicit port, with an alias mapped to its group's canonical host. */
function keyOfUrl(u: URL, group: AliasGroup | null): string {
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  const host = group && !group.patterns[0]!.test(u.hostname) ? group.canonical.host : u.hostname;
  const hostPort = group && host === group.canonical.host && group.canonical.port ? `${host}:${group.canonical.port}` : `${host}:${port}`;
  return `${u.protocol}//${hostPort}${u.pathname}`;
}

/** The group a WOPISrc belongs to, or null (unauthorized host). */
export function matchGroup(groups: AliasGroup[], wopiSrc: string): AliasGroup | null {
  const u = parseHttpUrl(wopiSrc);
  return u ? groupOf(groups, u) : null;
}

/** Collabora's docKey: the URI-encoded key of the document (the editing server's form). */
export function docKeyOf(wopiSrc: string, group: AliasGroup | null): string {
  return encodeURIComponent(keyOfUrl(new URL(wopiSrc), group));
}

/**
 * The gate's form of the same key, not URI-encoded; null when the URL is not http(s). Outside
 * every group (or with no groups) it is the plain normalised URL (the editing server refuses a
 * document outside every group anyway).
 */
export function canonicalDocKey(groups: AliasGroup[], url: string): string | null {
  const u = parseHttpUrl(url);
  return u ? keyOfUrl(u, groupOf(groups, u)) : null;
}
