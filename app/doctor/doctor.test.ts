// `svc doctor` (issue 25): every check fails when its cause is present and holds when it is not.
// Configurations go through the service's own parser; outside parties (a callback receiver, a
// file server, a stand-in gate, editing server and proxy) are real HTTP servers on 127.0.0.1.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { ownListeners } from "../net/own-listeners";
import { parseAllowList } from "../net/ssrf";
import { checkCallback } from "./callback-test";
import { parseArgs } from "./cli";
import { checkClock } from "./clock";
import { checkDataDir } from "./data-dir";
import { checkDocument } from "./document-test";
import { checkHost } from "./host";
import { checkLicense } from "./license";
import { checkReachability } from "./reachability";
import { formatReport, runDoctor } from "./run";
import { checkAliasGroups, checkAllowedOrigins, checkDevMode, checkPublicUrl, checkSecrets } from "./settings";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { scaled } from "../testing/until";

const SECRET = "doctor-callback-secret-0123456789abcdef";
let dir: string;
/** What the receiver answers (/moved: a redirect). */
let receiverStatus = 200;
let receiver: CallbackReceiver;
/** What the receiver got: whether each signature held, and the body's key. */
const received = () => receiver.received.map((cb) => ({ ok: cb.check.ok, key: cb.body?.key }));
let files: ReturnType<typeof Bun.serve>;
let fakeGate: ReturnType<typeof Bun.serve>;
let deadPort = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "svc-doctor-"));
  receiver = startCallbackReceiver({
    secret: SECRET,
    respond: (cb) =>
      cb.path === "/moved" ? new Response(null, { status: 301, headers: { location: "https://app.example/cb" } }) : new Response("ok", { status: receiverStatus }),
  });
  files = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (new URL(req.url).pathname === "/a.docx" ? new Response("PK..", { headers: { "content-type": "application/octet-stream" } }) : new Response("<html>login</html>", { status: 403, headers: { "content-type": "text/html" } })) });
  // A gate, an editing server and a proxy as the flows see them (the real ones are tested in their own suites).
  fakeGate = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const p = new URL(req.url).pathname;
      if (p === "/svc/healthz") return Response.json({ ok: true, edsrv: "auth_failed" });
      if (p === "/hosting/discovery") return new Response('<wopi-discovery><net-zone name="external-http"/></wopi-discovery>', { headers: { "content-type": "text/xml" } });
      return new Response("no", { status: 404 });
    },
  });
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  deadPort = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
});
afterAll(() => {
  receiver.stop();
  files.stop(true);
  fakeGate.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const config = (env: Record<string, string> = {}) => parseConfig({ SVC_DATA_DIR: dir, SVC_LICENSE_FILE: path.join(dir, "none.token"), ...env });
const PROD = {
  SVC_DEV_MODE: "0",
  SVC_PUBLIC_URL: "https://office.example.com",
  SVC_EMBED_JWT_SECRET: "j".repeat(40),
  SVC_EMBED_CALLBACK_SECRET: "c".repeat(40),
};

describe("settings", () => {
  test("alias groups: a wrong alias group 1 (not the gate) fails and names the gate's address as the fix", () => {
    const bad = checkAliasGroups(config({ SVC_APP_LISTEN: "127.0.0.1:8081", SVC_ONLINE_ALIASGROUP1: "http://10.9.9.9:8081" }));
    expect(bad.status).toBe("fail");
    expect(bad.fix).toContain("SVC_ONLINE_ALIASGROUP1=http://127.0.0.1:8081");
    expect(checkAliasGroups(config({ SVC_APP_LISTEN: "127.0.0.1:8081", SVC_ONLINE_ALIASGROUP1: "http://127.0.0.1:9999" })).status).toBe("fail");
    expect(checkAliasGroups(config({ SVC_APP_LISTEN: "127.0.0.1:8081", SVC_ONLINE_ALIASGROUP1: "http://localhost:8081,https://other\\.example" })).status).toBe("ok");
    expect(checkAliasGroups(config({ SVC_APP_LISTEN: "127.0.0.1:8081" })).status).toBe("ok");
  });

  test("public URL: a loopback or path-carrying SVC_PUBLIC_URL fails in production; a mismatched server name fails", () => {
    expect(checkPublicUrl(config({ ...PROD, SVC_PUBLIC_URL: "http://127.0.0.1:8080" })).status).toBe("fail");
    expect(checkPublicUrl(config({ ...PROD, SVC_PUBLIC_URL: "https://office.example.com/svc" })).fix).toBe("Set SVC_PUBLIC_URL=https://office.example.com.");
    expect(checkPublicUrl(config({ ...PROD, SVC_ONLINE_SERVER_NAME: "other.example.com" })).status).toBe("fail");
    expect(checkPublicUrl(config(PROD)).status).toBe("ok");
  });

  test("allowed origins: an entry with a path or a trailing slash is not an origin and fails with the corrected list", () => {
    const f = checkAllowedOrigins(config({ SVC_EMBED_ALLOWED_ORIGINS: "https://app.example.com/,https://b.example.com/page,https://ok.example.com" }));
    expect(f.status).toBe("fail");
    expect(f.fix).toBe("Write them as origins: https://app.example.com,https://b.example.com.");
    expect(checkAllowedOrigins(config({ SVC_EMBED_ALLOWED_ORIGINS: "https://ok.example.com" })).status).toBe("ok");
  });

  test("secrets: missing or too short for production fails, naming the setting", () => {
    const missing = checkSecrets(config({ ...PROD, SVC_EMBED_JWT_SECRET: "" }));
    expect(missing.find((f) => f.id === "settings.embed_jwt_secret")!.status).toBe("fail");
    const short = checkSecrets(config({ ...PROD, SVC_EMBED_CALLBACK_SECRET: "short" }));
    expect(short.find((f) => f.id === "settings.embed_callback_secret")).toMatchObject({ status: "fail", facts: { length: 5 } });
    expect(checkSecrets(config(PROD)).every((f) => f.status === "ok")).toBe(true);
    // Development needs none of them.
    expect(checkSecrets(config({ SVC_DEV_MODE: "1" })).every((f) => f.status === "ok")).toBe(true);
  });

  test("dev mode: on inside the image fails; off, or outside the image, holds", () => {
    expect(checkDevMode(config({ SVC_DEV_MODE: "1" }), true).status).toBe("fail");
    expect(checkDevMode(config({ SVC_DEV_MODE: "0" }), true).status).toBe("ok");
    expect(checkDevMode(config({ SVC_DEV_MODE: "1" }), false).status).toBe("ok");
  });
});

describe("processes reachable from each other", () => {
  test("reachability: a gate, editing server and proxy that do not answer fail, each with where it was asked", async () => {
    const f = await checkReachability(config(), { gate: `http://127.0.0.1:${deadPort}`, edsrv: `http://127.0.0.1:${deadPort}`, proxy: `http://127.0.0.1:${deadPort}` }, scaled(1000));
    expect(f.map((x) => [x.id, x.status])).toEqual([
      ["reach.gate", "fail"],
      ["reach.edsrv", "fail"],
      ["reach.proxy", "fail"],
    ]);
  });

  test("reachability: everything answering holds, and a gate whose sample says auth_failed names the admin password", async () => {
    const u = `http://127.0.0.1:${fakeGate.port}`;
    const f = await checkReachability(config(), { gate: u, edsrv: u, proxy: u }, scaled(1000));
    expect(f.filter((x) => x.id !== "reach.gate_to_edsrv").every((x) => x.status === "ok")).toBe(true);
    expect(f.find((x) => x.id === "reach.gate_to_edsrv")).toMatchObject({ status: "fail" });
    expect(f.find((x) => x.id === "reach.gate_to_edsrv")!.fix).toContain("SVC_EDSRV_ADMIN_PASSWORD");
  });

  test("reachability: the gate is asked for a sample of the editing server taken now, not its last one (an editing server started after the gate's last try)", async () => {
    // The gate's last sample predates the editing server; one taken now finds it.
    const gate = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const u = new URL(req.url);
        if (u.pathname === "/svc/healthz") return Response.json({ ok: true, edsrv: u.searchParams.get("edsrv") === "fresh" ? "ok" : "down" });
        if (u.pathname === "/hosting/discovery") return new Response("<wopi-discovery/>", { headers: { "content-type": "text/xml" } });
        return new Response("no", { status: 404 });
      },
    });
    try {
      const u = `http://127.0.0.1:${gate.port}`;
      const f = await checkReachability(config(), { gate: u, edsrv: u, proxy: u }, scaled(1000));
      expect(f.find((x) => x.id === "reach.gate_to_edsrv")).toMatchObject({ status: "ok" });
    } finally {
      gate.stop(true);
    }
  });
});

