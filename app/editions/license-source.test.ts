import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../clock";
import { ID_PATTERNS } from "../ids";
import { memoryLogger } from "../log";
import { decodePrivateKey, generateKeyPair, signToken } from "./license";
import { LicenseSource, resolveInstanceId, type LicenseSourceOptions } from "./license-source";

const PAIR = generateKeyPair();
const PRIV = decodePrivateKey(PAIR.privateKey);
const INSTANCE = "inst_0123456789abcdef";

const tokenFor = (changes: Record<string, unknown> = {}) =>
  signToken(
    {
      v: 1,
      prod: "svc-online",
      kind: "enterprise",
      conns: 120,
      plan: "year",
      exp: "2026-12-31",
      upd: "2027-01-07",
      feat: ["api_full"],
      key: "OOSY-AAAAA-BBBBB-CCCCC-DDDDD",
      iat: 1_767_225_600,
      ...changes,
    },
    PRIV,
  );

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), "svc-license-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function source(over: Partial<LicenseSourceOptions> = {}) {
  const clock = new ManualClock(Date.parse("2026-11-22T03:00:00Z"));
  const logger = memoryLogger();
  const dir = tmp();
  const opts: LicenseSourceOptions = {
    envToken: "",
    file: path.join(dir, "license.token"),
    publicKey: PAIR.publicKey,
    instanceId: INSTANCE,
    devMode: false,
    clock,
    logger,
    buildDate: "2026-11-22",
    ...over,
  };
  return { opts, clock, logger, file: opts.file };
}

describe("token lookup", () => {
  test("no variable and no file: state none, community", () => {
    const { opts } = source();
    const s = new LicenseSource(opts);
    expect(s.status().state).toBe("none");
    expect(s.tokenOrigin).toBe("none");
    expect(s.gate()).toEqual({ edition: "community", features: [] });
  });

  test("SVC_LICENSE_TOKEN, when not empty, wins over the file", () => {
    const { opts, file } = source();
    writeFileSync(file, tokenFor({ conns: 300 }));
    const s = new LicenseSource({ ...opts, envToken: tokenFor({ conns: 77 }) });
    expect(s.status()).toMatchObject({ state: "valid", conns: 77 });
    expect(s.tokenOrigin).toBe("env");
    writeFileSync(file, "garbage");
    s.refresh();
    expect(s.status().conns).toBe(77);
  });

  test("an empty (or whitespace) variable falls through to the file", () => {
    const { opts, file } = source();
    writeFileSync(file, `\n${tokenFor({ conns: 300 })}\n`);
    const s = new LicenseSource({ ...opts, envToken: "   " });
    expect(s.status()).toMatchObject({ state: "valid", conns: 300 });
    expect(s.tokenOrigin).toBe("file");
  });

  test("a replaced file takes effect at the next refresh, not before", () => {
    const { opts, file } = source();
    writeFileSync(file, tokenFor({ conns: 120 }));
    const s = new LicenseSource(opts);
    expect(s.gate().conns).toBe(120);
    writeFileSync(file, tokenFor({ conns: 250 }));
    expect(s.gate().conns).toBe(120);
    s.refresh();
    expect(s.gate().conns).toBe(250);
  });

  test("a deleted file gives state none at the next refresh", () => {
    const { opts, file } = source();
    writeFileSync(file, tokenFor());
    const s = new LicenseSource(opts);
    expect(s.status().state).toBe("valid");
    unlinkSync(file);
    s.refresh();
    expect(s.status().state).toBe("none");
    expect(s.gate().edition).toBe("community");
  });

  test("an empty file means no token", () => {
    const { opts, file } = source();
    writeFileSync(file, "\n");
    expect(new LicenseSource(opts).status().state).toBe("none");
  });

  test("an unreadable file is reported as invalid, and a later good read recovers", () => {
    const { opts } = source();
    let fail = true;
    const s = new LicenseSource({
      ...opts,
      readFile: () => {
        if (fail) throw Object.assign(new Error("denied"), { code: "EACCES" });
        return tokenFor();
      },
    });
    expect(s.status()).toMatchObject({ state: "invalid", reason: "file_unreadable" });
    expect(s.status().message).toContain("EACCES");
    fail = false;
    s.refresh();
    expect(s.status().state).toBe("valid");
  });

  test("the file is read through the injected reader, once per refresh", () => {
    const { opts } = source();
    const reads: string[] = [];
    const s = new LicenseSource({ ...opts, readFile: (f) => (reads.push(f), tokenFor()) });
    s.status();
    s.gate();
    s.docbuilder();
    expect(reads).toEqual([opts.file]);
    s.refresh();
    expect(reads).toHaveLength(2);
  });
});

