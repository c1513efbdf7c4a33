// Every test talks to servers on loopback only; resolvers are injected so no public DNS is used.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import https from "node:https";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FetchError, type Resolver, checkTarget, safeFetch, type SafeFetchOptions } from "./safe-fetch.ts";
import { parseAllowList } from "./ssrf.ts";
import { until } from "../testing/until";

interface Seen {
  method: string;
  url: string;
  host: string;
  remote: string;
}
const seen: Seen[] = [];
let closedEarly = 0;

const server = http.createServer((req, res) => {
  seen.push({ method: req.method!, url: req.url!, host: req.headers.host ?? "", remote: req.socket.remoteAddress ?? "" });
  const u = new URL(req.url!, "http://x");
  switch (u.pathname) {
    case "/ok":
      return res.end("hello");
    case "/host":
      return res.end(req.headers.host);
    case "/status":
      res.statusCode = Number(u.searchParams.get("code"));
      return res.end("nope");
    case "/redirect":
      res.writeHead(Number(u.searchParams.get("code") ?? 302), { location: u.searchParams.get("to")! });
      return res.end();
    case "/loop":
      res.writeHead(302, { location: "/loop" });
      return res.end();
    case "/exact": {
      const n = Number(u.searchParams.get("n"));
      res.writeHead(200, { "content-length": String(n) });
      return res.end(Buffer.alloc(n, 120));
    }
    case "/claims":
      // Announces a large body, sends a little and stalls: only a header check fails fast.
      res.writeHead(200, { "content-length": u.searchParams.get("n")! });
      res.write("0123456789");
      return;
    case "/forever": {
      // No Content-Length, never ends: only the client's byte limit stops it.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const t = setInterval(() => res.write(Buffer.alloc(16 * 1024, 97)), 2);
      res.on("close", () => {
        clearInterval(t);
        closedEarly++;
      });
      return;
    }
    case "/dribble": {
      res.writeHead(200);
      const t = setInterval(() => res.write("x"), 50);
      res.on("close", () => clearInterval(t));
      return;
    }
    case "/hang":
      return; // never answers
    case "/auth":
      return res.end(req.headers.authorization ?? "none");
    case "/method":
      return res.end(req.method);
    default:
      res.statusCode = 404;
      return res.end();
  }
});

let port = 0;
let base = "";
let dir = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  dir = mkdtempSync(join(tmpdir(), "safe-fetch-"));
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const NONE = parseAllowList([]);
const LOOPBACK_ONE = parseAllowList(["127.0.0.1/32"]);
const opts = (o: Partial<SafeFetchOptions> = {}): SafeFetchOptions & { toFile?: undefined } =>
  ({ allow: LOOPBACK_ONE, maxBytes: 1 << 20, timeoutMs: 5000, followRedirects: 0, ...o }) as SafeFetchOptions & {
    toFile?: undefined;
  };

/** Resolver from a fixed table that counts calls; unknown names fail like NXDOMAIN. */
function fakeDns(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const r = async (host: string) => {
    calls.push(host);
    const a = table[host];
    if (!a) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return a;
  };
  return Object.assign(r, { calls });
}