describe("this machine", () => {
  test("host: the fonts the setup installs are all found, however many files come before them", () => {
    // Noto's hundreds of files are read before Liberation's: a scan that stopped early missed it.
    expect(checkHost().find((f) => f.id === "host.fonts")).toMatchObject({ status: "ok" });
  });

  test("host: LibreOffice, fonts and dictionaries missing fail or warn with the package to install", () => {
    const f = checkHost({ libreoffice: path.join(dir, "no-lo"), fonts: [path.join(dir, "no-fonts")], dictionaries: path.join(dir, "no-dicts") });
    expect(f.map((x) => [x.id, x.status])).toEqual([
      ["host.libreoffice", "fail"],
      ["host.fonts", "fail"],
      ["host.dictionaries", "warn"],
    ]);
    expect(f[2]!.fix).toContain("hunspell-vi");
  });

  test("data directory full: free space below the threshold fails with disk_full's fix; a writable directory with room holds", () => {
    const full = checkDataDir(dir, Number.MAX_SAFE_INTEGER);
    expect(full.find((x) => x.id === "data_dir.free_space")).toMatchObject({ status: "fail" });
    expect(full.find((x) => x.id === "data_dir.free_space")!.fix).toContain("Free space");
    const fine = checkDataDir(dir, 1);
    expect(fine.map((x) => x.status)).toEqual(["ok", "ok"]);
  });

  test("data directory not writable: a path under a regular file cannot be created and fails", () => {
    const file = path.join(dir, "a-file");
    Bun.write(file, "x");
    const f = checkDataDir(path.join(file, "data"), 1);
    expect(f[0]).toMatchObject({ id: "data_dir.writable", status: "fail" });
  });

  test("clock: a reference whose Date header is far off fails; the service's own clock holds", async () => {
    const skewed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("", { headers: { date: new Date(Date.now() - 3600_000).toUTCString() } }) });
    try {
      const bad = await checkClock([{ name: "ref", url: `http://127.0.0.1:${skewed.port}/` }]);
      expect(bad.status).toBe("fail");
      expect((bad.facts!.skew_s as Record<string, number>).ref).toBeGreaterThan(3000);
      expect((await checkClock([{ name: "gate", url: `http://127.0.0.1:${fakeGate.port}/svc/healthz` }])).status).toBe("ok");
      expect((await checkClock([])).status).toBe("warn");
    } finally {
      skewed.stop(true);
    }
  });

  test("license: none is the community edition (holds); a broken token fails and says what to replace", () => {
    expect(checkLicense(config()).status).toBe("ok");
    const f = checkLicense(config({ SVC_LICENSE_TOKEN: "not-a-token" }));
    expect(f).toMatchObject({ status: "fail", facts: { state: "invalid" } });
  });
});

