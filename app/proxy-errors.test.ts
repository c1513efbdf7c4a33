// The proxy's error paths with the repository Caddyfile on real Caddy: only a request whose gate
// check failed falls through to the editing server (fail-open); any other 502-504 stays a 502. In
// Caddy 2.6 two `vars` lines in one matcher are satisfied by EITHER, which sent /v1/ with no
// DocBuilder answering (a Kubernetes cluster whose DocBuilder pods are all down) and /svc/ with
// the gate down to the editing server, answering its 404. Everything on loopback.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort, startCaddy, startRecorder, tryWebSocket, type RunningCaddy } from "../caddy/testing";

describe("proxy error paths", () => {
  let caddy: RunningCaddy;
  const edsrv = startRecorder();

  beforeAll(async () => {
    // Ports nothing listens on: the gate and every DocBuilder instance are down.
    const [gate, db1, db2] = [await freePort(), await freePort(), await freePort()];
    caddy = await startCaddy({ app: `127.0.0.1:${gate}`, edsrv: edsrv.addr, docbuilders: `127.0.0.1:${db1} 127.0.0.1:${db2}`, docbuilderOwner: `127.0.0.1:${db1}` });
  });
  afterAll(async () => {
    await caddy?.stop();
    edsrv.stop();
  });

  test("/v1/ with no DocBuilder instance answering is the spec's 502, never the editing server's answer", async () => {
    edsrv.clear();
    for (const p of ["/v1/status", "/v1/formats", "/v1/jobs/job_00aaaaaaaaaaaaaaaaaaaaaa"]) {
      const res = await fetch(`${caddy.url}${p}`);
      expect({ p, status: res.status }).toEqual({ p, status: 502 });
    }
    expect(edsrv.seen.map((r) => r.rawUri)).toEqual([]);
  });

  test("/svc/ with the gate down is a 502, never the editing server's answer", async () => {
    edsrv.clear();
    expect((await fetch(`${caddy.url}/svc/healthz`)).status).toBe(502);
    expect(edsrv.seen.map((r) => r.rawUri)).toEqual([]);
  });

  test("fail-open stays: with the gate down the editor page and the WebSocket go to the editing server", async () => {
    edsrv.clear();
    const res = await fetch(`${caddy.url}/browser/abc/ed.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Upstream")).toBe("recorder");
    expect(edsrv.seen.map((r) => r.rawUri)).toEqual(["/browser/abc/ed.html"]);
    expect(await tryWebSocket(`${caddy.url.replace("http", "ws")}/ed/doc-1/ws`)).toEqual({ opened: true, echo: "ping-frame" });
    expect(edsrv.last()?.upgraded).toBe(true);
  });
});
