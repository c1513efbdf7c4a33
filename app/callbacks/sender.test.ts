// The callback sender against a real HTTP receiver on 127.0.0.1 (allowed through the allow list),
// with the time between attempts injected: no test waits for the real 10 s / 60 s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../clock";
import { memoryLogger } from "../log";
import { parseAllowList } from "../net/ssrf";
import {
  CallbackSender,
  type CallbackFetch,
  type CallbackSenderOptions,
  type Delivery,
  type DeliveryState,
  type Sleep,
} from "./sender";
import { signPayload, verifyCallback } from "./verify";
import { startCallbackReceiver, type CallbackReceiver } from "../testing/callback-receiver";
import { until } from "../testing/until";

const SECRET = "cb-secret-7f3a9c";
const BODY_MARKER = "body-marker-e41d";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Where a request went: /cb/<id>/<mode>, or /target/<id> (a redirect's target). */
function route(path: string) {
  const [, area, id, mode] = new URL(path, "http://receiver").pathname.split("/");
  return { area: area!, id: id!, mode };
}
// The receiver's clock is the one the sender signs with (set per test).
let receiverNow = () => Date.now();

let receiver: CallbackReceiver;
let base = "";
// The "slow1" receiver holds its first answer until the test lets it go: an answer slower than any
// attempt timeout, without a sleep standing for "slow".
let slowAnswer = Promise.withResolvers<void>();

/** Everything the receiver saw for one test id, each with its path as /<area>/<id>. */
const hitsOf = (id: string) =>
  receiver.received.filter((h) => route(h.path).id === id).map((h) => ({ ...h, path: `/${route(h.path).area}/${id}` }));

beforeAll(() => {
  receiver = startCallbackReceiver({
    secret: SECRET,
    now: () => receiverNow(),
    async respond(cb) {
      const { area, id, mode } = route(cb.path);
      const n = hitsOf(id).length;
      if (area === "target") return new Response("redirect target", { status: 200 });
      switch (mode) {
        case "ok":
          return new Response("thanks", { status: 200 });
        case "accepted":
          return new Response(null, { status: 204 });
        case "fail":
          return new Response("broken", { status: 500 });
        case "flaky2":
          return n <= 2 ? new Response("not yet", { status: 500 }) : new Response("ok", { status: 202 });
        case "redirect":
          return new Response(null, { status: 302, headers: { location: `${base}/target/${id}` } });
        case "bigbody":
          return new Response("x".repeat(200_000), { status: 200 });
        case "slow1":
          if (n === 1) await slowAnswer.promise;
          return new Response("late", { status: 200 });
        default:
          return new Response("no such mode", { status: 404 });
      }
    },
  });
  base = receiver.origin;
});

afterAll(() => receiver.stop());

let seq = 0;
const newId = () => `t${++seq}`;

/** An injected timer: records each requested wait and moves the clock by it, returning at once. */
function harness(extra: Partial<CallbackSenderOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 9, 0, 0));
  receiverNow = () => clock.now();
  const delays: number[] = [];
  const sleep: Sleep = async (ms) => {
    delays.push(ms);
    clock.advance(ms);
  };
  const logger = memoryLogger("debug");
  const sender = new CallbackSender({
    allow: parseAllowList(["127.0.0.1/32"]),
    logger,
    clock,
    sleep,
    ...extra,
  });
  return { clock, delays, logger, sender };
}

function docDelivery(url: string, over: Partial<Delivery> = {}): Delivery {
  return {
    kind: "document",
    event: "document.saved",
    url,
    secret: SECRET,
    body: {
      status: "saved",
      key: "doc-1",
      version: 3,
      title: `Báo cáo ${BODY_MARKER}`,
      users: [{ id: "u1", name: "Lan" }],
      timestamp: "2026-01-15T09:00:00.000Z",
    },
    ...over,
  };
}

test("a 2xx answer counts as delivered even when its body is over the read limit (the body is ignored)", async () => {
  const { sender } = harness();
  const id = newId();
  const st = await sender.send(docDelivery(`${base}/cb/${id}/bigbody`));
  expect(st).toMatchObject({ state: "delivered", attempts: 1, last_status: 200 });
  expect(hitsOf(id)).toHaveLength(1);
});

