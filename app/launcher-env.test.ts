// What the launcher fills in: in production no API key is made (DocBuilder answers
// no_keys_configured, as the spec says), and a development key is kept in the data directory,
// never handed out in a printed line.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { launcherEnvironment } from "./launcher-env";

const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), "svc-launcher-env-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("the launcher's defaults", () => {
  test("production (SVC_DEV_MODE=0) without SVC_DOCBUILDER_API_KEYS makes no key: /v1 answers no_keys_configured", () => {
    const dir = dataDir();
    const r = launcherEnvironment({ SVC_DATA_DIR: dir, SVC_DEV_MODE: "0" }, "/repo");
    expect(r.devMode).toBe(false);
    expect(r.env.SVC_DOCBUILDER_API_KEYS).toBeUndefined();
    expect(r.demoKeyFile).toBeUndefined();
    expect(existsSync(path.join(dir, "demo-api-key"))).toBe(false);
    expect(r.env.SVC_EMBED_ALLOW_UNSIGNED).toBeUndefined();
  });

  test("development makes one key, kept in the data directory (0600) and the same on the next start", () => {
    const dir = dataDir();
    const first = launcherEnvironment({ SVC_DATA_DIR: dir }, "/repo");
    expect(first.devMode).toBe(true);
    expect(first.demoKeyFile).toBe(path.join(dir, "demo-api-key"));
    expect(statSync(first.demoKeyFile!).mode & 0o777).toBe(0o600);
    expect(first.env.SVC_DOCBUILDER_API_KEYS).toMatch(/^demo:svc_demo_[0-9a-f]{32}$/);
    expect(launcherEnvironment({ SVC_DATA_DIR: dir }, "/repo").env.SVC_DOCBUILDER_API_KEYS).toBe(first.env.SVC_DOCBUILDER_API_KEYS);
  });

  test("keys given by the operator are kept as they are, in either mode", () => {
    for (const mode of ["0", "1"]) {
      const r = launcherEnvironment({ SVC_DATA_DIR: dataDir(), SVC_DEV_MODE: mode, SVC_DOCBUILDER_API_KEYS: "app:svc_mine_0123456789abcdef" }, "/repo");
      expect(r.env.SVC_DOCBUILDER_API_KEYS).toBe("app:svc_mine_0123456789abcdef");
      expect(r.demoKeyFile).toBeUndefined();
    }
  });
});
