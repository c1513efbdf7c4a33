// Editions through HTTP with real signed tokens: what /svc/status, /svc/limits and /v1/limits
// publish, and which features each edition gets.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { AUTH, LICENSE_PUBLIC_KEY, enterpriseEnv, signTestLicense, startTestService, type Harness } from "../testing/harness";
import { LICENSE_REFRESH_MS } from "./license-source";
import { scaled } from "../testing/until";

const get = async (base: string, p: string, auth = false) => (await (await fetch(`${base}${p}`, auth ? { headers: AUTH } : {})).json()) as any;

describe("community edition (no token)", () => {
  let svc: Harness;
  beforeAll(async () => {
    svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1" });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  test("GET /svc/status reports state none with null license fields and the community cap", async () => {
    const s = await get(svc.url, "/svc/status");
    expect(s).toMatchObject({ service: "svc-gate", version: "1.5.0", api: "v1", edition: "community", dev_mode: false, dev_image: false });
    expect(s.instance_id).toMatch(/^inst_[0-9a-f]+$/);
    expect(s.license).toEqual({ state: "none", kind: null, plan: null, conns: null, exp: null, upd: null, customer: null, key_hint: null, grace_days_left: null, message: expect.any(String) });
    expect(s.connections).toMatchObject({ limit: 50, source: "none", enforcing: false });
  });

  test("connections.sampled_at and sample_age_seconds are never null in /svc/status: before any sample, the gate's start time and the age since, source none", async () => {
    const s = await get(svc.url, "/svc/status");
    expect(s.connections.source).toBe("none");
    expect(typeof s.connections.sampled_at).toBe("string");
    expect(Number.isInteger(s.connections.sample_age_seconds)).toBe(true);
    const at = Date.parse(s.connections.sampled_at);
    expect(at).toBeLessThanOrEqual(Date.parse(s.time));
    expect(at).toBeGreaterThan(Date.parse(s.time) - 120_000);
    expect(s.connections.sample_age_seconds).toBe(Math.floor((Date.parse(s.time) - at) / 1000));
  });

  test("GET /svc/limits gives the community figures", async () => {
    const l = await get(svc.url, "/svc/limits");
    expect(l.edition).toBe("community");
    expect(l.connections).toEqual({ limit: 50, plan_limit: 50, cap: null, min_per_order: 50 });
    expect(l.whitelabel).toBe(false);
    expect(l.docbuilder).toMatchObject({ rate_per_minute: 10, rate_per_day: 200, parallel_jobs: 1, max_file_mb: 10, callback: false, max_outputs_per_build: 1 });
    expect(l.docbuilder.allowed_endpoints).toHaveLength(10);
    expect(l.counting).toEqual({ sample_interval_seconds: 10, peak_window_seconds: 300, reconnect_grace_seconds: 120 });
    expect(l.editor_embed).toMatchObject({ enabled: true, save_callback: true, max_file_mb: 100, session_ttl_minutes: 720 });
  });

  test("the instance id is generated once and kept in the data directory", async () => {
    const s = await get(svc.url, "/svc/status");
    expect(await Bun.file(path.join(svc.dataDir, "instance-id")).text()).toContain(s.instance_id);
  });
});

describe("enterprise edition", () => {
  let svc: Harness;
  beforeAll(async () => {
    svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", SVC_GATE_CONNECTION_CAP: "100", ...enterpriseEnv({ conns: 120, feat: ["api_full", "callback"] }) });
  }, scaled(120_000));
  afterAll(() => svc?.close());

  test("a valid enterprise token with api_full makes DocBuilder enterprise with the token's figures", async () => {
    const l = await get(svc.url, "/v1/limits", true);
    expect(l.edition).toBe("enterprise");
    expect(l.limits).toMatchObject({ rate_per_minute: 180, rate_per_day: null, parallel_jobs: 1, max_queued_jobs: 1000, max_file_mb: 300, callback: true, max_outputs_per_build: 5 });
    expect(l.allowed_endpoints).toContain("POST /v1/template/render");
    expect(l.features).toEqual(["api_full", "callback"]);
    expect(l.usage.day.limit).toBeNull();
  });

  test("GET /svc/status shows the license with only the last 5 characters of the license code", async () => {
    const s = await get(svc.url, "/svc/status");
    expect(s.edition).toBe("enterprise");
    expect(s.license).toMatchObject({ state: "valid", kind: "enterprise", plan: "year", conns: 120, exp: "2099-12-31", customer: "Test customer", key_hint: "CCCCC", grace_days_left: null });
    expect(JSON.stringify(s)).not.toContain("OOSY-T3ST1");
  });

  test("SVC_GATE_CONNECTION_CAP only lowers the cap; enterprise parallel_jobs is null in /svc/limits", async () => {
    const l = await get(svc.url, "/svc/limits");
    expect(l.connections).toEqual({ limit: 100, plan_limit: 120, cap: 100, min_per_order: 50 });
    expect(l.docbuilder.parallel_jobs).toBeNull();
    expect(l.docbuilder.allowed_endpoints).toHaveLength(11);
  });

  test("template/render is not a forbidden feature on enterprise", async () => {
    const res = await fetch(`${svc.url}/v1/template/render`, { method: "POST", headers: AUTH, body: "{}" });
    expect(res.status).not.toBe(403);
  });
});

describe("token sources", () => {
  test("an enterprise token without api_full upgrades the gate but not DocBuilder", async () => {
    const svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv({ conns: 20, feat: [] }) });
    try {
      expect((await get(svc.url, "/svc/status")).edition).toBe("enterprise");
      expect((await get(svc.url, "/svc/limits")).connections.limit).toBe(20); // exactly conns, even below 50
      expect((await get(svc.url, "/v1/limits", true)).edition).toBe("community");
      const res = await fetch(`${svc.url}/v1/template/render`, { method: "POST", headers: AUTH, body: "{}" });
      expect(res.status).toBe(403);
    } finally {
      await svc.close();
    }
  }, scaled(60_000));

  test("a token written to SVC_LICENSE_FILE takes effect at the next 60-second re-read, without a restart", async () => {
    const svc = await startTestService({ SVC_DOCBUILDER_WORKERS: "1", SVC_LICENSE_PUBKEY: LICENSE_PUBLIC_KEY });
    try {
      expect((await get(svc.url, "/v1/limits", true)).edition).toBe("community");
      writeFileSync(path.join(svc.dataDir, "license.token"), `\n  ${signTestLicense()}  \n`);
      expect(LICENSE_REFRESH_MS).toBe(60_000);
      svc.license.refresh(); // what the 60-second timer does
      expect((await get(svc.url, "/v1/limits", true)).edition).toBe("enterprise");
      expect((await get(svc.url, "/svc/status")).license.state).toBe("valid");
    } finally {
      await svc.close();
    }
  }, scaled(60_000));

  test("a token signed with another key is invalid and leaves the community edition", async () => {
    const svc = await startTestService({
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_LICENSE_PUBKEY: "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
      SVC_LICENSE_TOKEN: signTestLicense(),
    });
    try {
      const s = await get(svc.url, "/svc/status");
      expect(s.license.state).toBe("invalid");
      expect(s.edition).toBe("community");
    } finally {
      await svc.close();
    }
  }, scaled(60_000));
});
