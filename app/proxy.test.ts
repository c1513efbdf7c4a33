// The inner proxy through real Caddy (repository Caddyfile) and the real gate: every row of the
// spec's routing table, the gate check protocol, fail-open; then counting end to end with the real
// editing server's admin channel. Everything on loopback.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CADDYFILE, freePort, rawRequest, startCaddy, startGateFront, startRecorder, tryWebSocket, type RunningCaddy } from "../caddy/testing";
import { ManualClock, systemClock } from "./clock";
import { parseConfig } from "./config";
import { createEdsrv, type Edsrv } from "./edsrv/server";
import { startWopiHost } from "./edsrv/testing/wopi-host";
import { TestSocket, docWsUrl } from "./edsrv/testing/ws-client";
import { ConnectionCounter } from "./gate/counting";
import { EdsrvSampler } from "./gate/sampler";
import { ID_PATTERNS } from "./ids";
import { memoryLogger } from "./log";
import { startTestService, type Harness } from "./testing/harness";
import { until, scaled } from "./testing/until";

const SRC = "http://files.example:8080/wopi/files/165";
const A = encodeURIComponent(`${SRC}?access_token=tok-1&access_token_ttl=0`);
const WS_PATH = `/ed/${A}/ws?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws`;
const upgrade = (port: number, p: string, extra = "") =>
  rawRequest(
    port,
    `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
  );
const statusOf = (raw: string) => Number(raw.split(" ")[1]);

async function expectJson404(res: Response) {
  expect(res.status).toBe(404);
  const body = (await res.json()) as any;
  expect(body.error.code).toBe("not_found");
  expect(body.error.message.length).toBeGreaterThan(5);
  expect(body.error.request_id).toMatch(ID_PATTERNS.request);
  expect(res.headers.get("X-SVC-Request-Id")).toBe(body.error.request_id);
}

describe("inner proxy routing (real Caddy, real gate, recording editing server)", () => {
  let gate: Harness;
  let front: ReturnType<typeof startGateFront>;
  let rec: ReturnType<typeof startRecorder>;
  let caddy: RunningCaddy;

  beforeAll(async () => {
    rec = startRecorder();
    // The gate samples the recorder, which is no admin channel: counting is "down", the gate fails open.
    gate = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", SVC_EDSRV_URL: `http://${rec.addr}`, SVC_EDSRV_ADMIN_PASSWORD: "pw" });
    front = startGateFront(gate.url);
    caddy = await startCaddy({ app: front.addr, edsrv: rec.addr });
  }, scaled(120_000));
  afterAll(async () => {
    await caddy?.stop();
    front?.stop();
    rec?.stop();
    await gate?.close();
  });

  test("/ redirects with 302 to /svc/", async () => {
    const res = await fetch(`${caddy.url}/`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/svc/");
  });

  test("blocked prefixes, internal gate paths and unknown paths are the JSON 404, forwarded nowhere", async () => {
    rec.clear();
    const checks = front.state.all.length;
    const paths = [
      "/browser/dist/admin/admin.html", "/browser/dist/admin", "/browser/abc123/admin/", "/browser/abc123/admin/x/y",
      "/ed/adminws", "/ed/adminws/", "/ed/adminws/x", "/ed/getMetrics", "/ed/getMetrics/", "/ed/convert-to", "/ed/convert-to/pdf",
      "/led/convert-to", "/led/convert-to/", "/ED/AdminWS", "/ed/%61dminws", "/ed/./adminws", "/ed/x/../adminws", "//ed/adminws",
      "/svc/auth", "/svc/auth/", "/SVC/Auth", "/svc/wopi/files/doc_x", "/svc/wopi", "/nowhere", "/browserx", "/svc", "/v1",
    ];
    for (const p of paths) await expectJson404(await fetch(`${caddy.url}${p}`));
    expect(rec.seen).toHaveLength(0);
    expect(front.state.all.length).toBe(checks);
  });

  test("the metrics are internal: /svc/metrics and /v1/metrics are the JSON 404 through the proxy, forwarded nowhere", async () => {
    rec.clear();
    for (const p of ["/svc/metrics", "/v1/metrics", "/SVC/Metrics", "//v1/metrics", "/v1/metrics/", "/svc/metrics?x=1"]) await expectJson404(await fetch(`${caddy.url}${p}`));
    expect(rec.seen).toHaveLength(0);
  });

  test("/svc/ goes to the gate and /v1/ to DocBuilder", async () => {
    const h = await fetch(`${caddy.url}/svc/healthz`);
    expect(await h.json()).toMatchObject({ ok: true });
    expect(h.headers.get("X-SVC-Request-Id")).toMatch(ID_PATTERNS.request);
    expect((await fetch(`${caddy.url}/v1/status`)).status).toBe(200);
  });

  test("client-supplied X-SVC-Stage and X-Original-* never reach the gate or the editing server", async () => {
    const evil = { "X-SVC-Stage": "ws", "X-Original-URI": "/ed/evil/ws", "X-Original-Method": "PUT" };
    const n = front.state.all.length;
    await fetch(`${caddy.url}/svc/healthz`, { headers: evil });
    const toGate = front.state.all.slice(n).find((r) => r.path === "/svc/healthz")!;
    expect(toGate["x-svc-stage"]).toBeUndefined();
    expect(toGate["x-original-uri"]).toBeUndefined();
    rec.clear();
    await fetch(`${caddy.url}/hosting/discovery`, { headers: evil });
    expect(rec.last()!.headers["x-svc-stage"]).toBeUndefined();
    expect(rec.last()!.headers["x-original-method"]).toBeUndefined();
  });

  test("unchecked editing-server paths are forwarded with the raw URI and without Upgrade/Connection: upgrade", async () => {
    rec.clear();
    const raw = "/hosting/discovery?x=%2F%252F";
    const res = await rawRequest(caddy.port, `GET ${raw} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\n\r\n`);
    expect(statusOf(res)).toBe(200);
    expect(rec.last()!.rawUri).toBe(raw);
    expect(rec.last()!.headers.upgrade).toBeUndefined();
    expect((rec.last()!.headers.connection ?? "").toLowerCase()).not.toContain("upgrade");
    for (const p of ["/browser/abc/ed.js", "/hosting/capabilities", "/led/x"]) expect((await fetch(`${caddy.url}${p}`)).headers.get("X-Upstream")).toBe("recorder");
  });

  test("an Upgrade on /browser, /hosting, /ed/, /led/ other than the WebSocket forms is served without its Upgrade headers, unchecked", async () => {
    for (const p of ["/hosting/discovery", "/hosting/capabilities", "/browser/abc/ed.js", "/browser", "/led/x", "/ed/x/wsx", "/ed/wsdoc"]) {
      rec.clear();
      const res = await upgrade(caddy.port, p);
      expect({ p, status: statusOf(res) }).toEqual({ p, status: 200 });
      expect(res).toContain("X-Upstream: recorder");
      const seen: unknown = rec.seen.map((r) => ({ uri: r.rawUri, upgraded: r.upgraded, upgrade: r.headers.upgrade, stage: r.headers["x-svc-stage"] }));
      expect(seen).toEqual([
        { uri: p, upgraded: false, upgrade: undefined, stage: undefined },
      ]);
    }
  });

  test("a WebSocket form the gate cannot parse is refused (403) and never reaches the editing server", async () => {
    rec.clear();
    for (const p of ["/ed/garbage/ws", "/ed/ws", "/ed/ws/", "/ed/garbage/ws/1/x", "/ED/garbage/WS"]) expect({ p, status: statusOf(await upgrade(caddy.port, p)) }).toEqual({ p, status: 403 });
    expect(rec.seen).toHaveLength(0);
  });

  test("the editor page is checked at stage page with the raw URI and method; the form body still reaches the editing server", async () => {
    rec.clear();
    const n = front.state.checks.length;
    const uri = `/browser/abc/ed.html?WOPISrc=${encodeURIComponent(SRC)}&lang=vi`;
    const res = await fetch(`${caddy.url}${uri}`, {
      method: "POST",
      body: "access_token=secret-token&access_token_ttl=0",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-SVC-Stage": "ws", "X-Original-URI": "/other" },
    });
    expect(res.status).toBe(200);
    const check = front.state.checks[n]!;
    expect(check).toMatchObject({ method: "GET", uri: "/svc/auth", body: "", "x-svc-stage": "page", "x-original-uri": uri, "x-original-method": "POST" });
    expect(rec.last()!.body).toBe("access_token=secret-token&access_token_ttl=0");
    expect(rec.last()!.rawUri).toBe(uri);
  });

  test("a WebSocket is checked at stage ws with the RAW URI (a part encoded twice arrives as sent) and then opens", async () => {
    const twice = `/ed/${encodeURIComponent(A)}/ws/?WOPISrc=${encodeURIComponent(encodeURIComponent(SRC))}&compat=/ws`;
    for (const p of [WS_PATH, twice]) {
      rec.clear();
      const n = front.state.checks.length;
      const r = await tryWebSocket(`${caddy.url.replace("http", "ws")}${p}`);
      expect(r).toEqual({ opened: true, echo: "ping-frame" });
      expect(front.state.checks[n]).toMatchObject({ "x-svc-stage": "ws", "x-original-uri": p, "x-original-method": "GET" });
      expect(front.state.checks[n]!.upgrade).toBeUndefined();
      expect(rec.last()!.rawUri).toBe(p);
    }
  });

  test("fail-open: a gate answering 500 lets the WebSocket through", async () => {
    front.state.mode = "500";
    try {
      expect(await tryWebSocket(`${caddy.url.replace("http", "ws")}${WS_PATH}`)).toEqual({ opened: true, echo: "ping-frame" });
      expect(statusOf(await upgrade(caddy.port, "/ed/garbage/ws"))).toBe(101);
    } finally {
      front.state.mode = "pass";
    }
  });

  test("fail-open: a gate answering after the 5 s read timeout lets the WebSocket through", async () => {
    front.state.mode = "slow";
    try {
      expect(await tryWebSocket(`${caddy.url.replace("http", "ws")}${WS_PATH}`)).toEqual({ opened: true, echo: "ping-frame" });
    } finally {
      front.state.mode = "pass";
    }
  }, scaled(20_000));

  test("fail-open: with the gate stopped the editor page and WebSocket go through, and 404s keep the JSON body", async () => {
    const down = await startCaddy({ app: `127.0.0.1:${await freePort()}`, edsrv: rec.addr });
    try {
      expect(await tryWebSocket(`${down.url.replace("http", "ws")}${WS_PATH}`)).toEqual({ opened: true, echo: "ping-frame" });
      expect((await fetch(`${down.url}/browser/abc/ed.html?WOPISrc=x`)).headers.get("X-Upstream")).toBe("recorder");
      await expectJson404(await fetch(`${down.url}/ed/adminws`));
    } finally {
      await down.stop();
    }
  });

  test("a 403 from the gate is final: the refusal reaches the client, not the editing server", async () => {
    rec.clear();
    const res = await upgrade(caddy.port, "/ed/notadocument/ws");
    expect(statusOf(res)).toBe(403);
    expect(res).toContain("unknown_websocket");
    expect(rec.seen).toHaveLength(0);
  });

  test("/v1/ request bodies stream through unbuffered", async () => {
    let firstChunkSeen!: () => void;
    const seen = new Promise<void>((r) => (firstChunkSeen = r));
    const probe = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        // DocBuilder's health check (the proxy asks it of every instance).
        if (new URL(req.url).pathname === "/v1/status") return new Response("{}");
        let n = 0;
        for await (const chunk of req.body!) {
          n += chunk.byteLength;
          firstChunkSeen();
        }
        return new Response(String(n));
      },
    });
    const c = await startCaddy({ app: `127.0.0.1:${probe.port}`, edsrv: rec.addr });
    try {
      // The second half is only sent once the first reached the upstream: a buffering proxy deadlocks.
      const body = new ReadableStream<Uint8Array>({
        async start(ctl) {
          ctl.enqueue(new Uint8Array(64 * 1024));
          await seen;
          ctl.enqueue(new Uint8Array(64 * 1024));
          ctl.close();
        },
      });
      const res = await fetch(`${c.url}/v1/convert`, { method: "POST", body, duplex: "half" } as RequestInit);
      expect(await res.text()).toBe(String(128 * 1024));
    } finally {
      await c.stop();
      probe.stop(true);
    }
  });

  // The configured values themselves (10 h, 11 min) cannot be waited for in a test: the next test
  // reads them from Caddy's adapted configuration. This one proves by a real wait that neither the
  // gate check's 5 s read timeout nor any short default of Caddy applies to an open editing
  // WebSocket or to a slow /v1/ answer.
  test("timeouts, by a real wait: a WebSocket quiet for 7 s stays open and a /v1/ answer after 7 s arrives", async () => {
    const QUIET_MS = 7000;
    const app = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        const p = new URL(req.url).pathname;
        if (p === "/svc/auth") return new Response(null, { status: 204 });
        if (p === "/v1/status") return new Response("{}"); // DocBuilder's health check
        await Bun.sleep(QUIET_MS); // the slow upstream under test, not a wait of the test
        return new Response("late but whole");
      },
    });
    const c = await startCaddy({ app: `127.0.0.1:${app.port}`, edsrv: rec.addr });
    try {
      const quietSocket = new Promise<string>((resolve, reject) => {
        const ws = new WebSocket(`${c.url.replace("http", "ws")}${WS_PATH}`);
        ws.onopen = () => setTimeout(() => ws.send("after the quiet"), QUIET_MS);
        ws.onmessage = (ev) => {
          resolve(String(ev.data));
          ws.close();
        };
        ws.onclose = (ev) => reject(new Error(`closed before the echo (code ${ev.code})`));
      });
      const slowV1 = fetch(`${c.url}/v1/convert`, { method: "POST", body: "x" }).then(async (r) => [r.status, await r.text()]);
      expect(await Promise.all([quietSocket, slowV1])).toEqual(["after the quiet", [200, "late but whole"]]);
    } finally {
      await c.stop();
      app.stop(true);
    }
  }, scaled(20_000));

  test("timeouts: WebSocket read 36000 s on editing paths, /v1/ 660 s, gate check 2 s connect / 5 s read", async () => {
    const proc = Bun.spawnSync(["caddy", "adapt", "--config", CADDYFILE, "--adapter", "caddyfile"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
    const json = proc.stdout.toString();
    const transports: any[] = [];
    JSON.parse(json, (k, v) => {
      if (k === "transport") transports.push(v);
      return v;
    });
    const ns = (s: number) => s * 1e9;
    expect(transports.some((t) => t.read_timeout === ns(36000))).toBe(true);
    expect(transports.some((t) => t.read_timeout === ns(660) && t.response_header_timeout === ns(660))).toBe(true);
    expect(transports.some((t) => t.dial_timeout === ns(2) && t.response_header_timeout === ns(5))).toBe(true);
    expect(json).not.toContain('"buffer_requests":true');
  });
});