describe("--callback: a signed test callback", () => {
  const allow = parseAllowList(["127.0.0.1/32"]);
  test("callback: a receiver answering 2xx holds, with status and latency; it got a signed body it can verify", async () => {
    receiver.received.length = 0;
    receiverStatus = 204;
    const f = await checkCallback(`http://127.0.0.1:${receiver.port}/cb`, { secret: SECRET, allow });
    expect(f).toMatchObject({ status: "ok", facts: { status: 204, signed: true } });
    expect(typeof f.facts!.latency_ms).toBe("number");
    expect(received()[0]).toMatchObject({ ok: true, key: "svc-doctor-test" });
  });

  test("callback: an unreachable receiver fails with the connect step", async () => {
    const f = await checkCallback(`http://127.0.0.1:${deadPort}/cb`, { secret: SECRET, allow });
    expect(f).toMatchObject({ status: "fail", facts: { reason: "connect", code: "ECONNREFUSED" } });
  });

  test("callback: a 401 names the shared secret; a redirect is not followed and fails", async () => {
    receiverStatus = 401;
    expect((await checkCallback(`http://127.0.0.1:${receiver.port}/cb`, { secret: "wrong", allow })).fix).toContain("SVC_EMBED_CALLBACK_SECRET");
    receiverStatus = 200;
    const moved = await checkCallback(`http://127.0.0.1:${receiver.port}/moved`, { secret: SECRET, allow });
    expect(moved).toMatchObject({ status: "fail", facts: { status: 301 } });
  });

  test("callback: a private receiver the rules refuse fails with the rule, before anything is sent", async () => {
    receiver.received.length = 0;
    const f = await checkCallback(`http://127.0.0.1:${receiver.port}/cb`, { secret: SECRET, allow: parseAllowList([]) });
    expect(f).toMatchObject({ status: "fail", facts: { rule: "forbidden_address", address_range: "127.0.0.0/8 loopback" } });
    expect(received()).toHaveLength(0);
  });
});

