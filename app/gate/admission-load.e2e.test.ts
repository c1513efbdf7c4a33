// Admission does not depend on the machine's load (spec counting rule 3, issue 34 D1): the real
// gate samples a stand-in admin channel that reports an editing server whose typing lags far past
// any target — a forced signal, so the outcome never depends on how busy the machine running this
// is. Refusing below the cap under load exists only as an operator setting outside v1, and even
// then every figure reported is the effective cap.

import { afterEach, describe, expect, test } from "bun:test";
import { MIN_SAMPLES, SATURATED_P95_MS } from "./editor-load";
import { startTestService, type Harness } from "../testing/harness";
import { until } from "../testing/until";
import { startStandInAdmin } from "./testing";

const CAP = 3;
const OPEN_SRC = "http://files.example:8080/wopi/files/open";
const newSrc = (n: number) => `http://files.example:8080/wopi/files/new${n}`;

/** Collabora's admin channel as our editing server speaks it: one document with one editor, typing that waits 400 ms. */
function saturatedEditingServer() {
  let lagAsked = 0;
  const openDoc = `{"pid":1,"docKey":"${encodeURIComponent(OPEN_SRC)}","wopiSrc":"${OPEN_SRC}","views":[{"userName":"A","userId":"a","sessionid":"s1","readonly":"0"}]}`;
  const lag = { p95Ms: SATURATED_P95_MS * 8, samples: MIN_SAMPLES * 10, windowMs: 5000, lastMsAgo: 10 };
  const admin = startStandInAdmin((ws, msg) => {
    if (msg === "documents") ws.send(`documents {"documents":[${openDoc}]}`);
    if (msg === "svc_input_lag") {
      lagAsked++;
      ws.send(`svc_input_lag ${JSON.stringify(lag)}`);
    }
  });
  return { url: admin.url, lagAsked: () => lagAsked, stop: admin.stop };
}

describe("admission under the editing server's load", () => {
  let ed: ReturnType<typeof saturatedEditingServer> | undefined;
  let gate: Harness | undefined;
  afterEach(async () => {
    await gate?.close();
    ed?.stop();
  });

  async function start(env: Record<string, string> = {}) {
    ed = saturatedEditingServer();
    gate = await startTestService(
      { SVC_DOCBUILDER_WORKERS: "1", SVC_EDSRV_URL: ed.url, SVC_EDSRV_ADMIN_PASSWORD: "pw", SVC_GATE_CONNECTION_CAP: String(CAP), ...env },
      { sampleIntervalMs: 100 },
    );
    // A sample holding the open document and, when the setting reads it, a lag reading after it.
    const readsLag = env.SVC_GATE_REFUSE_WHEN_SATURATED === "1";
    const seen = ed.lagAsked();
    await until(async () => ({ status: (await (await fetch(`${gate!.url}/svc/status`)).json()) as any, lag: ed!.lagAsked() }), (v) => v.status.connections.current === 1 && (!readsLag || v.lag > seen), "a sample with one editor (and a lag reading after it)");
    return gate;
  }
  async function auth(src: string, token: string): Promise<{ status: number; error?: any }> {
    const uri = `/ed/${encodeURIComponent(`${src}?access_token=${token}&access_token_ttl=0`)}/ws?WOPISrc=${encodeURIComponent(src)}&compat=/ws`;
    const res = await fetch(`${gate!.url}/svc/auth`, { headers: { "X-SVC-Stage": "ws", "X-Original-URI": uri, "X-Original-Method": "GET" } });
    const text = await res.text();
    return { status: res.status, error: text ? JSON.parse(text).error : undefined };
  }

  test("counting rule 3: a new editing session is admitted while current + pending < limit, however slowly the editing server answers typing", async () => {
    const g = await start();
    expect(await auth(newSrc(1), "t1")).toEqual({ status: 204 });
    expect(await auth(newSrc(2), "t2")).toEqual({ status: 204 });
    // current 1 + pending 2 = the cap: the next one is refused, and the refusal names the cap.
    expect(await auth(newSrc(3), "t3")).toMatchObject({ status: 403, error: { code: "connection_limit_reached", detail: { limit: CAP, current: CAP } } });
    expect(g.logLines.join("\n")).not.toContain("admission_saturated");
    expect(ed!.lagAsked()).toBe(0); // the load is not even read
  });

  test("SVC_GATE_REFUSE_WHEN_SATURATED (outside v1, off by default): new editors are refused below the cap, and the refusal still reports the effective cap", async () => {
    const g = await start({ SVC_GATE_REFUSE_WHEN_SATURATED: "1" });
    expect(await auth(newSrc(1), "t1")).toMatchObject({ status: 403, error: { code: "connection_limit_reached", detail: { limit: CAP, current: 1 } } });
    expect(g.logLines.join("\n")).toContain("admission_saturated");
    const status = (await (await fetch(`${g.url}/svc/status`)).json()) as any;
    expect(status.connections).toMatchObject({ limit: CAP, current: 1 });
  });
});
