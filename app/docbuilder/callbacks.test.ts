// Signed job callbacks end to end: real service, real worker, a receiver on 127.0.0.1.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { AUTH, FIXTURES, enterpriseEnv, form, startTestService, waitForJob, type Harness } from "../testing/harness";
import { until, scaled } from "../testing/until";

const SECRET = "job-callback-secret-for-tests";

describe("job callbacks", () => {
  let svc: Harness;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = startCallbackReceiver({ secret: SECRET });
    svc = await startTestService({
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_FETCH_ALLOW_HOSTS: "127.0.0.1/32",
      SVC_DOCBUILDER_CALLBACK_SECRET: SECRET,
      ...enterpriseEnv({ feat: ["api_full", "callback"], conns: 50 }),
    }, { callbackRetryDelaysMs: [300, 600] });
  }, scaled(120_000));
  afterAll(async () => {
    await svc?.close();
    receiver?.stop();
  });

  const convert = (file: string, callbackUrl: string) =>
    fetch(`${svc.url}/v1/convert`, {
      method: "POST",
      headers: AUTH,
      body: form({ path: path.join(FIXTURES, file), name: file }, { to: "pdf", async: "true", callback_url: callbackUrl }),
    });

  test("job.done is delivered signed, its job the same object as GET /v1/jobs/{id} (callback state included), and the job shows the delivery state", async () => {
    const res = await convert("hello.docx", `http://127.0.0.1:${receiver.port}/hooks/docbuilder?tenant=7`);
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as any;
    expect(accepted.callback).toMatchObject({ state: "pending", attempts: 0, url_host: `127.0.0.1:${receiver.port}` });
    const done = await waitForJob(svc.url, accepted.id);
    await receiver.waitCount(1, 10_000); // the job.done callback
    const cb = receiver.received.at(-1)!;
    expect(cb.headers["x-svc-event"]).toBe("job.done");
    expect(cb.headers["user-agent"]).toBe("SVC-DocBuilder/1.0");
    expect(cb.headers["x-svc-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(cb.check.ok).toBe(true); // verified with SECRET
    const body = JSON.parse(cb.raw);
    expect(body.event).toBe("job.done");
    expect(body.job).toMatchObject({ id: done.id, kind: "convert", status: "done" });
    expect(body.job.outputs[0].file_id).toBe(done.outputs[0].file_id);
    // Job callback: "the same object" as GET /v1/jobs/{id}, its callback state as it was when sent.
    expect(Object.keys(body.job).sort()).toEqual(Object.keys(done).sort());
    expect(body.job.callback).toMatchObject({ state: "pending", attempts: 0, delivery_id: cb.headers["x-svc-delivery"], url_host: `127.0.0.1:${receiver.port}` });
    // The attempt is recorded once the receiver's answer is read, a moment after the receiver has the body.
    const after: any = await until(
      async () => (await fetch(`${svc.url}/v1/jobs/${done.id}`, { headers: AUTH })).json() as Promise<any>,
      (job) => job.callback?.state !== "pending",
      "the job's callback no longer pending",
      10_000,
    );
    expect(after.callback).toMatchObject({ state: "delivered", attempts: 1, last_status: 200, delivery_id: cb.headers["x-svc-delivery"] });
  });

  test("every attempt carries the job as GET /v1/jobs/{id} answers it when that attempt is sent: its delivery id and the attempts made so far", async () => {
    const before = receiver.received.length;
    receiver.plan.push(500); // the first attempt fails, the retry (300 ms later) is delivered
    const res = await convert("hello.docx", `http://127.0.0.1:${receiver.port}/hooks/retry`);
    expect(res.status).toBe(202);
    const id = ((await res.json()) as any).id as string;
    const [first, second] = (await receiver.waitCount(before + 2, 20_000)).slice(before);
    const delivered: any = await until(
      async () => (await fetch(`${svc.url}/v1/jobs/${id}`, { headers: AUTH })).json() as Promise<any>,
      (job) => job.callback?.state === "delivered",
      "the job's callback delivered",
      10_000,
    );
    const deliveryId = first!.headers["x-svc-delivery"];
    expect(second!.headers["x-svc-delivery"]).toBe(deliveryId);
    expect([first!.status, second!.status]).toEqual([500, 200]);
    const sent = [first!.body.job, second!.body.job];
    // Values, not key names: the delivery id from the first attempt on, the attempts already made.
    expect(sent.map((j) => j.callback)).toEqual([
      { url_host: `127.0.0.1:${receiver.port}`, delivery_id: deliveryId, state: "pending", attempts: 0, last_status: null, last_attempt_at: null, last_error: null },
      { url_host: `127.0.0.1:${receiver.port}`, delivery_id: deliveryId, state: "pending", attempts: 1, last_status: 500, last_attempt_at: expect.any(String), last_error: "status" },
    ]);
    expect(delivered.callback).toMatchObject({ delivery_id: deliveryId, state: "delivered", attempts: 2, last_status: 200 });
    // Everything else of the job is what GET /v1/jobs/{id} answers, value for value.
    const { callback: _c, ...rest } = delivered;
    for (const j of sent) expect({ ...j, callback: undefined }).toEqual({ ...rest, callback: undefined });
  });

  test("job.failed is sent for a job that fails", async () => {
    const before = receiver.received.length;
    const res = await fetch(`${svc.url}/v1/convert`, {
      method: "POST",
      headers: AUTH,
      body: form({ bytes: new Uint8Array([1, 2, 3]), name: "broken.docx" }, { to: "pdf", async: "true", callback_url: `http://127.0.0.1:${receiver.port}/cb` }),
    });
    const job = await waitForJob(svc.url, ((await res.json()) as any).id);
    expect(job.status).toBe("failed");
    await receiver.waitCount(before + 1, 10_000); // the job.failed callback
    const cb = receiver.received.at(-1)!;
    expect(cb.headers["x-svc-event"]).toBe("job.failed");
    expect(JSON.parse(cb.raw).job.error.code).toBe("corrupt_source");
  });

  test("url_not_allowed for a callback_url to a private address, before any work", async () => {
    const res = await convert("hello.docx", "http://10.0.0.5/cb");
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.code).toBe("url_not_allowed");
  });

  test("callback_url needs async=true", async () => {
    const res = await fetch(`${svc.url}/v1/convert`, {
      method: "POST",
      headers: AUTH,
      body: form({ path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" }, { to: "pdf", callback_url: `http://127.0.0.1:${receiver.port}/cb` }),
    });
    expect(res.status).toBe(400);
  });
});