async function failure(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(FetchError);
    return e as FetchError;
  }
  throw new Error("expected a FetchError, the fetch succeeded");
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("internal addresses are refused unless listed", () => {
  test("loopback URL is refused with an empty allow list, and no request is made", async () => {
    const before = seen.length;
    const e = await failure(safeFetch(`${base}/ok`, opts({ allow: NONE })));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.rule).toBe("forbidden_address");
    expect(e.message).toContain("SVC_FETCH_ALLOW_HOSTS");
    expect(seen.length).toBe(before);
  });

  test("a /32 CIDR entry pins 127.0.0.1", async () => {
    const r = await safeFetch(`${base}/ok`, opts({ allow: parseAllowList(["127.0.0.1/32"]) }));
    expect(r.status).toBe(200);
    expect(text(r.body)).toBe("hello");
  });

  test("a single-IP entry and 127.0.0.0/8 also pin it", async () => {
    for (const entry of ["127.0.0.1", "127.0.0.0/8"]) {
      const r = await safeFetch(`${base}/ok`, opts({ allow: parseAllowList([entry]) }));
      expect(r.status).toBe(200);
    }
  });

  test("a CIDR that does not contain the address does not allow it", async () => {
    const e = await failure(safeFetch(`${base}/ok`, opts({ allow: parseAllowList(["127.0.0.2/32", "10.0.0.0/8"]) })));
    expect(e.kind).toBe("url_not_allowed");
  });

  test("a name entry allows the URL host 'localhost' (system resolver, case-insensitive)", async () => {
    const allow = parseAllowList(["localhost"]);
    const r = await safeFetch(`http://LOCALHOST:${port}/host`, opts({ allow }));
    expect(text(r.body)).toBe(`localhost:${port}`);
  });

  test("without the name entry, 'localhost' is refused because it resolves to loopback", async () => {
    const e = await failure(safeFetch(`http://localhost:${port}/ok`, opts({ allow: NONE })));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.host).toBe("localhost");
  });

  test("a name entry does not allow other names resolving to the same address", async () => {
    const dns = fakeDns({ "evil.test": ["127.0.0.1"] });
    const e = await failure(safeFetch(`http://evil.test:${port}/ok`, opts({ allow: parseAllowList(["localhost"]), resolver: dns })));
    expect(e.kind).toBe("url_not_allowed");
  });
});

describe("DNS is resolved once and the checked address is dialled", () => {
  test("a public-looking name resolving to loopback is refused (rebinding)", async () => {
    const before = seen.length;
    const dns = fakeDns({ "files.example.test": ["127.0.0.1"] });
    const e = await failure(safeFetch(`http://files.example.test:${port}/ok`, opts({ allow: NONE, resolver: dns })));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.host).toBe("files.example.test");
    expect(seen.length).toBe(before);
  });

  test("the connection goes to the resolved address with the original Host header", async () => {
    // files.example.test does not exist in real DNS: a second, system lookup would fail the request.
    const dns = fakeDns({ "files.example.test": ["127.0.0.1"] });
    const r = await safeFetch(`http://files.example.test:${port}/host`, opts({ resolver: dns }));
    expect(text(r.body)).toBe(`files.example.test:${port}`);
    expect(dns.calls).toEqual(["files.example.test"]);
    expect(seen.at(-1)!.remote).toBe("127.0.0.1");
    expect(r.finalUrl).toBe(`http://files.example.test:${port}/host`);
  });

  test("a resolver answering [public, private] is refused: every address is checked", async () => {
    const dns = fakeDns({ "mixed.test": ["93.184.216.34", "10.0.0.5"] });
    const e = await failure(safeFetch(`http://mixed.test:${port}/ok`, opts({ allow: NONE, resolver: dns })));
    expect(e.kind).toBe("url_not_allowed");
  });

  test("a resolver answering [private, public] is refused too", async () => {
    const dns = fakeDns({ "mixed.test": ["192.168.1.1", "93.184.216.34"] });
    const e = await failure(safeFetch(`http://mixed.test:${port}/ok`, opts({ allow: NONE, resolver: dns })));
    expect(e.kind).toBe("url_not_allowed");
  });

  test("DNS failure is download_failed with reason dns", async () => {
    const e = await failure(safeFetch(`http://nowhere.test:${port}/ok`, opts({ resolver: fakeDns({}) })));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.reason).toBe("dns");
  });

  test("when the first checked address refuses, the next checked one is tried", async () => {
    // 127.0.0.2 is loopback but nothing listens there on this port.
    const dns = fakeDns({ "two.test": ["127.0.0.2", "127.0.0.1"] });
    const r = await safeFetch(`http://two.test:${port}/ok`, opts({ allow: parseAllowList(["127.0.0.0/8"]), resolver: dns }));
    expect(r.status).toBe(200);
  });
});

