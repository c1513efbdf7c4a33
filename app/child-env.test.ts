// No engine holds a secret: the office engines (editing kits, DocBuilder workers) are started with
// an environment built from an allow list (app/child-env.ts), so /proc/<engine>/environ holds none
// of the service's secrets even when the parent's environment holds them all. (Caddy's is checked
// in app/launcher.test.ts, on the real launcher.)

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "./clock";
import { childEnvironment } from "./child-env";
import { WorkerPool } from "./docbuilder/pool";
import { KitPool } from "./edsrv/kits";
import { memoryLogger } from "./log";
import { scaled } from "./testing/until";

/** Every secret the service reads from its environment, each with a value found nowhere else. */
const SECRETS: Record<string, string> = {
  SVC_EMBED_JWT_SECRET: "embed-jwt-7f3c9a61d2e84b05aa1f0c3e9d7b6a52",
  SVC_EMBED_CALLBACK_SECRET: "embed-callback-5b1e8d04c7a9",
  SVC_EDSRV_ADMIN_PASSWORD: "admin-password-c2d94e17f8",
  SVC_DOCBUILDER_API_KEYS: "tenant:apikey-9e0a3b6c4d1f",
  SVC_DOCBUILDER_JWT_SECRET: "docbuilder-jwt-3a6e0f9b1c7d42e8b5a0d6c1f4e7a29b",
  SVC_DOCBUILDER_CALLBACK_SECRET: "docbuilder-callback-8d2f6a0e3b",
};

function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

function expectNoSecret(pid: number) {
  const raw = readFileSync(`/proc/${pid}/environ`, "latin1");
  for (const [name, value] of Object.entries(SECRETS)) {
    expect({ name, found: raw.includes(value) }).toEqual({ name, found: false });
    expect(raw.includes(`${name}=`)).toBe(false);
  }
}

describe("no engine holds a secret", () => {
  test("the builder drops every secret of the parent and keeps PATH, the locale, TZ and the engine's own settings", () => {
    const parent = { ...SECRETS, SVC_LICENSE_KEY: "lic", AWS_SECRET_ACCESS_KEY: "aws", GITHUB_TOKEN: "gh", SVC_DATA_DIR: "/data", PATH: "/usr/bin:/bin", LANG: "vi_VN.UTF-8", LC_ALL: "C.UTF-8", TZ: "Asia/Ho_Chi_Minh", TMPDIR: "/tmp/x", HOME: "/root", SVC_KIT_WARMUP: "0" };
    const env = childEnvironment(parent, { home: "/data/profiles/kit-0", own: { SVC_KIT_PROFILE_DIR: "/data/profiles/kit-0", SVC_ENGINE_READABLE: "/data/docs" }, passThrough: ["SVC_KIT_WARMUP"] });
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      LANG: "vi_VN.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "Asia/Ho_Chi_Minh",
      TMPDIR: "/tmp/x",
      HOME: "/data/profiles/kit-0",
      SVC_KIT_WARMUP: "0",
      SVC_KIT_PROFILE_DIR: "/data/profiles/kit-0",
      SVC_ENGINE_READABLE: "/data/docs",
    });
    // Not even when a caller asks for one by name.
    expect(childEnvironment(parent, { home: "/h", passThrough: ["SVC_EMBED_JWT_SECRET", "SVC_DOCBUILDER_API_KEYS"] })).not.toContainKeys(["SVC_EMBED_JWT_SECRET", "SVC_DOCBUILDER_API_KEYS"]);
    expect(() => childEnvironment(parent, { home: "/h", own: { SVC_EDSRV_ADMIN_PASSWORD: "x" } })).toThrow(/secret/);
  });

  describe("real engines started by a parent holding every secret", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "svc-child-env-"));
    const saved: Record<string, string | undefined> = {};
    beforeAll(() => {
      for (const [name, value] of Object.entries(SECRETS)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
    });
    afterAll(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    });

    test("an editing kit's /proc/<pid>/environ holds none of them, and its HOME is its profile", async () => {
      const pool = new KitPool({ idle: 1, profileRoot: path.join(dir, "kits"), logger: memoryLogger("warn") });
      try {
        await pool.start();
        const [pid] = pool.pids();
        expect(pid).toBeGreaterThan(0);
        expectNoSecret(pid!);
        const env = environOf(pid!);
        expect(env.HOME).toStartWith(path.join(dir, "kits", "kit-"));
        expect(env.SVC_KIT_PROFILE_DIR).toBe(env.HOME!);
        expect(env.PATH).toBe(process.env.PATH!);
      } finally {
        await pool.close();
      }
    }, scaled(120_000));

    test("a DocBuilder worker's /proc/<pid>/environ holds none of them, and it converts", async () => {
      const pool = new WorkerPool({ size: 1, maxJobs: 10, maxAgeMs: 600_000, profileRoot: path.join(dir, "workers"), logger: memoryLogger("warn"), clock: new ManualClock() });
      try {
        await pool.start();
        const [pid] = pool.pids();
        expect(pid).toBeGreaterThan(0);
        expectNoSecret(pid!);
        expect(environOf(pid!).HOME).toBe(path.join(dir, "workers", "worker-0"));
        // Nothing the engine needs went with them: it still reads a document.
        const text = await pool.run<{ text: string }>({ op: "text", id: "t1", input: path.resolve(import.meta.dir, "../fixtures/hello.docx") }, { runTimeoutMs: 60_000 });
        expect(text.text.length).toBeGreaterThan(0);
      } finally {
        await pool.shutdown(0);
      }
    }, scaled(120_000));
  });
});
