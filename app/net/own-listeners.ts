// The service's own listeners as the SSRF rules see them: the gate, the editing server and the
// proxy listen on this machine, and no outside URL may point the service back at them (a
// document.url on the gate's internal listener would hand out /svc/metrics as a document, a
// callback could post to the editing server). Whatever SVC_FETCH_ALLOW_HOSTS allows, an address
// of this machine on one of these ports is refused.

import os from "node:os";
import { parseCidr, parseIp, type OwnListeners } from "./ssrf";

const LOCAL_BLOCKS = ["127.0.0.0/8", "::1/128", "0.0.0.0/32", "::/128"].map((c) => parseCidr(c)!);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function inBlock(bytes: Uint8Array, block: { bytes: Uint8Array; prefix: number }): boolean {
  if (bytes.length !== block.bytes.length) return false;
  for (let bit = 0; bit < block.prefix; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[bit >> 3]! & mask) !== (block.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** This machine's addresses now: loopback, unspecified, and every interface's (read on each call: they change). */
export function isLocalAddress(ip: string): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  // An IPv4-mapped IPv6 address is the IPv4 address it carries.
  const bytes = a.family === 6 && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff ? a.bytes.slice(12) : a.bytes;
  if (LOCAL_BLOCKS.some((b) => inBlock(bytes, b))) return true;
  for (const list of Object.values(os.networkInterfaces())) {
    for (const itf of list ?? []) {
      const own = parseIp(itf.address.split("%")[0]!);
      if (own && sameBytes(own.bytes, bytes)) return true;
    }
  }
  return false;
}

export function ownListeners(ports: number[]): OwnListeners {
  return { ports: new Set(ports.filter((p) => Number.isInteger(p) && p > 0)), isLocal: isLocalAddress };
}