describe("redirects", () => {
  test("every hop is checked: redirect from an allowed server to a forbidden address is refused", async () => {
    const before = seen.length;
    const to = encodeURIComponent("http://169.254.169.254/latest/meta-data/");
    const e = await failure(safeFetch(`${base}/redirect?to=${to}`, opts({ followRedirects: 5 })));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.host).toBe("169.254.169.254");
    expect(seen.length).toBe(before + 1);
  });

  test("a name allowed on the first hop does not carry over to a redirect target name", async () => {
    const dns = fakeDns({ "files.example.test": ["127.0.0.1"], "evil.test": ["127.0.0.1"] });
    const allow = parseAllowList(["files.example.test"]);
    const to = encodeURIComponent(`http://evil.test:${port}/ok`);
    const e = await failure(
      safeFetch(`http://files.example.test:${port}/redirect?to=${to}`, opts({ allow, resolver: dns, followRedirects: 5 })),
    );
    expect(e.kind).toBe("url_not_allowed");
    expect(dns.calls).toEqual(["files.example.test", "evil.test"]);
  });

  test("redirect to a non-http scheme is refused", async () => {
    const e = await failure(safeFetch(`${base}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`, opts({ followRedirects: 5 })));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.rule).toBe("scheme");
  });

  test("an allowed redirect is followed and finalUrl is the last hop", async () => {
    const r = await safeFetch(`${base}/redirect?to=/ok&code=301`, opts({ followRedirects: 1 }));
    expect(r.status).toBe(200);
    expect(text(r.body)).toBe("hello");
    expect(r.finalUrl).toBe(`${base}/ok`);
  });

  test("at most N hops are followed", async () => {
    const before = seen.length;
    const e = await failure(safeFetch(`${base}/loop`, opts({ followRedirects: 3 })));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.reason).toBe("too_many_redirects");
    expect(seen.length - before).toBe(4);
  });

  test("followRedirects 0 returns the 3xx as is when requireOk is false", async () => {
    const r = await safeFetch(`${base}/redirect?to=/ok`, opts({ followRedirects: 0, requireOk: false }));
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/ok");
  });

  test("followRedirects 0 with requireOk is download_failed with the status", async () => {
    const e = await failure(safeFetch(`${base}/redirect?to=/ok`, opts({ followRedirects: 0 })));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.status).toBe(302);
  });

  test("credentials headers are dropped on a cross-origin redirect, kept on same origin", async () => {
    const dns = fakeDns({ "a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"] });
    const o = opts({ resolver: dns, followRedirects: 1, headers: { Authorization: "Bearer t" } });
    const cross = await safeFetch(`http://a.test:${port}/redirect?to=${encodeURIComponent(`http://b.test:${port}/auth`)}`, o);
    expect(text(cross.body)).toBe("none");
    const same = await safeFetch(`http://a.test:${port}/redirect?to=/auth`, o);
    expect(text(same.body)).toBe("Bearer t");
  });

  test("303 after POST continues as GET; 307 keeps POST", async () => {
    const r303 = await safeFetch(`${base}/redirect?to=/method&code=303`, opts({ method: "POST", body: "{}", followRedirects: 1 }));
    expect(text(r303.body)).toBe("GET");
    const r307 = await safeFetch(`${base}/redirect?to=/method&code=307`, opts({ method: "POST", body: "{}", followRedirects: 1 }));
    expect(text(r307.body)).toBe("POST");
  });
});

describe("size limit", () => {
  test("Content-Length above the limit fails before the body is read", async () => {
    const e = await failure(safeFetch(`${base}/claims?n=10000`, opts({ maxBytes: 100, timeoutMs: 2000 })));
    expect(e.kind).toBe("too_large");
    expect(e.detail.limitBytes).toBe(100);
  });

  test("a body of exactly maxBytes is accepted", async () => {
    const r = await safeFetch(`${base}/exact?n=100`, opts({ maxBytes: 100 }));
    expect(r.bytes).toBe(100);
    expect(r.body.length).toBe(100);
  });

  test("without Content-Length an endless body is cut at the limit, not read forever", async () => {
    const closedBefore = closedEarly;
    // too_large, not timeout: the body was cut at the limit while the server was still sending.
    const e = await failure(safeFetch(`${base}/forever`, opts({ maxBytes: 200_000, timeoutMs: 10_000 })));
    expect(e.kind).toBe("too_large");
    await until(() => closedEarly, (n) => n === closedBefore + 1, "the server saw the connection go away");
  });

  test("toFile writes the body to disk", async () => {
    const file = join(dir, "ok.bin");
    const r = await safeFetch(`${base}/exact?n=5000`, { ...opts(), toFile: file });
    expect(r.file).toBe(file);
    expect(r.bytes).toBe(5000);
    expect(readFileSync(file).length).toBe(5000);
  });

  test("toFile removes the partial file when the limit is passed", async () => {
    const file = join(dir, "big.bin");
    const e = await failure(safeFetch(`${base}/forever`, { ...opts({ maxBytes: 100_000 }), toFile: file }));
    expect(e.kind).toBe("too_large");
    expect(existsSync(file)).toBe(false);
  });
});

