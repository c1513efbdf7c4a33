// Address rules for outgoing requests to user-supplied URLs (spec: "SSRF protection").
// Pure functions, no I/O: safe-fetch.ts does the resolving and connecting.

import { isIP } from "node:net";

export interface IpAddr {
  family: 4 | 6;
  bytes: Uint8Array; // 4 or 16 bytes, network order
}

export interface Cidr extends IpAddr {
  prefix: number;
  /** Only these ports of the block (an entry `10.0.0.5:8443`); every port when absent. */
  ports?: Set<number>;
}

export interface AllowList {
  /** Lower-cased host names without trailing dot; they allow whatever the name resolves to. */
  names: Set<string>;
  /** Ports a name entry is limited to (`files.internal:8443`); names absent here allow every port. */
  namePorts?: Map<string, Set<number>>;
  /** Pinned blocks: an address inside one is allowed even if internal. */
  cidrs: Cidr[];
  /**
   * The service's own listeners (gate, editing server, proxy): never a valid source, whatever the
   * entries say. A dialled address of this machine on one of these ports is refused.
   */
  ownListeners?: OwnListeners;
}

export interface OwnListeners {
  ports: Set<number>;
  /** Whether an address is this machine's (loopback, unspecified, or one of its interfaces). */
  isLocal(ip: string): boolean;
}

// Strict dotted quad only. Hex, octal (leading zero), shortened and integer forms are refused:
// different parsers read them differently, which is exactly what SSRF bypasses exploit.
function parseIPv4(s: string): Uint8Array | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

// isIP() has already validated the syntax; this only expands "::" and a dotted v4 tail.
function parseIPv6(s: string): Uint8Array | null {
  if (isIP(s) !== 6) return null;
  let groups: number[] = [];
  const tailV4 = s.lastIndexOf(".") >= 0 ? s.slice(s.lastIndexOf(":") + 1) : null;
  let head = s;
  let v4: Uint8Array | null = null;
  if (tailV4 !== null) {
    v4 = parseIPv4(tailV4);
    if (!v4) return null;
    head = s.slice(0, s.length - tailV4.length) + "0:0"; // placeholder groups, overwritten below
  }
  const dbl = head.indexOf("::");
  const toNums = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  if (dbl >= 0) {
    const left = toNums(head.slice(0, dbl));
    const right = toNums(head.slice(dbl + 2));
    groups = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  } else {
    groups = toNums(head);
  }
  if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) return null;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (v4) out.set(v4, 12);
  return out;
}

/** Parses a canonical IPv4 or IPv6 literal (brackets and a %zone are tolerated); null otherwise. */
export function parseIp(input: string): IpAddr | null {
  let s = input;
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0 && s.includes(":")) s = s.slice(0, zone);
  const v4 = parseIPv4(s);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIPv6(s);
  if (v6) return { family: 6, bytes: v6 };
  return null;
}

export function parseCidr(input: string): Cidr | null {
  const slash = input.indexOf("/");
  const ip = parseIp(slash >= 0 ? input.slice(0, slash) : input);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  if (slash < 0) return { ...ip, prefix: max };
  const p = input.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(p) || Number(p) > max) return null;
  return { ...ip, prefix: Number(p) };
}

function inCidr(addr: IpAddr, c: Cidr): boolean {
  if (addr.family !== c.family) return false;
  const full = c.prefix >> 3;
  for (let i = 0; i < full; i++) if (addr.bytes[i] !== c.bytes[i]) return false;
  const rest = c.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (addr.bytes[full]! & mask) === (c.bytes[full]! & mask);
}

const cidrs = (list: string[]): Cidr[] => list.map((s) => parseCidr(s)!);

// Each refused IPv4 block with the name an operator knows it by (doctor and error details name it).
const V4_RANGES: [string, string][] = [
  ["0.0.0.0/8", "this network"], // 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT"], // also holds 100.100.100.200 (Alibaba metadata)
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local, cloud metadata"], // holds 169.254.169.254
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "6to4 relay anycast"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"], // includes 255.255.255.255
];
const FORBIDDEN_V4 = cidrs(V4_RANGES.map((r) => r[0]));

