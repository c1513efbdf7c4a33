// A refused `document.url` names the step that refused it (issue 25): every test drives the real
// fetcher against real HTTP(S) servers on 127.0.0.1 (pinned through SVC_FETCH_ALLOW_HOSTS, as an
// operator would) and reads the spec error an integrator gets: code, Vietnamese message, detail.
// The DNS step uses an injected resolver (no test may ask a public DNS server).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceError } from "../errors";
import { fetchErrorToService } from "./fetch-errors";
import { safeFetch, type SafeFetchOptions } from "./safe-fetch";
import { parseAllowList } from "./ssrf";

const server = http.createServer((req, res) => {
  const u = new URL(req.url!, "http://x");
  switch (u.pathname) {
    case "/login":
      res.writeHead(403, { "content-type": "text/html; charset=utf-8" });
      return res.end("<!doctype html><html><body>Sign in</body></html>");
    case "/json404":
      res.writeHead(404, { "content-type": "application/json" });
      return res.end('{"error":"no such file"}');
    case "/big":
      res.writeHead(200, { "content-length": String(5 * 1024 * 1024) });
      return res.end(Buffer.alloc(5 * 1024 * 1024));
    case "/endless": {
      res.writeHead(200);
      const t = setInterval(() => res.write(Buffer.alloc(64 * 1024)), 2);
      res.on("close", () => clearInterval(t));
      return;
    }
    case "/to-private":
      res.writeHead(302, { location: "http://10.1.2.3/secret.docx" });
      return res.end();
    case "/to-ftp":
      res.writeHead(302, { location: "ftp://files.example/x.docx" });
      return res.end();
    case "/loop":
      res.writeHead(302, { location: "/loop" });
      return res.end();
    case "/hang":
      return;
    case "/slow-body": {
      res.writeHead(200);
      const t = setInterval(() => res.write("x"), 40);
      res.on("close", () => clearInterval(t));
      return;
    }
    case "/cut":
      res.writeHead(200, { "content-length": "1000" });
      res.write(Buffer.alloc(100));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
  }
  res.writeHead(200);
  res.end("ok");
});

// A listener that accepts TCP and never says anything: a TLS handshake to it hangs at "connect".
const silent = net.createServer(() => {});

let base = "";
let silentPort = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  silentPort = (silent.address() as net.AddressInfo).port;
});
afterAll(() => {
  server.close();
  silent.close();
});

const pinned = parseAllowList(["127.0.0.1/32"]);
const opts = (o: Partial<SafeFetchOptions> = {}): SafeFetchOptions & { toFile?: undefined } => ({
  allow: pinned,
  maxBytes: 1024 * 1024,
  timeoutMs: 2000,
  followRedirects: 5,
  requireOk: true,
  ...o,
  toFile: undefined,
});

/** What an integrator gets back for a URL: the spec error the gate answers with. */
async function refusal(url: string, o: Partial<SafeFetchOptions> = {}): Promise<ServiceError> {
  const e = await safeFetch(url, opts(o)).then(
    () => null,
    (err) => err,
  );
  expect(e).not.toBeNull();
  const s = fetchErrorToService(e, opts(o).maxBytes);
  expect(s).toBeInstanceOf(ServiceError);
  return s as ServiceError;
}

