// Metrics (issue 14): Prometheus text on the internal listener, fed by the real service (real
// workers, a callback receiver on 127.0.0.1). That the proxy keeps them internal: app/proxy.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { AUTH, FIXTURES, enterpriseEnv, form, startTestService, waitForJob, type Harness } from "./testing/harness";
import { until, scaled } from "./testing/until";

const ADMIN_PASSWORD = "metrics-admin-password";
/** HTTP Basic with the admin password (any user name): what a scrape sends. */
const SCRAPE_AUTH = { Authorization: `Basic ${btoa(`prometheus:${ADMIN_PASSWORD}`)}` };
let svc: Harness;
let receiver: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
  svc = await startTestService({
    SVC_DOCBUILDER_WORKERS: "1",
    SVC_FETCH_ALLOW_HOSTS: "127.0.0.1/32",
    SVC_DOCBUILDER_CALLBACK_SECRET: "metrics-test-secret",
    SVC_EDSRV_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...enterpriseEnv({ feat: ["api_full", "callback"], conns: 50 }),
  });
}, scaled(120_000));
afterAll(async () => {
  await svc?.close();
  receiver?.stop(true);
});

const scrape = async (p = "/svc/metrics") => {
  const res = await fetch(`${svc.url}${p}`, { headers: SCRAPE_AUTH });
  expect(res.status).toBe(200);
  return { type: res.headers.get("Content-Type") ?? "", text: await res.text() };
};
/** A sample's value, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("metrics", () => {
  test("metrics are outside v1: only behind the admin password (HTTP Basic): none or a wrong one is 401 unauthorized", async () => {
    for (const p of ["/svc/metrics", "/v1/metrics"]) {
      const none = await fetch(`${svc.url}${p}`);
      expect([none.status, ((await none.json()) as any).error.code, none.headers.get("WWW-Authenticate")]).toEqual([401, "unauthorized", 'Basic realm="svc metrics"']);
      const wrong = await fetch(`${svc.url}${p}`, { headers: { Authorization: `Basic ${btoa("prometheus:wrong")}` } });
      expect(wrong.status).toBe(401);
      expect((await fetch(`${svc.url}${p}`, { headers: SCRAPE_AUTH })).status).toBe(200);
    }
  });

  test("GET /svc/metrics and /v1/metrics answer in Prometheus text format with every series", async () => {
    for (const p of ["/svc/metrics", "/v1/metrics"]) {
      const { type, text } = await scrape(p);
      expect(type).toContain("text/plain");
      expect(type).toContain("version=0.0.4");
      for (const name of [
        "svc_http_requests_total", "svc_http_request_duration_seconds", "svc_docbuilder_job_duration_seconds",
        "svc_callback_deliveries_total", "svc_docbuilder_queue_length", "svc_docbuilder_workers_busy",
        "svc_docbuilder_workers_idle", "svc_docbuilder_worker_restarts", "svc_editing_connections",
        "svc_editing_documents", "svc_embed_open_documents", "svc_embed_sessions",
      ]) expect(text).toContain(`# TYPE ${name} `);
      expect(sample(text, "svc_docbuilder_workers_idle")! + sample(text, "svc_docbuilder_workers_busy")!).toBe(1);
      expect(sample(text, "svc_docbuilder_queue_length")).toBe(0);
    }
  });

  test("requests are counted by route pattern and status, never by raw path", async () => {
    await fetch(`${svc.url}/v1/jobs/job_doesnotexist`, { headers: AUTH });
    await fetch(`${svc.url}/nowhere/secret-token-123`);
    const { text } = await scrape();
    expect(sample(text, 'svc_http_requests_total{route="/v1/jobs/:id",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'svc_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain("job_doesnotexist");
    expect(text).not.toContain("secret-token-123");
  });

  test("a conversion is timed by kind, family and outcome, and its signed callback counted as delivered", async () => {
    const res = await fetch(`${svc.url}/v1/convert`, {
      method: "POST",
      headers: AUTH,
      body: form({ path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" }, { to: "pdf", async: "true", callback_url: `http://127.0.0.1:${receiver.port}/hook` }),
    });
    expect(res.status).toBe(202);
    const job = (await res.json()) as { id: string };
    expect((await waitForJob(svc.url, job.id)).status).toBe("done");
    const key = 'svc_callback_deliveries_total{kind="job",outcome="delivered"}';
    let text = "";
    // The callback is sent after the job is done: its count shows up once it is delivered.
    await until(async () => sample((text = (await scrape("/v1/metrics")).text), key), (v) => v! >= 1, `${key} >= 1`, 10_000);
    expect(sample(text, key)).toBe(1);
    expect(sample(text, 'svc_docbuilder_job_duration_seconds_count{kind="convert",family="text",outcome="done"}')).toBe(1);
    expect(sample(text, 'svc_http_requests_total{route="/v1/convert",method="POST",status="202"}')).toBe(1);
  });
});
