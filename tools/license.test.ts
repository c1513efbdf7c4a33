// The vendor CLI, run as a real process (what the vendor runs), end to end.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { addYears, dateInUtc7 } from "../app/editions/license";

const CLI = path.resolve(import.meta.dir, "license.ts");
const dir = mkdtempSync(path.join(os.tmpdir(), "svc-license-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const p = Bun.spawnSync([process.execPath, CLI, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  return { code: p.exitCode, out: p.stdout.toString().trim(), err: p.stderr.toString().trim() };
}

function ok(...args: string[]) {
  const r = run(...args);
  if (r.code !== 0) throw new Error(`license ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r.out;
}

const inspectJson = (...args: string[]) => JSON.parse(ok("inspect", ...args));

const keys = JSON.parse(ok("keygen")) as { private_key: string; public_key: string };

describe("keygen", () => {
  test("prints a private and a public key, each the standard Base64 of 32 bytes", () => {
    for (const k of [keys.private_key, keys.public_key]) {
      expect(k).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(k, "base64")).toHaveLength(32);
    }
    expect(keys.private_key).not.toBe(keys.public_key);
  });

  test("--out writes <prefix>.key (mode 600) and <prefix>.pub, and prints only the public key", () => {
    const prefix = path.join(dir, "vendor");
    const r = JSON.parse(ok("keygen", "--out", prefix));
    expect(r.private_key).toBeUndefined();
    expect(readFileSync(`${prefix}.pub`, "utf8").trim()).toBe(r.public_key);
    expect(statSync(`${prefix}.key`).mode & 0o777).toBe(0o600);
    // The key file signs tokens the public key verifies (@file form for both).
    const t = ok("sign", "--private-key", `@${prefix}.key`, "--kind", "enterprise", "--conns", "60", "--plan", "life");
    expect(inspectJson(t, "--public-key", `@${prefix}.pub`).license.state).toBe("valid");
  });
});

describe("keygen → sign → inspect round trip", () => {
  test("an annual enterprise token with every option verifies with the public key", () => {
    const t = ok(
      "sign",
      "--private-key", keys.private_key,
      "--kind", "enterprise",
      "--conns", "120",
      "--plan", "year",
      "--exp", "2027-12-31",
      "--feat", "api_full,callback",
      "--mid", "inst_0123456789abcdef",
      "--key", "OOSY-AAAAA-BBBBB-CCCCC-K7M2Q",
      "--cust", "Công ty ACME",
      "--v", "2",
    );
    expect(t).toMatch(/^[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]+=*$/);
    const r = inspectJson(t, "--public-key", keys.public_key, "--instance-id", "inst_0123456789abcdef", "--now", "2027-06-01T00:00:00Z", "--build-date", "2027-01-01");
    expect(r.signature_checked).toBe(true);
    expect(r.payload).toMatchObject({ v: 2, prod: "svc-online", kind: "enterprise", conns: 120, plan: "year", exp: "2027-12-31", feat: ["api_full", "callback"], mid: "inst_0123456789abcdef", key: "OOSY-AAAAA-BBBBB-CCCCC-K7M2Q", cust: "Công ty ACME" });
    expect(Math.abs(r.payload.iat - Date.now() / 1000)).toBeLessThan(120);
    expect(r.license).toMatchObject({ state: "valid", kind: "enterprise", conns: 120, customer: "Công ty ACME", key_hint: "K7M2Q", features: ["api_full", "callback"] });
  });

  test("annual plans get upd = exp + 7 days by default", () => {
    const t = ok("sign", "--private-key", keys.private_key, "--kind", "enterprise", "--conns", "50", "--plan", "year", "--exp", "2026-12-31");
    expect(inspectJson(t).payload.upd).toBe("2027-01-07");
  });

  test("perpetual plans get 3 years of updates by default, and --upd none leaves upd out", () => {
    const before = addYears(dateInUtc7(Date.now()), 3);
    const t = ok("sign", "--private-key", keys.private_key, "--kind", "enterprise", "--conns", "50", "--plan", "life");
    const after = addYears(dateInUtc7(Date.now()), 3);
    const p = inspectJson(t).payload;
    expect([before, after]).toContain(p.upd);
    expect(p.exp).toBeUndefined();
    expect(p.key).toMatch(/^OOSL-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}$/);
    const none = ok("sign", "--private-key", keys.private_key, "--kind", "enterprise", "--conns", "50", "--plan", "life", "--upd", "none");
    expect(inspectJson(none).payload.upd).toBeUndefined();
  });

  test("inspect reports grace, expiry, update_expired, instance_mismatch and the TEST-key rule", () => {
    const sign = (...extra: string[]) => ok("sign", "--private-key", keys.private_key, "--kind", "enterprise", "--conns", "80", "--plan", "year", "--exp", "2026-12-31", ...extra);
    const pub = ["--public-key", keys.public_key, "--build-date", "2026-11-22"];
    const t = sign();
    expect(inspectJson(t, ...pub, "--now", "2026-12-31T17:00:00Z").license).toMatchObject({ state: "grace", grace_days_left: 7 });
    expect(inspectJson(t, ...pub, "--now", "2027-01-07T17:00:00Z").license.state).toBe("expired");
    expect(inspectJson(t, "--public-key", keys.public_key, "--build-date", "2027-01-08", "--now", "2026-12-01T00:00:00Z").license.state).toBe("update_expired");
    expect(inspectJson(sign("--mid", "inst_aaaaaaaaaaaaaaaa"), ...pub, "--now", "2026-12-01T00:00:00Z").license.state).toBe("instance_mismatch");
    const testKey = sign("--key", "TEST-00000-00000-00000-00001");
    expect(inspectJson(testKey, ...pub, "--now", "2026-12-01T00:00:00Z").license).toMatchObject({ state: "invalid", reason: "test_key" });
    expect(inspectJson(testKey, ...pub, "--now", "2026-12-01T00:00:00Z", "--dev").license.state).toBe("valid");
  });

  test("inspect with another public key says invalid but still shows the payload; a token file works too", () => {
    const t = ok("sign", "--private-key", keys.private_key, "--kind", "community", "--conns", "50", "--plan", "life");
    const other = JSON.parse(ok("keygen")).public_key;
    const file = path.join(dir, "license.token");
    writeFileSync(file, `  ${t}\n`);
    const r = inspectJson(`@${file}`, "--public-key", other);
    expect(r.license).toMatchObject({ state: "invalid", reason: "signature" });
    expect(r.payload.kind).toBe("community");
  });

  test("inspect without a public key shows the payload and no state", () => {
    const t = ok("sign", "--private-key", keys.private_key, "--kind", "enterprise", "--conns", "50", "--plan", "life");
    const r = inspectJson(t);
    expect(r.signature_checked).toBe(false);
    expect(r.license).toBeNull();
    expect(r.payload.conns).toBe(50);
  });
});

describe("sign refuses what the gate would reject", () => {
  const base = ["sign", "--private-key", keys.private_key, "--kind", "enterprise", "--plan", "year", "--exp", "2027-12-31"];
  test("conns 0, v 3, a year plan without exp, a bad date, an unknown kind, a bad private key", () => {
    const cases: [string[], RegExp][] = [
      [[...base, "--conns", "0"], /conns/],
      [[...base, "--conns", "abc"], /conns/],
      [[...base, "--conns", "50", "--v", "3"], /\bv\b/],
      [["sign", "--private-key", keys.private_key, "--kind", "enterprise", "--plan", "year", "--conns", "50"], /--exp/],
      [[...base.slice(0, -1), "2027-02-30", "--conns", "50"], /--exp/],
      [["sign", "--private-key", keys.private_key, "--kind", "pro", "--plan", "life", "--conns", "50"], /kind/],
      [["sign", "--private-key", "short", "--kind", "enterprise", "--plan", "life", "--conns", "50"], /private-key/],
      [[...base, "--conns", "50", "--bogus"], /bogus/],
    ];
    for (const [args, message] of cases) {
      const r = run(...args);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      expect(r.err).toMatch(message);
    }
  });
});

describe("price", () => {
  test("prints requested, billed, unit price and total under the never-more-expensive rule", () => {
    expect(JSON.parse(ok("price", "--conns", "190", "--plan", "year"))).toEqual({ plan: "year", requested: 190, billed: 201, unit_price: 4.5, total: 904.5, currency: "USD" });
    expect(JSON.parse(ok("price", "--conns", "30", "--plan", "life"))).toMatchObject({ requested: 30, billed: 50, unit_price: 10, total: 500 });
    expect(JSON.parse(ok("price", "--conns", "600", "--plan", "life"))).toMatchObject({ billed: 600, unit_price: 8, total: 4800 });
  });
  test("bad input exits 2", () => {
    expect(run("price", "--conns", "0", "--plan", "year").code).toBe(2);
    expect(run("price", "--conns", "100", "--plan", "month").code).toBe(2);
  });
});

describe("stamp-build-date and usage", () => {
  test("rewrites the BUILD_DATE line of the given file only", () => {
    const file = path.join(dir, "build-info.ts");
    writeFileSync(file, `// header\nexport const BUILD_DATE = "2020-01-01";\n// footer\n`);
    expect(JSON.parse(ok("stamp-build-date", "--date", "2027-03-04", "--file", file))).toEqual({ file, build_date: "2027-03-04" });
    expect(readFileSync(file, "utf8")).toBe(`// header\nexport const BUILD_DATE = "2027-03-04";\n// footer\n`);
    expect(run("stamp-build-date", "--date", "2027-02-30", "--file", file).code).toBe(2);
    writeFileSync(path.join(dir, "other.ts"), "export const X = 1;\n");
    expect(run("stamp-build-date", "--file", path.join(dir, "other.ts")).code).toBe(2);
  });
  test("an unknown command prints the usage and exits 2", () => {
    const r = run("frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toContain("usage:");
  });
});