// IPv6 is judged by default-deny: only global unicast 2000::/3 may pass, so ULA (fc00::/7, incl.
// fd00:ec2::254), link-local, site-local, multicast, discard and local NAT64 are all outside.
const GLOBAL_V6 = parseCidr("2000::/3")!;
const V6_RANGES: [string, string][] = [
  ["2001::/32", "Teredo"], // the embedded client address is obfuscated, so it cannot be judged
  ["2001:2::/48", "benchmarking"],
  ["2001:10::/28", "ORCHID"],
  ["2001:20::/28", "ORCHIDv2"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
];
const FORBIDDEN_V6 = cidrs(V6_RANGES.map((r) => r[0]));
// Names of the usual IPv6 space outside 2000::/3, for messages only (everything outside is refused).
const V6_OUTSIDE: [string, string][] = [
  ["::1/128", "loopback"],
  ["fe80::/10", "link-local"],
  ["fc00::/7", "unique local (private)"],
  ["ff00::/8", "multicast"],
];

// IPv6 forms that carry an IPv4 address the packet may end up at; judged by that address.
const V4_MAPPED = parseCidr("::ffff:0:0/96")!;
const V4_COMPAT = parseCidr("::/96")!; // also covers :: and ::1 (embedded 0.0.0.0 / 0.0.0.1)
const NAT64 = parseCidr("64:ff9b::/96")!;
const SIX_TO_FOUR = parseCidr("2002::/16")!;

function embeddedV4(a: IpAddr): IpAddr | null {
  if (a.family !== 6) return null;
  if (inCidr(a, V4_MAPPED) || inCidr(a, V4_COMPAT) || inCidr(a, NAT64)) {
    return { family: 4, bytes: a.bytes.slice(12, 16) };
  }
  if (inCidr(a, SIX_TO_FOUR)) return { family: 4, bytes: a.bytes.slice(2, 6) };
  return null;
}

function forbiddenAddr(a: IpAddr): boolean {
  if (a.family === 4) return FORBIDDEN_V4.some((c) => inCidr(a, c));
  const v4 = embeddedV4(a);
  if (v4) return forbiddenAddr(v4);
  if (!inCidr(a, GLOBAL_V6)) return true;
  return FORBIDDEN_V6.some((c) => inCidr(a, c));
}

/**
 * The refused block an address falls in, named ("127.0.0.0/8 loopback"); null for a public
 * address. Used in error details and by `svc doctor`: it says which rule refused a URL without
 * telling a caller the exact internal address a name resolves to.
 */
export function forbiddenRange(ip: string): string | null {
  const a = parseIp(ip);
  if (a === null) return "not an IP address";
  if (!forbiddenAddr(a)) return null;
  if (a.family === 4) {
    const i = FORBIDDEN_V4.findIndex((c) => inCidr(a, c));
    return `${V4_RANGES[i]![0]} ${V4_RANGES[i]![1]}`;
  }
  if (inCidr(a, parseCidr("::1/128")!)) return "::1/128 loopback";
  const v4 = embeddedV4(a);
  if (v4) {
    const dotted = [...v4.bytes].join(".");
    const inner = forbiddenRange(dotted);
    return inner === null ? null : `IPv4 inside IPv6: ${inner}`;
  }
  const j = FORBIDDEN_V6.findIndex((c) => inCidr(a, c));
  if (j >= 0) return `${V6_RANGES[j]![0]} ${V6_RANGES[j]![1]}`;
  for (const [block, name] of V6_OUTSIDE) if (inCidr(a, parseCidr(block)!)) return `${block} ${name}`;
  return "outside the global unicast block 2000::/3";
}

/** True for anything that is not a plainly public unicast address. Unparsable input is forbidden. */
export function isForbiddenAddress(ip: string): boolean {
  const a = parseIp(ip);
  return a === null || forbiddenAddr(a);
}

export function normalizeHostName(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** An entry's port suffix: `name:port`, `1.2.3.4:port`, `[v6]:port`; null when it has none. */
function splitPort(entry: string): { host: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : null };
  const m = /^([^:]+):(\d{1,5})$/.exec(entry); // one colon: not a bare IPv6 address
  if (m) return { host: m[1]!, port: Number(m[2]) };
  return { host: entry, port: null };
}

function addPort(map: Map<string, Set<number>>, key: string, port: number) {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(port);
}

/**
 * Parses SVC_FETCH_ALLOW_HOSTS entries: IPs and CIDR blocks (v4/v6) or host names, each optionally
 * with a port (`files.internal:8443`, `10.0.0.5:8080`, `[fd00::5]:8080`), which limits the entry
 * to that port. Throws on an entry that is none of these, so a typo fails at start-up instead of
 * silently allowing nothing.
 */
export function parseAllowList(entries: string[], ownListeners?: OwnListeners): AllowList {
  const list: AllowList = { names: new Set(), namePorts: new Map(), cidrs: [], ownListeners };
  const invalid = (e: string) => new Error(`SVC_FETCH_ALLOW_HOSTS: invalid entry "${e}" (expected host name, IP or CIDR, optionally with :port)`);
  for (const raw of entries) {
    const e = raw.trim();
    if (e === "") continue;
    const { host, port } = splitPort(e);
    if (port !== null && (port < 1 || port > 65535)) throw invalid(e);
    const c = parseCidr(host);
    if (c) {
      const same = port === null ? undefined : list.cidrs.find((x) => x.ports && x.prefix === c.prefix && x.bytes.every((b, i) => b === c.bytes[i]));
      if (same && port !== null) same.ports!.add(port);
      else list.cidrs.push(port === null ? c : { ...c, ports: new Set([port]) });
      continue;
    }
    const name = normalizeHostName(host);
    // A last label that is a number makes URL parsers read the host as an IPv4 address
    // ("0x7f.1" becomes 127.0.0.1), so such a name could never match a URL host.
    const last = name.slice(name.lastIndexOf(".") + 1);
    if (!HOST_NAME.test(name) || /^(0x[0-9a-f]*|[0-9]+)$/.test(last)) throw invalid(e);
    if (port === null) {
      list.names.add(name);
      list.namePorts!.delete(name); // a bare entry allows every port
    } else if (!list.names.has(name) || list.namePorts!.has(name)) {
      list.names.add(name);
      addPort(list.namePorts!, name, port);
    }
  }
  return list;
}

export const EMPTY_ALLOW_LIST: AllowList = { names: new Set(), cidrs: [] };

/** Whether the URL host name itself is listed by name (compared as the URL gives it), for that port. */
export function isNameAllowed(allow: AllowList, urlHostName: string, port?: number): boolean {
  const name = normalizeHostName(urlHostName);
  if (!allow.names.has(name)) return false;
  const ports = allow.namePorts?.get(name);
  return !ports || port === undefined || ports.has(port);
}

/** Whether an address inside a listed CIDR (for that port); a v4-mapped v6 address also matches v4 blocks. */
export function isAddressAllowed(allow: AllowList, ip: string, port?: number): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  const mapped = a.family === 6 && inCidr(a, V4_MAPPED) ? { family: 4 as const, bytes: a.bytes.slice(12) } : null;
  return allow.cidrs.some((c) => (inCidr(a, c) || (mapped !== null && inCidr(mapped, c))) && (!c.ports || port === undefined || c.ports.has(port)));
}

/** An address of this machine on one of the service's own ports: never dialled. */
export function isOwnListener(allow: AllowList, ip: string, port: number | undefined): boolean {
  const own = allow.ownListeners;
  return !!own && port !== undefined && own.ports.has(port) && own.isLocal(ip);
}

/**
 * The single decision: an address may be dialled when it is not one of the service's own
 * listeners, and it is public, or the URL named a listed host, or it sits in a listed CIDR (each
 * for the entry's port when it names one).
 */
export function mayConnect(allow: AllowList, urlHostName: string, ip: string, port?: number): boolean {
  if (parseIp(ip) === null) return false;
  if (isOwnListener(allow, ip, port)) return false;
  return !isForbiddenAddress(ip) || isNameAllowed(allow, urlHostName, port) || isAddressAllowed(allow, ip, port);
}