describe("timeout", () => {
  test("a server that never answers fails after timeoutMs", async () => {
    // The server never answers: only the timeout can end this (a hang fails the test by its own timeout).
    const e = await failure(safeFetch(`${base}/hang`, opts({ timeoutMs: 300 })));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.reason).toBe("timeout");
  });

  test("the timeout covers the body, not only the headers", async () => {
    const e = await failure(safeFetch(`${base}/dribble`, opts({ timeoutMs: 300 })));
    expect(e.detail.reason).toBe("timeout");
  });

  test("the timeout covers DNS resolution", async () => {
    const slow: Resolver = () => new Promise(() => {});
    const e = await failure(safeFetch(`http://slow.test:${port}/ok`, opts({ timeoutMs: 200, resolver: slow })));
    expect(e.detail.reason).toBe("timeout");
  });
});

describe("status", () => {
  test("non-200 is download_failed carrying the status", async () => {
    const e = await failure(safeFetch(`${base}/status?code=404`, opts()));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.status).toBe(404);
  });

  test("201 is not 200: downloads must answer exactly 200", async () => {
    const e = await failure(safeFetch(`${base}/status?code=201`, opts()));
    expect(e.detail.status).toBe(201);
  });

  test("requireOk false returns any status with its body", async () => {
    const r = await safeFetch(`${base}/status?code=500`, opts({ requireOk: false }));
    expect(r.status).toBe(500);
    expect(text(r.body)).toBe("nope");
  });

  test("errors never contain the query string", async () => {
    const e = await failure(safeFetch(`${base}/status?code=404&token=SECRET123`, opts()));
    const f = await failure(safeFetch(`http://10.0.0.1/x?token=SECRET123`, opts({ allow: NONE })));
    for (const err of [e, f]) expect(JSON.stringify({ m: err.message, d: err.detail })).not.toContain("SECRET123");
  });

  test("connect error is download_failed with reason connect", async () => {
    const e = await failure(safeFetch(`http://127.0.0.1:1/ok`, opts()));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.reason).toBe("connect");
  });
});

describe("URL forms", () => {
  // Each of these points at the test server, so a broken check would succeed, not fail quietly.
  const loopbackForms = () => [
    `http://[::ffff:127.0.0.1]:${port}/ok`,
    `http://[::ffff:7f00:1]:${port}/ok`,
    `http://2130706433:${port}/ok`,
    `http://0x7f.1:${port}/ok`,
    `http://0x7f000001:${port}/ok`,
    `http://0177.0.0.1:${port}/ok`,
    `http://127.1:${port}/ok`,
    `http://[::1]:${port}/ok`,
    `http://0.0.0.0:${port}/ok`,
  ];
  test("IPv4-mapped IPv6 and decimal/hex/octal IPv4 hosts are refused", async () => {
    for (const u of loopbackForms()) {
      const e = await failure(safeFetch(u, opts({ allow: NONE })));
      expect(e.kind).toBe("url_not_allowed");
    }
  });

  test("cloud metadata addresses are refused", async () => {
    for (const u of ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://100.100.100.200/"]) {
      const e = await failure(safeFetch(u, opts({ allow: NONE, timeoutMs: 500 })));
      expect(e.kind).toBe("url_not_allowed");
    }
  });

  test("credentials in the URL are refused", async () => {
    const e = await failure(safeFetch(`http://user:pass@127.0.0.1:${port}/ok`, opts()));
    expect(e.kind).toBe("url_not_allowed");
    expect(e.detail.rule).toBe("credentials");
    expect(e.message).not.toContain("pass");
  });

  test("only http and https schemes are allowed", async () => {
    for (const u of ["file:///etc/passwd", "ftp://example.com/x", `gopher://127.0.0.1:${port}/`, "data:text/plain,hi", "javascript:alert(1)"]) {
      const e = await failure(safeFetch(u, opts()));
      expect(e.kind).toBe("url_not_allowed");
      expect(e.detail.rule).toBe("scheme");
    }
  });

  test("an unparsable URL is url_not_allowed", async () => {
    const e = await failure(safeFetch("http://", opts()));
    expect(e.detail.rule).toBe("bad_url");
  });
});

