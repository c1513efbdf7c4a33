import { ownListeners } from "./own-listeners";
import { describe, expect, test } from "bun:test";
import { isAddressAllowed, isForbiddenAddress, mayConnect, parseAllowList, parseIp } from "./ssrf.ts";

describe("isForbiddenAddress", () => {
  const forbidden: [string, string][] = [
    ["127.0.0.1", "loopback v4"],
    ["127.255.255.254", "loopback v4, whole /8"],
    ["::1", "loopback v6"],
    ["10.0.0.1", "private 10/8"],
    ["172.16.0.1", "private 172.16/12 start"],
    ["172.31.255.255", "private 172.16/12 end"],
    ["192.168.1.1", "private 192.168/16"],
    ["fc00::1", "unique local fc00::/7"],
    ["fd12:3456::1", "unique local fd00::/8"],
    ["169.254.1.1", "link-local v4"],
    ["fe80::1", "link-local v6"],
    ["fe80::1%eth0", "link-local v6 with zone"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT end"],
    ["224.0.0.1", "multicast v4"],
    ["239.255.255.250", "multicast v4 (SSDP)"],
    ["ff02::1", "multicast v6"],
    ["0.0.0.0", "unspecified v4"],
    ["0.1.2.3", "this-network 0/8"],
    ["::", "unspecified v6"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved 240/4"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking end"],
    ["192.0.2.1", "documentation TEST-NET-1"],
    ["2001:db8::1", "documentation v6"],
    ["169.254.169.254", "cloud metadata (AWS/GCP/Azure)"],
    ["fd00:ec2::254", "cloud metadata v6 (AWS)"],
    ["100.100.100.200", "cloud metadata (Alibaba)"],
    ["::ffff:127.0.0.1", "v4-mapped loopback, dotted"],
    ["::ffff:7f00:1", "v4-mapped loopback, hex"],
    ["::ffff:a9fe:a9fe", "v4-mapped metadata, hex"],
    ["::ffff:10.1.2.3", "v4-mapped private"],
    ["::127.0.0.1", "v4-compatible loopback"],
    ["64:ff9b::7f00:1", "NAT64 loopback"],
    ["64:ff9b::10.0.0.1", "NAT64 private"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::", "6to4 of loopback"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["2001::1", "Teredo"],
    ["fec0::1", "site-local (deprecated)"],
    ["100::1", "discard-only"],
    ["0x7f.0.0.1", "hex octet is not an address"],
    ["0177.0.0.1", "octal octet is not an address"],
    ["2130706433", "integer form is not an address"],
    ["127.1", "shortened form is not an address"],
    ["256.1.1.1", "octet out of range"],
    ["localhost", "a name is not an address"],
    ["", "empty"],
    ["1.2.3.4 ", "trailing space"],
    ["1.2.3.4%eth0", "zone on v4"],
  ];
  test.each(forbidden)("%s is forbidden (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  const allowed: [string, string][] = [
    ["8.8.8.8", "public v4"],
    ["93.184.216.34", "public v4"],
    ["172.15.255.255", "just below 172.16/12"],
    ["172.32.0.0", "just above 172.16/12"],
    ["100.63.255.255", "just below CGNAT"],
    ["100.128.0.0", "just above CGNAT"],
    ["198.17.255.255", "just below benchmarking"],
    ["223.255.255.255", "just below multicast"],
    ["11.0.0.1", "just above 10/8"],
    ["2606:4700:4700::1111", "public v6"],
    ["2a00:1450:4001:80b::200e", "public v6"],
    ["::ffff:8.8.8.8", "v4-mapped public"],
    ["64:ff9b::8.8.8.8", "NAT64 of public"],
    ["2002:808:808::1", "6to4 of 8.8.8.8"],
  ];
  test.each(allowed)("%s is public (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe("parseIp", () => {
  test("expands v6 with embedded v4 and brackets", () => {
    expect(Array.from(parseIp("[::ffff:127.0.0.1]")!.bytes)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
    expect(Array.from(parseIp("1:2:3:4:5:6:7:8")!.bytes.slice(14))).toEqual([0, 8]);
  });
  test("non-canonical v4 forms are rejected", () => {
    for (const s of ["0x7f000001", "0x7f.1", "017700000001", "127.0.1", "1.2.3.4.5", "01.2.3.4"]) expect(parseIp(s)).toBeNull();
  });
});

describe("parseAllowList", () => {
  test("names are case-insensitive and lose a trailing dot; IPs become /32 and /128", () => {
    const a = parseAllowList([" Files.Internal. ", "10.1.2.3", "::1", "192.168.0.0/16", "fd00::/8", ""]);
    expect([...a.names]).toEqual(["files.internal"]);
    expect(a.cidrs.map((c) => c.prefix)).toEqual([32, 128, 16, 8]);
  });
  test("a CIDR entry pins addresses inside it only", () => {
    const a = parseAllowList(["192.168.0.0/16", "127.0.0.1/32"]);
    expect(isAddressAllowed(a, "192.168.200.7")).toBe(true);
    expect(isAddressAllowed(a, "192.169.0.1")).toBe(false);
    expect(isAddressAllowed(a, "127.0.0.2")).toBe(false);
    expect(isAddressAllowed(a, "::ffff:127.0.0.1")).toBe(true);
  });
  test("a non-byte-aligned prefix matches exactly its range", () => {
    const a = parseAllowList(["172.16.0.0/12"]);
    expect(isAddressAllowed(a, "172.31.0.1")).toBe(true);
    expect(isAddressAllowed(a, "172.32.0.1")).toBe(false);
  });
  test("invalid entries throw instead of being ignored", () => {
    for (const e of ["10.0.0.0/33", "::1/129", "bad host", "http://x", "0x7f.1", "1.2.3"]) {
      expect(() => parseAllowList([e])).toThrow(/SVC_FETCH_ALLOW_HOSTS/);
    }
  });
});

describe("allow-list entries may name ports", () => {
  const allow = parseAllowList(["files.internal:8443", "10.0.0.5:8080", "[fd00::5]:9000", "10.1.0.0/16", "docs.internal"]);
  test("an entry with a port allows that port only", () => {
    expect(mayConnect(allow, "files.internal", "10.2.2.2", 8443)).toBe(true);
    expect(mayConnect(allow, "files.internal", "10.2.2.2", 8444)).toBe(false);
    expect(mayConnect(allow, "x", "10.0.0.5", 8080)).toBe(true);
    expect(mayConnect(allow, "x", "10.0.0.5", 22)).toBe(false);
    expect(mayConnect(allow, "x", "fd00::5", 9000)).toBe(true);
    expect(mayConnect(allow, "x", "fd00::5", 9001)).toBe(false);
  });
  test("an entry without a port allows every port, as before", () => {
    expect(mayConnect(allow, "docs.internal", "10.3.3.3", 1234)).toBe(true);
    expect(mayConnect(allow, "x", "10.1.2.3", 1234)).toBe(true);
  });
  test("the same name with and without a port: the bare entry wins", () => {
    expect(mayConnect(parseAllowList(["a.internal:80", "a.internal"]), "a.internal", "10.0.0.1", 9)).toBe(true);
    expect(mayConnect(parseAllowList(["a.internal", "a.internal:80"]), "a.internal", "10.0.0.1", 9)).toBe(true);
  });
  test("a port out of range is an invalid entry", () => {
    for (const e of ["x.internal:0", "x.internal:70000", "10.0.0.1:99999"]) expect(() => parseAllowList([e])).toThrow(/SVC_FETCH_ALLOW_HOSTS/);
  });
});

describe("the service's own listeners are never a valid source, whatever the allow list says", () => {
  const own = ownListeners([8081, 9980, 8080]);
  const allow = parseAllowList(["127.0.0.1", "localhost", "127.0.0.0/8", "::1"], own);
  test("this machine's addresses on our ports are refused", () => {
    for (const ip of ["127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "::ffff:127.0.0.1"]) {
      expect(mayConnect(allow, "localhost", ip, 8081)).toBe(false);
      expect(mayConnect(allow, "localhost", ip, 9980)).toBe(false);
      expect(mayConnect(allow, "localhost", ip, 8080)).toBe(false);
    }
  });
  test("other ports of an allowed host stay allowed", () => {
    expect(mayConnect(allow, "127.0.0.1", "127.0.0.1", 5000)).toBe(true);
  });
  test("another machine on the same port number is not us", () => {
    expect(mayConnect(parseAllowList(["10.0.0.0/8"], own), "x", "10.123.45.67", 8081)).toBe(true);
  });
});

describe("mayConnect", () => {
  const allow = parseAllowList(["docs.internal", "10.9.0.0/16"]);
  test("a name entry allows any address of that URL host name only", () => {
    expect(mayConnect(allow, "DOCS.internal", "10.1.1.1")).toBe(true);
    expect(mayConnect(allow, "other.internal", "10.1.1.1")).toBe(false);
  });
  test("a CIDR entry allows internal addresses of any name", () => {
    expect(mayConnect(allow, "x.example", "10.9.3.4")).toBe(true);
  });
  test("public addresses need no entry", () => {
    expect(mayConnect(parseAllowList([]), "example.com", "93.184.216.34")).toBe(true);
  });
  test("garbage is never dialled, even for a listed name", () => {
    expect(mayConnect(allow, "docs.internal", "not-an-ip")).toBe(false);
  });
});