describe("state over time and entitlements", () => {
  test("the state follows the clock without a refresh: valid → grace → expired", () => {
    const { opts, clock } = source({ envToken: tokenFor() });
    const s = new LicenseSource(opts);
    expect(s.status().state).toBe("valid");
    clock.set(Date.parse("2026-12-31T17:00:00Z"));
    expect(s.status()).toMatchObject({ state: "grace", grace_days_left: 7 });
    expect(s.gate().edition).toBe("enterprise");
    clock.set(Date.parse("2027-01-07T17:00:00Z"));
    expect(s.status().state).toBe("expired");
    expect(s.gate().edition).toBe("community");
  });

  test("adapters: gateSource and docbuilderSource give the current entitlements (api_full for DocBuilder)", () => {
    const { opts, file } = source();
    writeFileSync(file, tokenFor({ feat: ["callback"] }));
    const s = new LicenseSource(opts);
    const gate = s.gateSource();
    const db = s.docbuilderSource();
    expect(gate.current()).toEqual({ edition: "enterprise", features: ["callback"], conns: 120 });
    expect(db.current()).toEqual({ edition: "community", features: ["callback"] });
    writeFileSync(file, tokenFor({ feat: ["api_full", "callback"] }));
    s.refresh();
    expect(db.current()).toEqual({ edition: "enterprise", features: ["api_full", "callback"], conns: 120 });
  });

  test("instance id and DEV mode are applied", () => {
    const bound = tokenFor({ mid: "inst_ffffffffffffffff", key: "TEST-00000-00000-00000-00001" });
    expect(new LicenseSource(source({ envToken: bound }).opts).status()).toMatchObject({ state: "invalid", reason: "test_key" });
    expect(new LicenseSource(source({ envToken: bound, devMode: true }).opts).status().state).toBe("instance_mismatch");
    expect(new LicenseSource(source({ envToken: bound, devMode: true, instanceId: "inst_ffffffffffffffff" }).opts).status().state).toBe("valid");
  });
});

describe("logging", () => {
  test("a state change is logged once, with the key hint but never the token", () => {
    const { opts, file, logger } = source();
    const t = tokenFor();
    writeFileSync(file, t);
    const s = new LicenseSource(opts);
    s.status();
    s.refresh();
    const lines = logger.lines.map((l) => JSON.parse(l));
    const changes = lines.filter((l) => l.event === "license_state");
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ state: "valid", from: null, key_hint: "DDDDD", origin: "file" });
    unlinkSync(file);
    s.refresh();
    const after = logger.lines.map((l) => JSON.parse(l)).filter((l) => l.event === "license_state");
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ from: "valid", state: "none" });
    const all = logger.lines.join("\n");
    expect(all).not.toContain(t.split(".")[0]!.slice(0, 40));
    expect(all).not.toContain(t.split(".")[1]!.slice(0, 40));
    expect(all).not.toContain("OOSY-AAAAA");
  });

  test("moving into grace is logged as a warning", () => {
    const { opts, clock, logger } = source({ envToken: tokenFor() });
    const s = new LicenseSource(opts);
    clock.set(Date.parse("2027-01-02T00:00:00Z"));
    s.status();
    const last = JSON.parse(logger.lines.at(-1)!);
    expect(last).toMatchObject({ level: "warn", event: "license_state", from: "valid", state: "grace", grace_days_left: 6 });
  });
});

describe("refresh timer", () => {
  test("start() re-reads on a 60 s unref'd interval and stop() clears it", () => {
    const { opts } = source();
    const realSet = globalThis.setInterval;
    const realClear = globalThis.clearInterval;
    const calls: { ms: number; unref: boolean; fn: () => void }[] = [];
    let cleared = 0;
    let reads = 0;
    try {
      globalThis.setInterval = ((fn: () => void, ms: number) => {
        const h = { ms, unref: false, fn };
        calls.push(h);
        return { unref: () => ((h.unref = true), h) };
      }) as unknown as typeof setInterval;
      globalThis.clearInterval = (() => void cleared++) as typeof clearInterval;
      const s = new LicenseSource({ ...opts, readFile: () => (reads++, null) });
      s.start();
      s.start();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ ms: 60_000, unref: true });
      expect(reads).toBe(1);
      calls[0]!.fn();
      expect(reads).toBe(2);
      s.stop();
      expect(cleared).toBe(1);
    } finally {
      globalThis.setInterval = realSet;
      globalThis.clearInterval = realClear;
    }
  });
});

describe("instance id", () => {
  test("the configured id wins and nothing is written", () => {
    const dir = tmp();
    expect(resolveInstanceId("inst_aaaaaaaabbbbbbbb", dir)).toBe("inst_aaaaaaaabbbbbbbb");
    expect(() => readFileSync(path.join(dir, "instance-id"))).toThrow();
  });

  test("without one, an id is generated, persisted in <data>/instance-id and reused", () => {
    const dir = path.join(tmp(), "nested", "data");
    const first = resolveInstanceId("", dir);
    expect(first).toMatch(ID_PATTERNS.instance);
    expect(readFileSync(path.join(dir, "instance-id"), "utf8").trim()).toBe(first);
    expect(resolveInstanceId("", dir)).toBe(first);
    expect(resolveInstanceId("  ", dir)).toBe(first);
  });

  test("an id kept in the file is read back (whitespace trimmed)", () => {
    const dir = tmp();
    writeFileSync(path.join(dir, "instance-id"), "inst_00112233445566778899\n");
    expect(resolveInstanceId("", dir)).toBe("inst_00112233445566778899");
  });

  test("a file holding something else stops start-up instead of being replaced", () => {
    const dir = tmp();
    writeFileSync(path.join(dir, "instance-id"), "not-an-id");
    expect(() => resolveInstanceId("", dir)).toThrow(/instance id/);
    expect(readFileSync(path.join(dir, "instance-id"), "utf8")).toBe("not-an-id");
  });
});
