import { describe, expect, test } from "bun:test";
import os from "node:os";
import { ConfigError, docbuilderInstance, parseConfig } from "./config";
import { ID_PATTERNS, instanceOf, newFileId, newJobId } from "./ids";

const problems = (env: Record<string, string>) => {
  try {
    parseConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe("configuration", () => {
  test("defaults follow the spec when nothing is set", () => {
    const c = parseConfig({});
    expect(c.docbuilder.workers).toBe(Math.min(os.availableParallelism(), 4));
    expect(c.docbuilder.workerMaxJobs).toBe(200);
    expect(c.docbuilder.workerMaxAgeMinutes).toBe(60);
    expect(c.embed.sessionTtlMinutes).toBe(720);
    expect(c.embed.maxFileMb).toBe(100);
    expect(c.license.file).toBe("/etc/svc/license.token");
    expect(c.logLevel).toBe("info");
    expect(c.devMode).toBe(false);
    expect(c.docbuilder.maxFileMbCap).toBeUndefined();
    expect(c.gate.connectionCap).toBeUndefined();
  });

  test("SVC_DOCBUILDER_WORKERS accepts 1 to 32 and nothing else", () => {
    expect(parseConfig({ SVC_DOCBUILDER_WORKERS: "1" }).docbuilder.workers).toBe(1);
    expect(parseConfig({ SVC_DOCBUILDER_WORKERS: "32" }).docbuilder.workers).toBe(32);
    expect(problems({ SVC_DOCBUILDER_WORKERS: "0" })[0]).toContain("SVC_DOCBUILDER_WORKERS");
    expect(problems({ SVC_DOCBUILDER_WORKERS: "33" })[0]).toContain("at most 32");
    expect(problems({ SVC_DOCBUILDER_WORKERS: "four" })[0]).toContain("whole number");
  });

  test("SVC_ROLE is all or docbuilder; SVC_DOCBUILDER_INSTANCE a number from 0 to 99 or the host name's", () => {
    expect(parseConfig({}).role).toBe("all");
    expect(parseConfig({ SVC_ROLE: "docbuilder" }).role).toBe("docbuilder");
    expect(problems({ SVC_ROLE: "gate" })[0]).toContain("SVC_ROLE");
    expect(parseConfig({}).docbuilder.instance).toBe(0);
    expect(parseConfig({ SVC_DOCBUILDER_INSTANCE: "7" }).docbuilder.instance).toBe(7);
    expect(parseConfig({ SVC_DOCBUILDER_INSTANCE: "99" }).docbuilder.instance).toBe(99);
    expect(problems({ SVC_DOCBUILDER_INSTANCE: "100" })[0]).toContain("from 0 to 99");
    expect(problems({ SVC_DOCBUILDER_INSTANCE: "-1" })[0]).toContain("SVC_DOCBUILDER_INSTANCE");
    expect(docbuilderInstance("from-hostname", "docbuilder-3")).toBe(3);
    expect(docbuilderInstance("from-hostname", "svc-docbuilder-42")).toBe(42);
    expect(() => docbuilderInstance("from-hostname", "laptop")).toThrow("ending in -<number 0-99>");
  });

  test("a job's and a file's id carry the number of the DocBuilder instance that holds them, in the spec's form", () => {
    for (const n of [0, 7, 42, 99]) {
      const job = newJobId(n), file = newFileId(n);
      expect(job).toMatch(ID_PATTERNS.job);
      expect(file).toMatch(ID_PATTERNS.file);
      expect(job.slice(4, 6)).toBe(String(n).padStart(2, "0"));
      expect(instanceOf(job)).toBe(n);
      expect(instanceOf(file)).toBe(n);
    }
    expect(newJobId(3)).not.toBe(newJobId(3));
  });

  test("a wrong value names the variable and what it allows", () => {
    const p = problems({ SVC_LOG_LEVEL: "loud", SVC_DEV_MODE: "maybe" });
    expect(p.some((x) => x.startsWith("SVC_LOG_LEVEL:"))).toBe(true);
    expect(p.some((x) => x.startsWith("SVC_DEV_MODE:") && x.includes("true"))).toBe(true);
  });

  test("API keys are name:key or key and must match the key pattern", () => {
    const c = parseConfig({ SVC_DOCBUILDER_API_KEYS: "ci:svc_aaaaaaaaaaaaaaaaaaaaaaaa, svc_bbbbbbbbbbbbbbbbbbbbbbbb" });
    expect(c.docbuilder.apiKeys).toEqual([
      { name: "ci", key: "svc_aaaaaaaaaaaaaaaaaaaaaaaa" },
      { name: "key2", key: "svc_bbbbbbbbbbbbbbbbbbbbbbbb" },
    ]);
    expect(problems({ SVC_DOCBUILDER_API_KEYS: "short" })[0]).toContain("SVC_DOCBUILDER_API_KEYS");
    expect(problems({ SVC_DOCBUILDER_API_KEYS: "ci:has space in it aaaaaaaaaaaaaaaa" })[0]).toContain("ci");
  });

  test("the DocBuilder JWT secret is empty or at least 32 characters", () => {
    expect(parseConfig({ SVC_DOCBUILDER_JWT_SECRET: "x".repeat(32) }).docbuilder.jwtSecret).toHaveLength(32);
    expect(problems({ SVC_DOCBUILDER_JWT_SECRET: "tooshort" })[0]).toContain("at least 32");
  });

  test("lower-only settings are optional numbers within the plan's range", () => {
    const c = parseConfig({ SVC_DOCBUILDER_MAX_FILE_MB: "5", SVC_DOCBUILDER_JOB_TIMEOUT_SECONDS: "30", SVC_GATE_CONNECTION_CAP: "10" });
    expect(c.docbuilder.maxFileMbCap).toBe(5);
    expect(c.docbuilder.jobTimeoutSecondsCap).toBe(30);
    expect(c.gate.connectionCap).toBe(10);
    expect(problems({ SVC_DOCBUILDER_MAX_FILE_MB: "0" })[0]).toContain("SVC_DOCBUILDER_MAX_FILE_MB");
  });

  test("SVC_FETCH_ALLOW_HOSTS entries are names, addresses or CIDR blocks", () => {
    expect(parseConfig({ SVC_FETCH_ALLOW_HOSTS: "files.internal, 10.0.0.0/8,127.0.0.1" }).fetchAllowHosts).toHaveLength(3);
    expect(problems({ SVC_FETCH_ALLOW_HOSTS: "10.0.0.0/99" })[0]).toContain("SVC_FETCH_ALLOW_HOSTS");
  });

  test("alias groups are read in order and stop at the first gap, as Collabora does", () => {
    const c = parseConfig({ SVC_ONLINE_ALIASGROUP1: "http://gate:8080", SVC_ONLINE_ALIASGROUP2: "https://a", SVC_ONLINE_ALIASGROUP4: "https://b" });
    expect(c.online.aliasGroups).toEqual(["http://gate:8080", "https://a"]);
  });

  test("what can be derived is: the editing server's URL from SVC_EDSRV_LISTEN and alias group 1 from SVC_APP_LISTEN, unless set", () => {
    const moved = parseConfig({ SVC_APP_LISTEN: "127.0.0.1:18081", SVC_EDSRV_LISTEN: "127.0.0.1:19980" });
    expect(moved.online.url).toBe("http://127.0.0.1:19980");
    expect(moved.online.aliasGroups).toEqual(["http://127.0.0.1:18081"]);
    const wildcard = parseConfig({ SVC_APP_LISTEN: "0.0.0.0:18081", SVC_EDSRV_LISTEN: "[::]:19980" });
    expect([wildcard.online.url, wildcard.online.aliasGroups[0]]).toEqual(["http://127.0.0.1:19980", "http://127.0.0.1:18081"]);
    const set = parseConfig({ SVC_EDSRV_LISTEN: "127.0.0.1:19980", SVC_EDSRV_URL: "https://collabora.example/", SVC_ONLINE_ALIASGROUP1: "http://gate.internal:8081" });
    expect([set.online.url, set.online.aliasGroups[0]]).toEqual(["https://collabora.example", "http://gate.internal:8081"]);
    expect(parseConfig({}).online.url).toBe("http://127.0.0.1:9980");
  });

  test("instance id has the inst_ + hex form", () => {
    expect(parseConfig({ SVC_GATE_INSTANCE_ID: "inst_0123abcd" }).gate.instanceId).toBe("inst_0123abcd");
    expect(problems({ SVC_GATE_INSTANCE_ID: "inst_XYZ" })[0]).toContain("SVC_GATE_INSTANCE_ID");
  });
});