const parsedLogs = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("signPayload / verifyCallback", () => {
  test("signature is sha256= + lowercase hex HMAC-SHA256(key, timestamp.rawBody)", () => {
    // Vector computed independently with: printf '1700000000.' | cat - b.json | openssl dgst -sha256 -hmac test-secret
    const sig = signPayload("test-secret", 1700000000, '{"key":"doc-1","version":3}');
    expect(sig).toBe("sha256=c33058c87d00374724272bf66b24c18a55c74504aefd2a1809366edc26ba5fc8");
    expect(signPayload("test-secret", "1700000000", new TextEncoder().encode('{"key":"doc-1","version":3}'))).toBe(sig);
  });

  test.skipIf(!Bun.which("openssl"))("the openssl recipe of docs/callbacks.md gives the same signature", () => {
    const body = `{"event":"job.done","job":{"id":"job_1","title":"Tiếng Việt"}}`;
    const dir = mkdtempSync(join(tmpdir(), "cb-openssl-"));
    const bodyFile = join(dir, "body.json");
    writeFileSync(bodyFile, body);
    const r = Bun.spawnSync(
      ["bash", "-c", `printf '%s.' "$TS" | cat - "$BODY_FILE" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1`],
      { env: { ...Bun.env, TS: "1700000123", SECRET, BODY_FILE: bodyFile } },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(`sha256=${r.stdout.toString().trim()}`).toBe(signPayload(SECRET, 1700000123, body));
  });

  const now = Date.UTC(2026, 0, 15, 9, 0, 0);
  const ts = Math.floor(now / 1000);
  const raw = new TextEncoder().encode('{"status":"saved","key":"doc-1","version":3}');
  const headers = (t: number, sig = signPayload(SECRET, t, raw)) => ({
    "x-svc-timestamp": String(t),
    "x-svc-signature": sig,
    "x-svc-event": "document.saved",
    "x-svc-delivery": "6f1c1f8e-58b4-4e0a-9d1e-0e5b0a7d2c11",
  });

  test("accepts an untouched body with the right secret, reporting event and delivery id", () => {
    const r = verifyCallback({ secret: SECRET, headers: new Headers(headers(ts)), rawBody: raw, now });
    expect(r).toEqual({ ok: true, timestamp: ts, event: "document.saved", deliveryId: "6f1c1f8e-58b4-4e0a-9d1e-0e5b0a7d2c11" });
  });

  test("rejects a tampered body", () => {
    const tampered = new TextEncoder().encode('{"status":"saved","key":"doc-1","version":4}');
    expect(verifyCallback({ secret: SECRET, headers: headers(ts), rawBody: tampered, now })).toEqual({ ok: false, reason: "bad_signature" });
  });

  test("rejects a wrong secret", () => {
    expect(verifyCallback({ secret: SECRET + "x", headers: headers(ts), rawBody: raw, now })).toEqual({ ok: false, reason: "bad_signature" });
  });

  test("rejects a timestamp 301 s old (and 301 s ahead) but accepts one 300 s old", () => {
    expect(verifyCallback({ secret: SECRET, headers: headers(ts - 301), rawBody: raw, now })).toEqual({ ok: false, reason: "timestamp_out_of_window" });
    expect(verifyCallback({ secret: SECRET, headers: headers(ts + 301), rawBody: raw, now })).toEqual({ ok: false, reason: "timestamp_out_of_window" });
    expect(verifyCallback({ secret: SECRET, headers: headers(ts - 300), rawBody: raw, now }).ok).toBe(true);
  });

  test("rejects a signature made for another timestamp (timestamp is part of the signed text)", () => {
    const h = headers(ts, signPayload(SECRET, ts - 1, raw));
    expect(verifyCallback({ secret: SECRET, headers: h, rawBody: raw, now })).toEqual({ ok: false, reason: "bad_signature" });
  });

  test("rejects missing or malformed signature and timestamp headers, and an empty receiver key", () => {
    const h = headers(ts);
    expect(verifyCallback({ secret: SECRET, headers: { ...h, "x-svc-signature": undefined }, rawBody: raw, now })).toEqual({ ok: false, reason: "missing_signature" });
    expect(verifyCallback({ secret: SECRET, headers: { ...h, "x-svc-timestamp": undefined }, rawBody: raw, now })).toEqual({ ok: false, reason: "missing_timestamp" });
    expect(verifyCallback({ secret: SECRET, headers: { ...h, "x-svc-timestamp": "17e8" }, rawBody: raw, now })).toEqual({ ok: false, reason: "bad_timestamp" });
    expect(verifyCallback({ secret: SECRET, headers: { ...h, "x-svc-signature": h["x-svc-signature"].toUpperCase() }, rawBody: raw, now })).toEqual({ ok: false, reason: "bad_signature" });
    expect(verifyCallback({ secret: "", headers: h, rawBody: raw, now })).toEqual({ ok: false, reason: "no_secret" });
  });
});

describe("CallbackSender", () => {
  test("document callback: POST with event, delivery UUID, timestamp, content type, SVC-Gate/1.0 and a signature over the raw bytes", async () => {
    const { sender, delays, clock } = harness();
    const id = newId();
    const d = docDelivery(`${base}/cb/${id}/ok`);
    const final = await sender.send(d);

    expect(final.state).toBe("delivered");
    expect(final.attempts).toBe(1);
    expect(final.last_status).toBe(200);
    expect(delays).toEqual([]);
    const [hit, ...more] = hitsOf(id);
    expect(more).toHaveLength(0);
    expect(hit!.method).toBe("POST");
    expect(hit!.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(hit!.headers["user-agent"]).toBe("SVC-Gate/1.0");
    expect(hit!.headers["x-svc-event"]).toBe("document.saved");
    expect(hit!.headers["x-svc-delivery"]).toMatch(UUID);
    expect(hit!.headers["x-svc-delivery"]).toBe(final.delivery_id);
    expect(hit!.headers["x-svc-timestamp"]).toBe(String(Math.floor(clock.now() / 1000)));
    expect(hit!.headers["x-svc-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(hit!.check.ok).toBe(true);
    // The bytes on the wire are JSON.stringify(body), UTF-8.
    expect(hit!.raw).toBe(JSON.stringify(d.body));
  });

  test("job callback: SVC-DocBuilder/1.0, job event, any 2xx is success", async () => {
    const { sender } = harness();
    const id = newId();
    const final = await sender.send({
      kind: "job",
      event: "job.failed",
      url: `${base}/cb/${id}/accepted`,
      secret: SECRET,
      body: { event: "job.failed", job: { id: "job_0123456789abcdef01234567", status: "failed" } },
    });
    expect(final).toMatchObject({ state: "delivered", attempts: 1, last_status: 204 });
    const hit = hitsOf(id)[0]!;
    expect(hit.headers["user-agent"]).toBe("SVC-DocBuilder/1.0");
    expect(hit.headers["x-svc-event"]).toBe("job.failed");
    expect(hit.check.ok).toBe(true);
  });

  test("no X-SVC-Signature header when the secret is empty", async () => {
    const { sender } = harness();
    const id = newId();
    const final = await sender.send(docDelivery(`${base}/cb/${id}/ok`, { secret: "", event: "document.closed" }));
    expect(final.state).toBe("delivered");
    const hit = hitsOf(id)[0]!;
    expect("x-svc-signature" in hit.headers).toBe(false);
    expect(hit.headers["x-svc-timestamp"]).toMatch(/^[0-9]+$/);
    expect(hit.headers["x-svc-delivery"]).toMatch(UUID);
    expect(hit.check).toEqual({ ok: false, reason: "missing_signature" });
  });

  test("fails twice (500) then 2xx: 3 attempts, same delivery id, same body bytes, re-signed per attempt, delivered; onState after every attempt", async () => {
    const { sender, delays } = harness();
    const id = newId();
    const states: DeliveryState[] = [];
    const final = await sender.send({
      kind: "job",
      event: "job.done",
      url: `${base}/cb/${id}/flaky2`,
      secret: SECRET,
      body: { event: "job.done", job: { id: "job_0123456789abcdef01234567", status: "done" } },
      onState: (s) => states.push(s),
    });

    expect(final).toMatchObject({ state: "delivered", attempts: 3, last_status: 202, last_error: null });
    expect(delays).toEqual([10_000, 60_000]);
    const seen = hitsOf(id);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((h) => h.headers["x-svc-delivery"]))).toEqual(new Set([final.delivery_id]));
    expect(new Set(seen.map((h) => Buffer.from(h.bytes).toString("base64"))).size).toBe(1);
    const stamps = seen.map((h) => Number(h.headers["x-svc-timestamp"]));
    expect(stamps[1]! - stamps[0]!).toBe(10);
    expect(stamps[2]! - stamps[1]!).toBe(60);
    expect(new Set(seen.map((h) => h.headers["x-svc-signature"])).size).toBe(3);
    for (const h of seen) expect(h.check.ok).toBe(true);

    expect(states.map((s) => [s.state, s.attempts, s.last_status])).toEqual([
      ["pending", 0, null],
      ["pending", 1, 500],
      ["pending", 2, 500],
      ["delivered", 3, 202],
    ]);
    expect(states[3]!.last_attempt_at).toBe(new Date(Date.UTC(2026, 0, 15, 9, 1, 10)).toISOString());
    for (const s of states) expect(s.delivery_id).toBe(final.delivery_id);
  });

  test("always failing: attempts at 0, +10 s, +60 s, then failed with one ERROR callback_failed line that holds no secret, body or query", async () => {
    const { sender, delays, logger } = harness();
    const id = newId();
    const states: DeliveryState[] = [];
    const final = await sender.send(
      docDelivery(`${base}/cb/${id}/fail?token=query-secret-99`, { requestId: "req_00112233aabbccdd", onState: (s) => states.push(s) }),
    );

    expect(final).toMatchObject({ state: "failed", attempts: 3, last_status: 500, last_error: "status" });
    expect(hitsOf(id)).toHaveLength(3);
    expect(delays).toEqual([10_000, 60_000]);
    expect(states.map((s) => s.state)).toEqual(["pending", "pending", "pending", "failed"]);

    const logs = parsedLogs(logger.lines);
    const errors = logs.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      event: "callback_failed",
      callback_event: "document.saved",
      kind: "document",
      delivery_id: final.delivery_id,
      attempts: 3,
      last_status: 500,
      url: `${base}/cb/${id}/fail`,
      request_id: "req_00112233aabbccdd",
    });
    expect(logs.filter((l) => l.event === "callback_attempt_failed")).toHaveLength(2);
    const all = logger.lines.join("\n");
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(BODY_MARKER);
    expect(all).not.toContain("query-secret-99");
    expect(all).not.toContain("sha256=");
  });

  test("every pending state after a failed attempt names the next attempt's time; none once delivered or failed", async () => {
    const { sender } = harness();
    const id = newId();
    const states: DeliveryState[] = [];
    await sender.send(docDelivery(`${base}/cb/${id}/flaky2`, { onState: (s) => states.push(s) }));
    expect(states.map((s) => s.next_attempt_at)).toEqual([null, "2026-01-15T09:00:10.000Z", "2026-01-15T09:01:10.000Z", null]);
  });

  test("a resumed delivery (after a restart) keeps its id, waits for the attempt that was due, then follows the schedule with the attempts left", async () => {
    const { sender, delays, clock } = harness();
    const id = newId();
    const deliveryId = "0b7e0d8c-3f7a-4d6e-9c2b-5a1e2f3d4c5b";
    const states: DeliveryState[] = [];
    const final = await sender.send(
      docDelivery(`${base}/cb/${id}/fail`, {
        onState: (s) => states.push(s),
        resume: { delivery_id: deliveryId, attempts: 1, last_status: 500, last_attempt_at: "2026-01-15T08:59:55.000Z", last_error: "status", next_attempt_at: clock.now() + 5000 },
      }),
    );
    // 5 s left of the first wait, then the 60 s one: two attempts, three in all.
    expect(delays).toEqual([5000, 60_000]);
    expect(final).toMatchObject({ delivery_id: deliveryId, state: "failed", attempts: 3 });
    expect(hitsOf(id)).toHaveLength(2);
    for (const h of hitsOf(id)) expect(h.headers["x-svc-delivery"]).toBe(deliveryId);
    expect(states[0]).toMatchObject({ state: "pending", attempts: 1, last_status: 500, next_attempt_at: "2026-01-15T09:00:05.000Z" });
  });

  test("a resumed delivery whose attempt is overdue goes at once; one that never made an attempt follows the full schedule", async () => {
    const { sender, delays, clock } = harness();
    const overdue = newId();
    const st = await sender.send(
      docDelivery(`${base}/cb/${overdue}/ok`, {
        resume: { delivery_id: "1b7e0d8c-3f7a-4d6e-9c2b-5a1e2f3d4c5b", attempts: 2, last_status: 503, last_attempt_at: null, last_error: "status", next_attempt_at: clock.now() - 1000 },
      }),
    );
    expect(delays).toEqual([]);
    expect(st).toMatchObject({ state: "delivered", attempts: 3 });
    const fresh = newId();
    const st2 = await sender.send(
      docDelivery(`${base}/cb/${fresh}/fail`, {
        resume: { delivery_id: "2b7e0d8c-3f7a-4d6e-9c2b-5a1e2f3d4c5b", attempts: 0, last_status: null, last_attempt_at: null, last_error: null, next_attempt_at: null },
      }),
    );
    expect(delays).toEqual([10_000, 60_000]);
    expect(st2).toMatchObject({ state: "failed", attempts: 3, delivery_id: "2b7e0d8c-3f7a-4d6e-9c2b-5a1e2f3d4c5b" });
  });

  test("a 302 is not followed and counts as a failed attempt", async () => {
    const { sender } = harness();
    const id = newId();
    const final = await sender.send(docDelivery(`${base}/cb/${id}/redirect`));
    expect(final).toMatchObject({ state: "failed", attempts: 3, last_status: 302, last_error: "redirect" });
    const seen = hitsOf(id);
    expect(seen).toHaveLength(3);
    expect(seen.every((h) => h.path === `/cb/${id}`)).toBe(true); // the redirect target was never hit
  });

  test("an answer slower than the attempt timeout counts as a failed attempt (then the retry succeeds)", async () => {
    const { sender, delays } = harness({ attemptTimeoutMs: 300 });
    const id = newId();
    slowAnswer = Promise.withResolvers<void>();
    let answered = false;
    void slowAnswer.promise.then(() => (answered = true));
    const states: DeliveryState[] = [];
    const final = await sender.send(docDelivery(`${base}/cb/${id}/slow1`, { onState: (s) => states.push(s) }));
    expect(answered).toBe(false); // did not wait for the slow answer: it is still held
    slowAnswer.resolve();
    expect(final).toMatchObject({ state: "delivered", attempts: 2, last_status: 200 });
    expect(states[1]).toMatchObject({ state: "pending", attempts: 1, last_status: null, last_error: "timeout" });
    expect(delays).toEqual([10_000]);
  });

  test("default attempt timeout is 10 s; redirects are never followed; answers are not required to be 200", async () => {
    const calls: Parameters<CallbackFetch>[1][] = [];
    const fetchImpl: CallbackFetch = async (_url, opts) => {
      calls.push(opts);
      return { status: 201 };
    };
    const { sender } = harness({ fetchImpl });
    const final = await sender.send(docDelivery("https://receiver.example/cb"));
    expect(final.state).toBe("delivered");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ timeoutMs: 10_000, followRedirects: 0, requireOk: false, method: "POST", userAgent: "SVC-Gate/1.0" });
    expect(calls[0]!.maxBytes).toBeLessThanOrEqual(1024 * 1024);
  });

  test("a callback target refused by the SSRF rules still gets 3 attempts in total per the retry schedule (0 s, +10 s, +60 s), nothing sent, then failed with one ERROR line", async () => {
    const calls: string[] = [];
    // The real SSRF check (safeFetch), counted: every attempt is checked and refused, none connects.
    const { safeFetch } = await import("../net/safe-fetch");
    const fetchImpl: CallbackFetch = (url, o) => {
      calls.push(url);
      return safeFetch(url, o);
    };
    const { sender, delays, logger } = harness({ fetchImpl });
    const states: DeliveryState[] = [];
    const final = await sender.send(docDelivery("http://10.1.2.3/cb", { onState: (s) => states.push(s) }));
    expect(final).toMatchObject({ state: "failed", attempts: 3, last_status: null, last_error: "url_not_allowed" });
    expect(calls).toHaveLength(3);
    expect(delays).toEqual([10_000, 60_000]);
    expect(states.map((s) => [s.state, s.attempts, s.last_error])).toEqual([
      ["pending", 0, null],
      ["pending", 1, "url_not_allowed"],
      ["pending", 2, "url_not_allowed"],
      ["failed", 3, "url_not_allowed"],
    ]);
    const logs = parsedLogs(logger.lines);
    expect(logs.filter((l) => l.event === "callback_attempt_failed").map((l) => l.reason)).toEqual(["url_not_allowed", "url_not_allowed"]);
    const errors = logs.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ event: "callback_failed", reason: "url_not_allowed", url: "http://10.1.2.3/cb", attempts: 3 });
  });

  test("a refused connection is retried (not mistaken for an SSRF refusal)", async () => {
    const { sender, delays } = harness();
    // A port on the allowed loopback address where nothing listens.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = probe.port;
    probe.stop(true);
    const final = await sender.send(docDelivery(`http://127.0.0.1:${port}/cb`));
    expect(final).toMatchObject({ state: "failed", attempts: 3, last_error: "connect" });
    expect(delays).toEqual([10_000, 60_000]);
  });

  test("the caller never waits: send returns before the receiver is reached, and the initial pending state is reported synchronously", async () => {
    const { sender } = harness();
    const id = newId();
    const states: DeliveryState[] = [];
    const p = sender.send(docDelivery(`${base}/cb/${id}/ok`, { onState: (s) => states.push(s) }));
    expect(hitsOf(id)).toHaveLength(0);
    expect(states).toEqual([expect.objectContaining({ state: "pending", attempts: 0, last_attempt_at: null })]);
    expect(sender.inFlight).toBe(1);
    expect((await p).state).toBe("delivered");
    expect(sender.inFlight).toBe(0);
  });

  test("send never rejects: a throwing fetcher and a throwing onState hook end in a failed state", async () => {
    const fetchImpl: CallbackFetch = async () => {
      throw new Error("boom");
    };
    const { sender } = harness({ fetchImpl });
    const final = await sender.send(
      docDelivery("https://receiver.example/cb", {
        onState: () => {
          throw new Error("hook");
        },
      }),
    );
    expect(final).toMatchObject({ state: "failed", attempts: 3, last_error: "error" });
  });

  test("close() ends a delivery waiting for its 10 s retry at once, as failed (shutdown), with the real timer", async () => {
    const logger = memoryLogger();
    const sender = new CallbackSender({ allow: parseAllowList(["127.0.0.1/32"]), logger });
    const id = newId();
    receiverNow = () => Date.now();
    const states: DeliveryState[] = [];
    const p = sender.send(docDelivery(`${base}/cb/${id}/fail`, { onState: (s) => states.push(s) }));
    // The first attempt's failure registered: the sender reports the retry it now waits 10 s for.
    await until(() => states.at(-1), (st) => st?.attempts === 1 && st.next_attempt_at !== null, "the first attempt failed and its retry scheduled", 10_000);
    expect(hitsOf(id)).toHaveLength(1);
    const retryDue = Date.parse(states.at(-1)!.next_attempt_at!);
    await sender.close();
    const final = await p;
    // Ended before its retry was due: the close did not wait for the timer (an order, not a bound).
    expect(Date.now()).toBeLessThan(retryDue);
    expect(final).toMatchObject({ state: "failed", attempts: 1, last_error: "shutdown" });
    expect(hitsOf(id)).toHaveLength(1);
  });
});