describe("every fetch failure of document.url names its step in detail", () => {
  test("dns: a name that does not resolve is download_failed, reason dns, with the host", async () => {
    const e = await refusal("http://files.nowhere.test/a.docx", {
      resolver: async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
      },
    });
    expect(e.code).toBe("download_failed");
    expect(e.detail).toMatchObject({ reason: "dns", host: "files.nowhere.test" });
    expect(e.message).toContain("DNS");
  });

  test("connect: a closed port is download_failed, reason connect, with host, port and the socket error", async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = await refusal(`http://127.0.0.1:${port}/a.docx`);
    expect(e.code).toBe("download_failed");
    expect(e.detail).toMatchObject({ reason: "connect", host: "127.0.0.1", port, code: "ECONNREFUSED" });
    expect(e.message).toContain(`cổng ${port}`);
  });

  test("connect during the body: a server hanging up mid-file says how many bytes came", async () => {
    const e = await refusal(`${base}/cut`);
    expect(e.detail).toMatchObject({ reason: "connect", during: "body" });
    expect(Number(e.detail.received_bytes)).toBeGreaterThanOrEqual(0);
  });

  test("status: a non-200 answer gives the status, the body's content type and what its first bytes look like (an HTML sign-in page)", async () => {
    const e = await refusal(`${base}/login`);
    expect(e.code).toBe("download_failed");
    expect(e.detail).toMatchObject({ reason: "status", status: 403, content_type: "text/html", body_kind: "html" });
    expect(e.message).toContain("403");
    expect(e.message).toContain("đăng nhập");
  });

  test("status: a JSON 404 is told apart from an HTML page", async () => {
    const e = await refusal(`${base}/json404`);
    expect(e.detail).toMatchObject({ reason: "status", status: 404, content_type: "application/json", body_kind: "json" });
  });

  test("too large by Content-Length: file_too_large with the limit and the declared size, before the body is read", async () => {
    const e = await refusal(`${base}/big`);
    expect(e.code).toBe("file_too_large");
    expect(e.detail).toMatchObject({ limit_mb: 1, reason: "too_large", declared_bytes: 5 * 1024 * 1024 });
  });

  test("too large while streaming (no Content-Length): file_too_large, no declared size", async () => {
    const e = await refusal(`${base}/endless`);
    expect(e.code).toBe("file_too_large");
    expect(e.detail).toMatchObject({ limit_mb: 1, reason: "too_large" });
    expect(e.detail.declared_bytes).toBeUndefined();
  });

  test("redirect not allowed: a redirect to a private address is url_not_allowed with the rule, the refused block and the hop", async () => {
    const e = await refusal(`${base}/to-private`);
    expect(e.code).toBe("url_not_allowed");
    expect(e.detail).toMatchObject({ rule: "forbidden_address", host: "10.1.2.3", address_range: "10.0.0.0/8 private", redirect_hop: 1 });
    expect(e.message).toContain("10.0.0.0/8");
  });

  test("redirect not allowed: a redirect to another scheme names the scheme rule and the hop", async () => {
    const e = await refusal(`${base}/to-ftp`);
    expect(e.detail).toMatchObject({ rule: "scheme", scheme: "ftp", redirect_hop: 1 });
  });

  test("redirect not allowed: more hops than allowed is too_many_redirects with the limit", async () => {
    const e = await refusal(`${base}/loop`);
    expect(e.detail).toMatchObject({ reason: "too_many_redirects", limit: 5 });
  });

  test("redirect not followed (callbacks): a 3xx is reason redirect with the target host", async () => {
    const e = await refusal(`${base}/to-private`, { followRedirects: 0 });
    expect(e.code).toBe("download_failed");
    expect(e.detail).toMatchObject({ reason: "redirect", status: 302, location_host: "10.1.2.3" });
  });

  test("SSRF rule: a loopback URL without an allow-list entry names the rule and the block it resolved into, not the address of a name", async () => {
    const e = await refusal(`${base}/a.docx`, { allow: parseAllowList([]) });
    expect(e.code).toBe("url_not_allowed");
    expect(e.detail).toMatchObject({ rule: "forbidden_address", host: "127.0.0.1", address_range: "127.0.0.0/8 loopback", literal: true });
  });

  test("SSRF rule: a name resolving to a private address gives the block, and keeps the exact address for the operator only", async () => {
    const err = await safeFetch("http://files.corp.test/a.docx", opts({ allow: parseAllowList([]), resolver: async () => ["192.168.7.9"] })).catch((x) => x);
    expect(err.address).toBe("192.168.7.9");
    const e = fetchErrorToService(err, 1) as ServiceError;
    expect(e.detail).toMatchObject({ rule: "forbidden_address", host: "files.corp.test", address_range: "192.168.0.0/16 private", literal: false });
    expect(JSON.stringify(e.detail)).not.toContain("192.168.7.9");
  });

  test("timeout while connected and waiting for the answer: reason timeout, during answer", async () => {
    const e = await refusal(`${base}/hang`, { timeoutMs: 300 });
    expect(e.detail).toMatchObject({ reason: "timeout", during: "answer", timeoutMs: 300 });
  });

  test("timeout in the middle of the body: during body", async () => {
    const e = await refusal(`${base}/slow-body`, { timeoutMs: 300 });
    expect(e.detail).toMatchObject({ reason: "timeout", during: "body" });
  });

  test("timeout in DNS: during dns", async () => {
    const e = await refusal("http://slow.dns.test/a.docx", { timeoutMs: 200, resolver: () => new Promise(() => {}) });
    expect(e.detail).toMatchObject({ reason: "timeout", during: "dns" });
  });

  test("timeout before the TLS handshake ends: during connect", async () => {
    const e = await refusal(`https://127.0.0.1:${silentPort}/a.docx`, { timeoutMs: 300 });
    expect(e.detail).toMatchObject({ reason: "timeout", during: "connect" });
  });
});

const haveOpenssl = spawnSync("openssl", ["version"]).status === 0;
describe.skipIf(!haveOpenssl)("tls: a certificate the service does not trust", () => {
  let tlsServer: https.Server;
  let port = 0;
  let dir = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-tls-"));
    spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem"), "-days", "1", "-subj", "/CN=files.test"]);
    tlsServer = https.createServer({ key: readFileSync(join(dir, "k.pem")), cert: readFileSync(join(dir, "c.pem")) }, (_q, r) => r.end("x"));
    await new Promise<void>((r) => tlsServer.listen(0, "127.0.0.1", r));
    port = (tlsServer.address() as net.AddressInfo).port;
  });
  afterAll(() => {
    tlsServer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("tls: a self-signed certificate is download_failed, reason tls, with the TLS error code", async () => {
    const e = await refusal(`https://files.test:${port}/a.docx`, { allow: parseAllowList(["files.test"]), resolver: async () => ["127.0.0.1"] });
    expect(e.code).toBe("download_failed");
    expect(e.detail).toMatchObject({ reason: "tls", host: "files.test" });
    expect(String(e.detail.code)).toMatch(/CERT|SELF|TLS|SSL/i);
    expect(e.message).toContain("TLS");
  });
});
