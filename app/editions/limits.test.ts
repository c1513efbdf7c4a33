import { describe, expect, test } from "bun:test";
import { allowedEndpoints, docbuilderLimits, enterpriseRatePerMinute } from "./limits";

describe("DocBuilder limits per edition", () => {
  test("community figures are the spec's table", () => {
    expect(docbuilderLimits({ edition: "community", features: [] }, 4)).toEqual({
      rate_per_minute: 10,
      rate_per_day: 200,
      parallel_jobs: 1,
      max_queued_jobs: 10,
      max_file_mb: 10,
      result_ttl_minutes: 15,
      sync_timeout_seconds: 60,
      job_timeout_seconds: 120,
      async: true,
      callback: false,
      max_script_units: 500,
      max_outputs_per_build: 1,
    });
  });

  test("enterprise parallel_jobs equals the worker count and callback needs the feature", () => {
    const l = docbuilderLimits({ edition: "enterprise", features: ["api_full"], conns: 50 }, 3);
    expect(l.parallel_jobs).toBe(3);
    expect(l.callback).toBe(false);
    expect(l.rate_per_day).toBeNull();
    expect(docbuilderLimits({ edition: "enterprise", features: ["api_full", "callback"], conns: 50 }, 3).callback).toBe(true);
  });

  test("enterprise per-minute rate follows the spec's eight examples", () => {
    const vectors: [number, number][] = [[50, 60], [120, 180], [200, 240], [201, 300], [500, 600], [800, 960], [2500, 3000], [5000, 3000]];
    for (const [conns, rate] of vectors) expect(enterpriseRatePerMinute(conns)).toBe(rate);
  });

  test("lower-only settings lower a limit and never raise it", () => {
    expect(docbuilderLimits({ edition: "community", features: [] }, 1, { maxFileMbCap: 5 }).max_file_mb).toBe(5);
    expect(docbuilderLimits({ edition: "community", features: [] }, 1, { maxFileMbCap: 50 }).max_file_mb).toBe(10);
    expect(docbuilderLimits({ edition: "community", features: [] }, 1, { jobTimeoutSecondsCap: 30 }).job_timeout_seconds).toBe(30);
    expect(docbuilderLimits({ edition: "community", features: [] }, 1, { jobTimeoutSecondsCap: 500 }).job_timeout_seconds).toBe(120);
  });

  test("community has 10 endpoints and enterprise 11", () => {
    expect(allowedEndpoints("community")).toHaveLength(10);
    expect(allowedEndpoints("enterprise")).toHaveLength(11);
    expect(allowedEndpoints("community")).not.toContain("POST /v1/template/render");
  });
});