describe("counting end to end (real editing server admin channel, real gate, real Caddy)", () => {
  let host: ReturnType<typeof startWopiHost>;
  let ed: Edsrv;
  let gate: Harness;
  let caddy: RunningCaddy;
  let src: string;

  beforeAll(async () => {
    host = startWopiHost();
    ed = await createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "svc-proxy-ed-")), SVC_ONLINE_ALIASGROUP1: host.origin, SVC_EDSRV_ADMIN_PASSWORD: "admin-pw" }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 1,
      autosaveSeconds: 0,
    });
    host.addToken("tok_edit_1", "u1", true, "Alice Secretname");
    host.addToken("tok_edit_2", "u2", true, "Bob");
    host.addToken("tok_view", "u3", false, "Carol");
    src = host.addFile("c1", "secretfile.docx", readFileSync(path.resolve(import.meta.dir, "../fixtures/hello.docx")));
    gate = await startTestService(
      { SVC_DOCBUILDER_WORKERS: "1", SVC_EDSRV_URL: ed.url, SVC_EDSRV_ADMIN_PASSWORD: "admin-pw", SVC_GATE_CONNECTION_CAP: "1" },
      { sampleIntervalMs: 200 },
    );
    caddy = await startCaddy({ app: new URL(gate.url).host, edsrv: new URL(ed.url).host });
  }, scaled(120_000));
  afterAll(async () => {
    await caddy?.stop();
    await gate?.close();
    await ed?.close();
    host?.stop();
  });

  const status = async () => (await (await fetch(`${caddy.url}/svc/status`)).json()) as any;
  const untilStatus = (pred: (s: any) => boolean, what: string): Promise<any> => until(status, pred, `status showed ${what}`, 10_000);

  test("cap reached: a second editing WebSocket is refused with connection_limit_reached, read-only is admitted, the page shows the limit page", async () => {
    await untilStatus((s) => s.upstream.edsrv === "ok" && s.connections.enforcing, "a fresh sample");
    const s1 = new TestSocket(docWsUrl(caddy.url, src, "tok_edit_1"), caddy.url);
    await s1.opened;
    s1.send(`load url=${encodeURIComponent(src)}`);
    await s1.waitText("status:");
    const st = await untilStatus((s) => s.connections.current === 1 && s.connections.pending === 0, "current 1 confirmed");
    expect(st.connections).toMatchObject({ limit: 1, limit_reached: true, source: "adminws", documents: 1, readonly: 0, views_total: 1 });
    expect(st.upstream.edsrv_version).not.toBe("");
    const named = await untilStatus((s) => /\(LibreOffice \d+\.\d+/.test(s.upstream.edsrv_version), "the editing server's engine named");
    expect(named.upstream.edsrv_version).toMatch(/^\S+ \(LibreOffice \d+\.\d+\.\d+/);
    const text = JSON.stringify(st);
    expect(text).not.toContain("Secretname");
    expect(text).not.toContain("secretfile");
    expect(text).not.toContain("admin-pw");

    const port = new URL(caddy.url).port;
    const refused = await upgrade(Number(port), docWsUrl("", src, "tok_edit_2").replace(/^ws/, ""), `Origin: ${caddy.url}\r\n`);
    expect(statusOf(refused)).toBe(403);
    const body = JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4));
    expect(body.error).toMatchObject({ code: "connection_limit_reached", detail: { limit: 1, current: 1, edition: "community" } });

    const ro = new TestSocket(docWsUrl(caddy.url, src, "tok_view", "&permission=readonly"), caddy.url);
    await ro.opened;
    ro.close();

    const page = await fetch(`${caddy.url}/browser/abc/ed.html?WOPISrc=${encodeURIComponent(host.addFile("c2", "b.docx", new Uint8Array(1)))}`);
    expect(page.status).toBe(429);
    const html = await page.text();
    expect(html).toContain("Mở chế độ chỉ đọc");
    expect(html).toContain("Thử lại");
    expect(gate.logLines.join("\n")).not.toContain("tok_edit_2");
    s1.close();
  });

  test("wrong admin password: upstream.edsrv is auth_failed; editing server unreachable: down", async () => {
    const mk = (baseUrl: string, password: string) =>
      new EdsrvSampler({ baseUrl, user: "admin", password, adminWsPath: "/ed/adminws", counter: new ConnectionCounter({ clock: systemClock, limit: () => 1 }), clock: new ManualClock(), logger: memoryLogger(), intervalMs: 100 });
    const wrong = mk(ed.url, "nope");
    const down = mk(`http://127.0.0.1:${await freePort()}`, "admin-pw");
    const right = mk(ed.url, "admin-pw");
    wrong.start();
    down.start();
    right.start();
    try {
      await right.nextSample();
      expect(right.state).toBe("ok");
      await until(() => ({ wrong: wrong.state, downSamples: down.samples }), (v) => v.wrong === "auth_failed" && v.downSamples === 0, "the wrong password's sampler failed its login, the down one sampled nothing", 2_000);
      expect(wrong.state).toBe("auth_failed");
      expect(down.state).toBe("down");
    } finally {
      wrong.stop();
      down.stop();
      right.stop();
    }
  });
});