const haveOpenssl = Bun.which("openssl") !== null;
describe.skipIf(!haveOpenssl)("https pins the address and checks the certificate against the name", () => {
  let tlsServer: https.Server;
  let tlsPort = 0;
  let cert = "";
  beforeAll(async () => {
    const key = join(dir, "key.pem");
    const crt = join(dir, "cert.pem");
    const gen = Bun.spawnSync([
      "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt, "-days", "1",
      "-subj", "/CN=files.example.test", "-addext", "subjectAltName=DNS:files.example.test",
    ]);
    if (gen.exitCode !== 0) throw new Error("openssl failed: " + gen.stderr.toString());
    cert = readFileSync(crt, "utf8");
    tlsServer = https.createServer({ key: readFileSync(key), cert }, (req, res) => {
      res.end(`${req.headers.host} sni=${(req.socket as unknown as { servername?: string }).servername}`);
    });
    await new Promise<void>((r) => tlsServer.listen(0, "127.0.0.1", r));
    tlsPort = (tlsServer.address() as { port: number }).port;
  });
  afterAll(() => {
    tlsServer?.closeAllConnections();
    tlsServer?.close();
  });

  test("SNI and Host carry the name while the checked IP is dialled", async () => {
    const dns = fakeDns({ "files.example.test": ["127.0.0.1"] });
    const r = await safeFetch(`https://files.example.test:${tlsPort}/`, opts({ resolver: dns, ca: cert }));
    expect(text(r.body)).toBe(`files.example.test:${tlsPort} sni=files.example.test`);
    expect(dns.calls.length).toBe(1);
  });

  test("a certificate for another name is rejected", async () => {
    const dns = fakeDns({ "other.test": ["127.0.0.1"] });
    const e = await failure(safeFetch(`https://other.test:${tlsPort}/`, opts({ resolver: dns, ca: cert })));
    expect(e.kind).toBe("download_failed");
    expect(e.detail.reason).toBe("tls");
  });

  test("an untrusted certificate is rejected", async () => {
    const dns = fakeDns({ "files.example.test": ["127.0.0.1"] });
    const e = await failure(safeFetch(`https://files.example.test:${tlsPort}/`, opts({ resolver: dns })));
    expect(e.detail.reason).toBe("tls");
  });
});

describe("checkTarget: the SSRF rules on a URL given now and used later (callback URLs)", () => {
  const resolveTo = (ips: string[]): Resolver => async () => ips;
  const refused = async (p: Promise<void>) => {
    try {
      await p;
    } catch (e) {
      return e instanceof FetchError ? { kind: e.kind, rule: e.detail.rule } : { kind: String(e), rule: undefined };
    }
    return null;
  };
  test("a name resolving to an internal address is refused; a public one passes", async () => {
    expect(await refused(checkTarget("https://hooks.example.test/cb", parseAllowList([]), { resolver: resolveTo(["10.1.2.3"]) }))).toEqual({ kind: "url_not_allowed", rule: "forbidden_address" });
    expect(await refused(checkTarget("https://hooks.example.test/cb", parseAllowList([]), { resolver: resolveTo(["93.184.216.34", "::1"]) }))).toEqual({ kind: "url_not_allowed", rule: "forbidden_address" });
    expect(await refused(checkTarget("https://hooks.example.test/cb", parseAllowList([]), { resolver: resolveTo(["93.184.216.34"]) }))).toBeNull();
    expect(await refused(checkTarget("http://10.0.0.5/cb", parseAllowList(["10.0.0.0/8"]), { resolver: resolveTo([]) }))).toBeNull();
  });
  test("a name that does not resolve now is not refused (it is checked again when used); bad shapes are", async () => {
    expect(await refused(checkTarget("https://later.example.test/cb", parseAllowList([]), { resolver: async () => [] }))).toBeNull();
    expect(await refused(checkTarget("ftp://x.example.test/cb", parseAllowList([])))).toEqual({ kind: "url_not_allowed", rule: "scheme" });
    expect(await refused(checkTarget("http://u:p@x.example.test/cb", parseAllowList([])))).toEqual({ kind: "url_not_allowed", rule: "credentials" });
  });
});