describe("--document: the gate's fetch under the SSRF rules", () => {
  test("document: a private address is refused with the rule, the block and (for the operator) the exact address", async () => {
    const f = await checkDocument(`http://127.0.0.1:${files.port}/a.docx`, { allow: parseAllowList([], ownListeners([8081])), maxBytes: 1 << 20, timeoutMs: 2000 });
    expect(f).toMatchObject({ status: "fail", facts: { rule: "forbidden_address", address_range: "127.0.0.0/8 loopback", address: "127.0.0.1" } });
    expect(f.fix).toContain(`SVC_FETCH_ALLOW_HOSTS`);
  });

  test("document: a listed file server answering 200 holds; a sign-in page names the status step", async () => {
    const allow = parseAllowList(["127.0.0.1/32"]);
    expect((await checkDocument(`http://127.0.0.1:${files.port}/a.docx`, { allow, maxBytes: 1 << 20, timeoutMs: 2000 })).status).toBe("ok");
    const f = await checkDocument(`http://127.0.0.1:${files.port}/private.docx`, { allow, maxBytes: 1 << 20, timeoutMs: 2000 });
    expect(f).toMatchObject({ status: "fail", facts: { reason: "status", status: 403, body_kind: "html" } });
  });
});

describe("the whole run", () => {
  test("exit code: ok only when every check holds; --json has every finding with its fix", async () => {
    const c = config({ SVC_DEV_MODE: "1" });
    const good = await runDoctor(c, { offline: true, inImage: false, minFreeMb: 1, host: { libreoffice: "/usr/lib/libreoffice/program", fonts: ["/usr/share/fonts"], dictionaries: "/usr/share/hunspell" }, callbackUrl: undefined });
    const failed = good.findings.filter((f) => f.status === "fail");
    // Only this machine's packages may differ from the image's; the configuration itself holds.
    expect(failed.filter((f) => !f.id.startsWith("host."))).toEqual([]);
    const bad = await runDoctor(config({ SVC_DEV_MODE: "1", SVC_ONLINE_ALIASGROUP1: "http://10.9.9.9:1" }), { offline: true, inImage: false, minFreeMb: 1 });
    expect(bad.ok).toBe(false);
    expect(formatReport(bad)).toContain("FAIL settings.alias_groups");
    expect(JSON.parse(JSON.stringify(bad)).findings.find((f: { id: string }) => f.id === "settings.alias_groups").fix).toContain("SVC_ONLINE_ALIASGROUP1");
  });

  test("cli: arguments are parsed; an unknown one is refused", () => {
    expect(parseArgs(["--json", "--callback", "https://a/cb", "--document", "https://b/x.docx", "--min-free-mb", "10"])).toEqual({
      json: true,
      options: { callbackUrl: "https://a/cb", documentUrl: "https://b/x.docx", minFreeMb: 10 },
    });
    expect("error" in parseArgs(["--what"])).toBe(true);
  });

  test("cli: `bun run doctor --json` exits 1 with a wrong alias group and prints JSON naming it", async () => {
    const p = Bun.spawn(["bun", "run", path.resolve(import.meta.dir, "cli.ts"), "--json", "--offline", "--min-free-mb", "1"], {
      env: { PATH: process.env.PATH!, HOME: dir, SVC_DATA_DIR: dir, SVC_DEV_MODE: "1", SVC_ONLINE_ALIASGROUP1: "http://10.9.9.9:1", SVC_LICENSE_FILE: path.join(dir, "none") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(1);
    const report = JSON.parse(out);
    expect(report.ok).toBe(false);
    expect(report.findings.find((f: { id: string }) => f.id === "settings.alias_groups").status).toBe("fail");
  });
});
