// Counting and admission end to end: the real editing server (kits, admin channel) with a loopback
// WOPI host, and the real gate sampling it every 100 ms and answering /svc/auth over HTTP. The
// gate's clock is driven, so the spec's own windows (pending 60 s, grace 120 s, stale after 3
// periods) are checked at their edges without waiting for them. No proxy here: app/proxy.test.ts
// covers the path through Caddy.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ManualClock } from "../clock";
import { parseConfig } from "../config";
import { createEdsrv, type Edsrv } from "../edsrv/server";
import { startWopiHost } from "../edsrv/testing/wopi-host";
import { TestSocket, docWsUrl } from "../edsrv/testing/ws-client";
import { memoryLogger } from "../log";
import { startTestService, type Harness } from "../testing/harness";
import { until, scaled } from "../testing/until";
import { PENDING_TTL_MS, RECONNECT_GRACE_MS, STALE_AFTER_PERIODS } from "./counting";

const PERIOD_MS = 100;
const PASSWORD = "e2e-admin-pw";
const HELLO = readFileSync(path.resolve(import.meta.dir, "../../fixtures/hello.docx"));

describe("counting end to end (real editing server, real gate, driven clock)", () => {
  let host: ReturnType<typeof startWopiHost>;
  let ed: Edsrv;
  let edClosed = false;
  let edDir: string;
  let gate: Harness;
  const clock = new ManualClock(Date.now());
  /** The same WOPI host under a second name of its alias group. */
  let aliasOrigin: string;

  beforeAll(async () => {
    host = startWopiHost();
    aliasOrigin = host.origin.replace("127.0.0.1", "localhost");
    const groups = { SVC_ONLINE_ALIASGROUP1: `${host.origin},${aliasOrigin}` };
    edDir = mkdtempSync(path.join(tmpdir(), "svc-count-ed-"));
    for (const t of ["tok_a", "tok_a2", "tok_h1", "tok_h2"]) host.addToken(t, t, true);
    // Both start at once (engines warm up in parallel), so the editing server's port is chosen first.
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const edPort = probe.port;
    probe.stop(true);
    [ed, gate] = await Promise.all([
      createEdsrv({
        config: parseConfig({ SVC_DATA_DIR: edDir, SVC_EDSRV_ADMIN_PASSWORD: PASSWORD, ...groups }),
        logger: memoryLogger("warn"),
        listen: { hostname: "127.0.0.1", port: edPort },
        idleKits: 2,
        autosaveSeconds: 0,
      }),
      // The cap is 2: two views of one document fill it.
      startTestService(
        { SVC_DOCBUILDER_WORKERS: "1", SVC_EDSRV_URL: `http://127.0.0.1:${edPort}`, SVC_EDSRV_ADMIN_PASSWORD: PASSWORD, SVC_GATE_CONNECTION_CAP: "2", ...groups },
        { clock, sampleIntervalMs: PERIOD_MS },
      ),
    ]);
  }, scaled(120_000));

  afterAll(async () => {
    await gate?.close();
    if (!edClosed) await ed?.close();
    host?.stop();
    rmSync(edDir, { recursive: true, force: true });
  });

  const status = async () => (await (await fetch(`${gate.url}/svc/status`)).json()) as any;
  const untilStatus = (pred: (s: any) => boolean, what: string): Promise<any> => until(status, pred, `/svc/status showed ${what}`, 10_000);
  /** What the proxy asks before a document WebSocket: 204 admits, 403 refuses. */
  async function auth(src: string, token: string): Promise<{ status: number; error?: any }> {
    const res = await fetch(`${gate.url}/svc/auth`, { headers: { "X-SVC-Stage": "ws", "X-Original-URI": docWsUrl("", src, token), "X-Original-Method": "GET" } });
    const text = await res.text();
    return { status: res.status, error: text ? JSON.parse(text).error : undefined };
  }
  /** Admitted by the gate, then opened on the editing server as a browser would. */
  async function open(src: string, token: string): Promise<TestSocket> {
    expect((await auth(src, token)).status).toBe(204);
    const s = new TestSocket(docWsUrl(ed.url, src, token), ed.url);
    await s.opened;
    sockets.push(s);
    s.send(`load url=${encodeURIComponent(src)}`);
    await s.waitText("status:");
    return s;
  }
  /** Moves the gate's clock, then waits for a sample taken at the new time. */
  async function advance(ms: number) {
    clock.advance(ms);
    if (!edClosed) await gate.sampler.nextSample();
  }
  const sockets: TestSocket[] = [];

  // Each test starts from nothing open, nothing pending, no grace slot and no remembered session,
  // whatever the previous one left (even when it failed half-way).
  beforeEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await untilStatus((s) => s.upstream.edsrv === "ok" && s.connections.enforcing && s.connections.current === 0, "a fresh sample with no editing view");
    await advance(RECONNECT_GRACE_MS);
    expect((await status()).connections).toMatchObject({ current: 0, pending: 0, enforcing: true });
  });

  test("pending expiry: a session admitted by /svc/auth but never opened leaves pending after 60 s, not before", async () => {
    expect(await auth(host.addFile("never", "never.docx", HELLO), "tok_never")).toEqual({ status: 204 });
    expect((await status()).connections).toMatchObject({ current: 0, pending: 1 });
    await advance(PENDING_TTL_MS - 1);
    await gate.sampler.nextSample(); // samples keep coming and never confirm it
    expect((await status()).connections).toMatchObject({ current: 0, pending: 1, enforcing: true });
    await advance(1);
    expect((await status()).connections).toMatchObject({ current: 0, pending: 0, enforcing: true, limit_reached: false });
  });

  test("alias group: a session opened through a host alias is confirmed by the editing server's sample of the same document", async () => {
    const src = host.addFile("h", "h.docx", HELLO);
    const viaAlias = src.replace(host.origin, aliasOrigin);
    await open(src, "tok_h1");
    await open(viaAlias, "tok_h2");
    // Keyed by its alias, the second admission would stay pending and count twice for 60 s.
    expect((await untilStatus((s) => s.connections.current === 2, "two editing views")).connections).toMatchObject({ current: 2, pending: 0, documents: 1 });
  });

  test("grace: at the cap a reconnect within 120 s of the views closing is admitted; at 120 s it is refused", async () => {
    const d = host.addFile("d", "d.docx", HELLO);
    const a1 = await open(d, "tok_a");
    const a2 = await open(d, "tok_a2");
    await untilStatus((s) => s.connections.current === 2 && s.connections.pending === 0, "two editing views confirmed");
    a1.close();
    a2.close();
    // The sample that sees both views gone opens two slots for the document, from now on.
    await untilStatus((s) => s.connections.current === 0, "the views closed");
    await advance(RECONNECT_GRACE_MS - 1);
    // Two new sessions on other documents fill the cap.
    expect((await auth(host.addFile("e1", "e1.docx", HELLO), "tok_e1")).status).toBe(204);
    expect((await auth(host.addFile("e2", "e2.docx", HELLO), "tok_e2")).status).toBe(204);
    expect((await status()).connections).toMatchObject({ limit: 2, current: 0, pending: 2, limit_reached: true, enforcing: true });
    const other = await auth(host.addFile("g", "g.docx", HELLO), "tok_g");
    expect(other).toMatchObject({ status: 403, error: { code: "connection_limit_reached", detail: { limit: 2, current: 2, edition: "community" } } });
    expect((await auth(d, "tok_a2")).status).toBe(204); // the same session coming back
    expect((await auth(d, "tok_c")).status).toBe(204); // a new one on the document's slot
    await advance(1);
    expect((await status()).connections).toMatchObject({ limit_reached: true, enforcing: true });
    expect(await auth(d, "tok_d")).toMatchObject({ status: 403, error: { code: "connection_limit_reached" } });
    expect((await auth(d, "tok_a")).status).toBe(403);
    const reasons = gate.logLines.filter((l) => l.includes('"gate_decision"')).map((l) => JSON.parse(l).reason);
    expect(reasons.slice(-5)).toEqual(["limit", "reconnect", "grace", "limit", "limit"]);
  });

  test("stale samples: with the editing server stopped, past 3 periods the gate stops enforcing and admits (fail open)", async () => {
    expect((await auth(host.addFile("x1", "x1.docx", HELLO), "tok_x1")).status).toBe(204);
    expect((await auth(host.addFile("x2", "x2.docx", HELLO), "tok_x2")).status).toBe(204);
    const x3 = host.addFile("x3", "x3.docx", HELLO);
    expect((await auth(x3, "tok_x3")).status).toBe(403);
    edClosed = true;
    await ed.close();
    const down = await untilStatus((s) => s.upstream.edsrv === "down", "the editing server down");
    // The last sample is still fresh: the cap holds.
    expect(down.connections).toMatchObject({ enforcing: true, source: "adminws", pending: 2 });
    await advance(STALE_AFTER_PERIODS * PERIOD_MS - 1);
    expect((await auth(x3, "tok_x3")).status).toBe(403);
    await advance(1);
    const stale = await status();
    expect(stale.upstream.edsrv).toBe("down");
    expect(stale.connections).toMatchObject({ enforcing: false, source: "none", sample_age_seconds: 0 });
    expect((await auth(x3, "tok_x3")).status).toBe(204);
    expect(JSON.parse(gate.logLines.filter((l) => l.includes('"gate_decision"')).at(-1)!).reason).toBe("not_enforcing");
  });
});