describe("Caddy's own log lines follow SVC_LOG_LEVEL (real Caddy, recording upstreams)", () => {
  // Before it reads the Caddyfile, `caddy run` writes two lines of its own at info on stderr; no
  // setting reaches them. Every line after them follows the Caddyfile's level.
  const BEFORE_CONFIG = ["using provided configuration", "redirected default logger"];
  const lines = (c: RunningCaddy) => c.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { level: string; msg: string; logger?: string });

  test("with SVC_LOG_LEVEL=warn Caddy writes no info line (health checks of a DocBuilder that does not answer included), with info it does; health probes through the proxy write no line", async () => {
    const rec = startRecorder();
    const dead = `127.0.0.1:${await freePort()}`; // no DocBuilder there: Caddy's active health check fails every 2 s
    const [info, warn] = await Promise.all([
      startCaddy({ app: rec.addr, edsrv: rec.addr, docbuilders: dead, logLevel: "info" }),
      startCaddy({ app: rec.addr, edsrv: rec.addr, docbuilders: dead, logLevel: "warn" }),
    ]);
    try {
      for (const c of [info, warn]) for (const p of ["/svc/healthz", "/svc/status", "/v1/status", "/nowhere"]) await fetch(`${c.url}${p}`);
      // Both started together; two failed health checks at info on one means at least as many ran on the other.
      await until(() => lines(info).filter((l) => l.logger?.includes("health_checker")).length, (n) => n >= 2, "two failed health checks logged at info", 15_000);
      expect(lines(info).some((l) => l.level === "info" && !BEFORE_CONFIG.includes(l.msg))).toBe(true);
      const warnLines = lines(warn);
      expect(warnLines.some((l) => l.level === "warn")).toBe(true); // its output is read
      expect(warnLines.filter((l) => l.level === "info" || l.level === "debug").map((l) => l.msg).filter((m) => !BEFORE_CONFIG.includes(m))).toEqual([]);
      // Probes are no event: no access line for them at any level.
      for (const c of [info, warn]) expect(c.output()).not.toMatch(/\/(svc\/healthz|svc\/status|v1\/status)"/);
    } finally {
      await Promise.all([info.stop(), warn.stop()]);
      rec.stop();
    }
  }, scaled(30_000));
});
