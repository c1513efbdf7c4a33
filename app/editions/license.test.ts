import { describe, expect, test } from "bun:test";
import { BUILD_DATE } from "./build-info";
import {
  addDays,
  addYears,
  connectionCap,
  dateInUtc7,
  decodeBase64Strict,
  decodePrivateKey,
  encodeBase64,
  endOfDayUtc7,
  entitlementOf,
  generateKeyPair,
  isTestKey,
  licenseStatusView,
  signToken,
  verifyLicense,
  type LicenseStatus,
  type VerifyOptions,
} from "./license";

// A key pair made now; no private key is committed anywhere.
const PAIR = generateKeyPair();
const PRIV = decodePrivateKey(PAIR.privateKey);
const OTHER = generateKeyPair();

const BASE = {
  v: 1,
  prod: "svc-online",
  kind: "enterprise",
  conns: 120,
  plan: "year",
  exp: "2026-12-31",
  upd: "2027-01-07",
  feat: ["api_full"],
  key: "OOSY-AAAAA-BBBBB-CCCCC-DX7Q2",
  cust: "ACME",
  iat: 1_767_225_600,
};

const OPTS: VerifyOptions = {
  publicKey: PAIR.publicKey,
  now: Date.parse("2026-11-22T03:00:00Z"),
  buildDate: "2026-11-22",
  instanceId: "inst_0123456789abcdef",
  devMode: false,
};

/** A token for BASE with fields changed; a field set to undefined is left out. */
function token(changes: Record<string, unknown> = {}): string {
  const payload: Record<string, unknown> = { ...BASE, ...changes };
  for (const k of Object.keys(payload)) if (payload[k] === undefined) delete payload[k];
  return signToken(payload, PRIV);
}

function verify(t: string | null, opts: Partial<VerifyOptions> = {}): LicenseStatus {
  return verifyLicense(t, { ...OPTS, ...opts });
}

const at = (iso: string) => ({ now: Date.parse(iso) });

describe("token format", () => {
  test("a well-formed enterprise token signed with the configured key is valid", () => {
    const s = verify(token());
    expect(s.state).toBe("valid");
    expect(s).toMatchObject({ kind: "enterprise", plan: "year", conns: 120, exp: "2026-12-31", upd: "2027-01-07", customer: "ACME", key_hint: "DX7Q2", grace_days_left: null, features: ["api_full"] });
    expect(s.message.length).toBeGreaterThan(0);
    expect(s.payload?.key).toBe(BASE.key);
  });

  test("no token gives state none with every license field null", () => {
    for (const t of [null, "", "  \n\t "]) {
      const s = verify(t);
      expect(licenseStatusView(s)).toEqual({
        state: "none",
        kind: null,
        plan: null,
        conns: null,
        exp: null,
        upd: null,
        customer: null,
        key_hint: null,
        grace_days_left: null,
        message: s.message,
      });
      expect(s.features).toEqual([]);
    }
  });

  test("leading and trailing whitespace of the token is trimmed", () => {
    expect(verify(`  \n${token()}\r\n  `).state).toBe("valid");
  });

  test("exactly one dot: none, two or three dots are invalid", () => {
    const t = token();
    const [p, s] = t.split(".");
    for (const bad of [`${p}${s}`, `${t}.`, `${p}..${s}`, `.${t}`, `${p}.${s}.${s}`]) {
      expect(verify(bad)).toMatchObject({ state: "invalid", reason: "format" });
    }
  });

  test("standard Base64 is required: missing '=' padding is invalid", () => {
    // Find a payload whose Base64 ends in padding, then drop the padding.
    let t = "";
    for (let i = 0; !t; i++) {
      const c = token({ cust: "x".repeat(i) });
      if (c.split(".")[0]!.endsWith("=")) t = c;
    }
    const [p, s] = t.split(".");
    expect(verify(t).state).toBe("valid");
    expect(verify(`${p!.replace(/=+$/, "")}.${s}`)).toMatchObject({ state: "invalid", reason: "format" });
    expect(verify(`${p}.${s!.replace(/=+$/, "")}`)).toMatchObject({ state: "invalid", reason: "format" });
    expect(verify(`${p}=.${s}`)).toMatchObject({ state: "invalid", reason: "format" });
  });

  test("the URL-safe alphabet (-_) is invalid", () => {
    let t = "";
    for (let i = 0; !t; i++) {
      const c = token({ cust: "?~".repeat(i) });
      if (/[+/]/.test(c.split(".")[0]!)) t = c;
    }
    const [p, s] = t.split(".");
    expect(verify(t).state).toBe("valid");
    const urlSafe = p!.replace(/\+/g, "-").replace(/\//g, "_");
    expect(verify(`${urlSafe}.${s}`)).toMatchObject({ state: "invalid", reason: "format" });
  });

  test("non-canonical Base64 (trailing bits set) is invalid even though lenient decoders accept it", () => {
    const t = token();
    const [p, s] = t.split(".");
    // 64 signature bytes end in one 2-bit group: the character before "==" has its low 4 bits zero.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const last = s!.at(-3)!;
    const tweaked = s!.slice(0, -3) + alphabet[alphabet.indexOf(last) + 1] + "==";
    expect(Buffer.from(tweaked, "base64").equals(Buffer.from(s!, "base64"))).toBe(true);
    expect(verify(`${p}.${tweaked}`)).toMatchObject({ state: "invalid", reason: "format" });
  });

  test("a signature that is not 64 bytes is invalid", () => {
    const [p] = token().split(".");
    expect(verify(`${p}.${encodeBase64(new Uint8Array(63))}`)).toMatchObject({ state: "invalid", reason: "format" });
  });

  test("a token longer than 16 KiB is refused before decoding", () => {
    expect(verify(token({ cust: "x".repeat(13_000) }))).toMatchObject({ state: "invalid", reason: "format" });
    expect(verify(token({ cust: "x".repeat(11_000) })).state).toBe("valid");
  });

  test("decodeBase64Strict accepts canonical padded Base64 only", () => {
    expect(decodeBase64Strict("QQ==")).toEqual(new Uint8Array([65]));
    expect(decodeBase64Strict("QUI=")).toEqual(new Uint8Array([65, 66]));
    for (const bad of ["QQ", "QQ=", "QR==", "Q===", "QU I=", "QUI=QUI=", "", "-_8="]) expect(decodeBase64Strict(bad)).toBeNull();
  });
});

describe("signature", () => {
  test("the signature covers the exact payload bytes: unusual spacing and key order still verify", () => {
    const raw = `{ "iat": 1, "key": "OOSY-1",\n "plan": "life", "conns": 60, "kind": "enterprise", "prod": "svc-online", "v": 2 }`;
    const s = verify(signToken(raw, PRIV));
    expect(s).toMatchObject({ state: "valid", plan: "life", conns: 60 });
  });

  test("a flipped signature byte is invalid", () => {
    const [p, s] = token().split(".");
    const sig = Buffer.from(s!, "base64");
    sig[10]! ^= 1;
    expect(verify(`${p}.${sig.toString("base64")}`)).toMatchObject({ state: "invalid", reason: "signature" });
  });

  test("a payload changed after signing is invalid", () => {
    const [, s] = token().split(".");
    const forged = Buffer.from(JSON.stringify({ ...BASE, conns: 5000 })).toString("base64");
    expect(verify(`${forged}.${s}`)).toMatchObject({ state: "invalid", reason: "signature" });
  });

  test("a token signed with another key is invalid", () => {
    expect(verify(token(), { publicKey: OTHER.publicKey })).toMatchObject({ state: "invalid", reason: "signature", kind: null });
  });

  test("a missing or malformed public key makes any token invalid, but no token is still none", () => {
    for (const publicKey of ["", "not base64", encodeBase64(new Uint8Array(31)), PAIR.publicKey.replace(/=$/, "")]) {
      expect(verify(token(), { publicKey })).toMatchObject({ state: "invalid", reason: "public_key" });
    }
    expect(verify(null, { publicKey: "" }).state).toBe("none");
    expect(verify(token(), { publicKey: `  ${PAIR.publicKey}\n` }).state).toBe("valid");
  });

  test("a payload that is not JSON, or not a JSON object, is invalid", () => {
    expect(verify(signToken("not json", PRIV))).toMatchObject({ state: "invalid", reason: "json" });
    expect(verify(signToken("[1,2]", PRIV))).toMatchObject({ state: "invalid", reason: "field:payload" });
    expect(verify(signToken("null", PRIV))).toMatchObject({ state: "invalid", reason: "field:payload" });
  });
});

describe("payload fields", () => {
  test("unknown fields are ignored, and lid/aid of any type too", () => {
    expect(verify(token({ extra: { a: 1 }, lid: 42, aid: "whatever", future_field: [1, 2] })).state).toBe("valid");
  });

  test("v accepts 1 and 2; 3, 0 and '1' are invalid", () => {
    expect(verify(token({ v: 1 })).state).toBe("valid");
    expect(verify(token({ v: 2 })).state).toBe("valid");
    for (const v of [3, 0, "1", 1.5]) expect(verify(token({ v }))).toMatchObject({ state: "invalid", reason: "field:v" });
  });

  test("each required field missing gives invalid, naming the field", () => {
    for (const field of ["v", "prod", "kind", "conns", "plan", "key", "iat"]) {
      expect(verify(token({ [field]: undefined }))).toMatchObject({ state: "invalid", reason: `field:${field}` });
    }
  });

  test("exp is required for annual plans and optional for perpetual ones", () => {
    expect(verify(token({ exp: undefined }))).toMatchObject({ state: "invalid", reason: "field:exp" });
    expect(verify(token({ exp: null }))).toMatchObject({ state: "invalid", reason: "field:exp" });
    expect(verify(token({ plan: "life", exp: undefined, upd: undefined })).state).toBe("valid");
  });

  test("exp and upd must be real calendar dates YYYY-MM-DD", () => {
    for (const exp of ["2026-02-30", "2026-13-01", "2026-2-3", "31/12/2026", "2026-12-31T00:00:00Z", 20261231]) {
      expect(verify(token({ exp }))).toMatchObject({ state: "invalid", reason: "field:exp" });
    }
    expect(verify(token({ plan: "life", exp: "2026-02-30" }))).toMatchObject({ state: "invalid", reason: "field:exp" });
    expect(verify(token({ exp: "2028-02-29", upd: "2028-03-07" })).state).toBe("valid");
    for (const upd of ["2027-01-32", "tomorrow", 5]) expect(verify(token({ upd }))).toMatchObject({ state: "invalid", reason: "field:upd" });
  });

  test("conns must be an integer of 1 or more", () => {
    for (const conns of [0, -5, 1.5, "120", null, Number.MAX_SAFE_INTEGER + 2]) {
      expect(verify(token({ conns }))).toMatchObject({ state: "invalid", reason: "field:conns" });
    }
    expect(verify(token({ conns: 1 }))).toMatchObject({ state: "valid", conns: 1 });
  });

  test("kind must be enterprise or community; plan must be year or life", () => {
    expect(verify(token({ kind: "pro" }))).toMatchObject({ state: "invalid", reason: "field:kind" });
    expect(verify(token({ plan: "month" }))).toMatchObject({ state: "invalid", reason: "field:plan" });
  });

  test("feat is an optional array of strings, default []", () => {
    expect(verify(token({ feat: undefined }))).toMatchObject({ state: "valid", features: [] });
    expect(verify(token({ feat: ["api_full", "callback", "whitelabel"] })).features).toEqual(["api_full", "callback", "whitelabel"]);
    expect(verify(token({ feat: "api_full" }))).toMatchObject({ state: "invalid", reason: "field:feat" });
    expect(verify(token({ feat: [1] }))).toMatchObject({ state: "invalid", reason: "field:feat" });
  });

  test("key is a required non-empty string whose shape is not checked", () => {
    expect(verify(token({ key: "anything at all" }))).toMatchObject({ state: "valid", key_hint: "t all" });
    expect(verify(token({ key: "ab" }))).toMatchObject({ state: "valid", key_hint: "ab" });
    expect(verify(token({ key: "" }))).toMatchObject({ state: "invalid", reason: "field:key" });
    expect(verify(token({ key: 12345 }))).toMatchObject({ state: "invalid", reason: "field:key" });
  });

  test("mid, cust and iat have their types checked", () => {
    expect(verify(token({ mid: 7 }))).toMatchObject({ state: "invalid", reason: "field:mid" });
    expect(verify(token({ cust: ["A"] }))).toMatchObject({ state: "invalid", reason: "field:cust" });
    expect(verify(token({ iat: "1767225600" }))).toMatchObject({ state: "invalid", reason: "field:iat" });
    for (const iat of [1e308, -1, 2 ** 63]) expect(verify(token({ iat }))).toMatchObject({ state: "invalid", reason: "field:iat" });
    expect(verify(token({ cust: undefined }))).toMatchObject({ state: "valid", customer: null });
  });

  test("optional fields given as null count as absent", () => {
    expect(verify(token({ upd: null, feat: null, mid: null, cust: null }))).toMatchObject({ state: "valid", upd: null, features: [], customer: null });
  });

  test("key_hint shows only the last 5 characters of the license code", () => {
    const s = verify(token({ key: "OOSY-SECRE-TPART-XXXXX-9K3LM" }));
    expect(s.key_hint).toBe("9K3LM");
    expect(JSON.stringify(licenseStatusView(s))).not.toContain("SECRE");
  });
});

describe("states", () => {
  test("wrong product: prod other than svc-online, with the token's fields shown", () => {
    expect(verify(token({ prod: "svc-desktop" }))).toMatchObject({ state: "wrong_product", kind: "enterprise", conns: 120 });
    expect(verify(token({ prod: 1 }))).toMatchObject({ state: "invalid", reason: "field:prod" });
  });

  test("community kind token is valid but gives the community edition", () => {
    const s = verify(token({ kind: "community", conns: 500 }));
    expect(s).toMatchObject({ state: "valid", kind: "community" });
    expect(entitlementOf(s).gate.edition).toBe("community");
    expect(entitlementOf(s).docbuilder.edition).toBe("community");
    expect(connectionCap(s)).toEqual({ limit: 50, plan_limit: 50, cap: null });
  });

  describe("expiry: exp is valid to the end of that day in UTC+7", () => {
    // exp 2026-12-31 ends at 2027-01-01T00:00+07:00 = 2026-12-31T17:00:00Z; grace ends 7 days later.
    const t = token({ exp: "2026-12-31", upd: "2027-01-07" });

    test("valid at 16:59:59.999Z on the exp day, grace from 17:00:00Z", () => {
      expect(verify(t, at("2026-12-31T16:59:59Z"))).toMatchObject({ state: "valid", grace_days_left: null });
      expect(verify(t, at("2026-12-31T16:59:59.999Z")).state).toBe("valid");
      expect(verify(t, at("2026-12-31T17:00:00Z"))).toMatchObject({ state: "grace", grace_days_left: 7 });
    });

    test("grace_days_left is the ceiling of the remaining grace time in days (7 down to 1)", () => {
      const vectors: [string, number][] = [
        ["2026-12-31T17:00:00.000Z", 7],
        ["2027-01-01T16:59:59.999Z", 7],
        ["2027-01-01T17:00:00.000Z", 6],
        ["2027-01-04T03:00:00.000Z", 4],
        ["2027-01-06T17:00:00.000Z", 1],
        ["2027-01-07T16:59:59.999Z", 1],
      ];
      for (const [when, left] of vectors) expect(verify(t, at(when))).toMatchObject({ state: "grace", grace_days_left: left });
    });

    test("expired from the end of the 7th day after exp (2027-01-07T17:00:00Z), and later", () => {
      expect(verify(t, at("2027-01-07T17:00:00.000Z"))).toMatchObject({ state: "expired", grace_days_left: null, kind: "enterprise" });
      expect(verify(t, at("2030-01-01T00:00:00Z")).state).toBe("expired");
    });

    test("the grace and expiry boundaries do not depend on the time of day of signing", () => {
      const other = token({ exp: "2026-12-31", upd: "2027-01-07", iat: 1_790_000_000 });
      expect(verify(other, at("2027-01-07T16:59:59.999Z")).state).toBe("grace");
    });
  });

  test("perpetual tokens never expire, whatever exp says", () => {
    expect(verify(token({ plan: "life", exp: undefined, upd: undefined }), at("2199-01-01T00:00:00Z")).state).toBe("valid");
    expect(verify(token({ plan: "life", exp: "2020-01-01", upd: undefined }), at("2199-01-01T00:00:00Z")).state).toBe("valid");
  });

  describe("update rights: upd against the build date of the image", () => {
    test("an image built on upd accepts the token; built the day after rejects it", () => {
      expect(verify(token({ upd: "2027-01-07" }), { buildDate: "2027-01-07" }).state).toBe("valid");
      expect(verify(token({ upd: "2027-01-07" }), { buildDate: "2027-01-08" })).toMatchObject({ state: "update_expired", upd: "2027-01-07" });
      expect(verify(token({ upd: "2027-01-07" }), { buildDate: "2026-01-01" }).state).toBe("valid");
    });

    test("without upd there is no update limit", () => {
      expect(verify(token({ upd: undefined }), { buildDate: "2099-12-31" }).state).toBe("valid");
    });

    test("perpetual tokens lose the image after upd but still never expire", () => {
      const t = token({ plan: "life", exp: undefined, upd: "2029-11-22" });
      expect(verify(t, { buildDate: "2029-11-22", ...at("2150-01-01T00:00:00Z") }).state).toBe("valid");
      expect(verify(t, { buildDate: "2029-11-23" }).state).toBe("update_expired");
    });

    test("a malformed build date is a programming error", () => {
      expect(() => verify(token(), { buildDate: "2026-11-31" })).toThrow();
      expect(() => verify(null, { buildDate: "" })).toThrow();
    });
  });

  describe("instance binding (mid)", () => {
    test("mid equal to the instance id is valid", () => {
      expect(verify(token({ mid: OPTS.instanceId })).state).toBe("valid");
    });
    test("mid of another instance gives instance_mismatch", () => {
      expect(verify(token({ mid: "inst_ffffffffffffffff" }))).toMatchObject({ state: "instance_mismatch", conns: 120 });
      expect(verify(token({ mid: "inst_0123456789abcdef" }), { instanceId: "" }).state).toBe("instance_mismatch");
      expect(verify(token({ mid: "INST_0123456789ABCDEF" })).state).toBe("instance_mismatch");
    });
    test("mid '*', empty or absent means unbound", () => {
      for (const mid of ["*", "", undefined, null]) expect(verify(token({ mid })).state).toBe("valid");
    });
  });

  describe("TEST keys: key starting with TEST- or containing -TEST-", () => {
    test("isTestKey", () => {
      for (const k of ["TEST-00000-00000", "OOSY-TEST-12345-ABCDE", "oosy-test-1", "test-x"]) expect(isTestKey(k)).toBe(true);
      for (const k of ["OOSY-TESTA-12345", "OOSY-ATEST-1", "OOSY-12345-TEST", "CONTEST-1", "OOSYTEST-1"]) expect(isTestKey(k)).toBe(false);
    });
    test("a TEST key outside DEV mode is invalid", () => {
      expect(verify(token({ key: "TEST-00000-00000-00000-00001" }))).toMatchObject({ state: "invalid", reason: "test_key", kind: "enterprise" });
      expect(verify(token({ key: "OOSY-TEST-00000-00000-00001" }))).toMatchObject({ state: "invalid", reason: "test_key" });
    });
    test("a TEST key in DEV mode is accepted", () => {
      expect(verify(token({ key: "TEST-00000-00000-00000-00001" }), { devMode: true }).state).toBe("valid");
    });
  });

  describe("precedence: invalid → wrong_product → TEST key → instance_mismatch → update_expired → expiry", () => {
    const late = { buildDate: "2027-06-01", ...at("2028-01-01T00:00:00Z") }; // after upd and past grace
    const all = { prod: "other", key: "TEST-1", mid: "inst_ffffffffffffffff" };

    test("bad fields win over everything", () => {
      expect(verify(token({ ...all, conns: 0 }), late)).toMatchObject({ state: "invalid", reason: "field:conns" });
    });
    test("wrong_product wins over TEST key, instance, update and expiry", () => {
      expect(verify(token(all), late).state).toBe("wrong_product");
    });
    test("a TEST key outside DEV mode wins over instance, update and expiry", () => {
      expect(verify(token({ ...all, prod: "svc-online" }), late)).toMatchObject({ state: "invalid", reason: "test_key" });
    });
    test("instance_mismatch wins over update and expiry", () => {
      expect(verify(token({ mid: all.mid }), late).state).toBe("instance_mismatch");
      expect(verify(token({ ...all, prod: "svc-online" }), { ...late, devMode: true }).state).toBe("instance_mismatch");
    });
    test("update_expired wins over expiry", () => {
      expect(verify(token(), late).state).toBe("update_expired");
      expect(verify(token(), { ...late, buildDate: "2027-01-07" }).state).toBe("expired");
    });
  });
});

describe("entitlements", () => {
  const ent = (t: string | null, o: Partial<VerifyOptions> = {}) => entitlementOf(verify(t, o));

  test("no token: community for the gate and DocBuilder", () => {
    expect(ent(null)).toEqual({ gate: { edition: "community", features: [] }, docbuilder: { edition: "community", features: [] } });
  });

  test("valid enterprise token with api_full: enterprise for both, with conns and features", () => {
    const e = ent(token({ feat: ["api_full", "callback"] }));
    expect(e.gate).toEqual({ edition: "enterprise", features: ["api_full", "callback"], conns: 120 });
    expect(e.docbuilder).toEqual({ edition: "enterprise", features: ["api_full", "callback"], conns: 120 });
  });

  test("DocBuilder needs api_full: without it the gate is enterprise and DocBuilder community, its features still the token's (GET /v1/limits features: from the token)", () => {
    const e = ent(token({ feat: ["whitelabel", "callback"] }));
    expect(e.gate).toEqual({ edition: "enterprise", features: ["whitelabel", "callback"], conns: 120 });
    expect(e.docbuilder).toEqual({ edition: "community", features: ["whitelabel", "callback"] });
  });

  test("grace keeps enterprise; expired and every other state give community", () => {
    expect(ent(token(), at("2027-01-02T00:00:00Z")).gate.edition).toBe("enterprise");
    expect(ent(token(), at("2027-01-02T00:00:00Z")).docbuilder.edition).toBe("enterprise");
    expect(ent(token(), at("2027-01-08T00:00:00Z")).gate.edition).toBe("community");
    expect(ent(token({ prod: "x" })).gate.edition).toBe("community");
    expect(ent(token({ key: "TEST-1" })).gate.edition).toBe("community");
    expect(ent(token({ mid: "inst_ffff0000ffff0000" })).gate.edition).toBe("community");
    expect(ent(token(), { buildDate: "2027-01-08" }).gate.edition).toBe("community");
    expect(ent(token(), { publicKey: OTHER.publicKey }).gate.edition).toBe("community");
  });
});

describe("connection cap", () => {
  test("community (no token) is 50", () => {
    expect(connectionCap(verify(null))).toEqual({ limit: 50, plan_limit: 50, cap: null });
  });
  test("enterprise is exactly conns, even below 50", () => {
    expect(connectionCap(verify(token({ conns: 20 })))).toEqual({ limit: 20, plan_limit: 20, cap: null });
    expect(connectionCap(verify(token({ conns: 120 })))).toEqual({ limit: 120, plan_limit: 120, cap: null });
  });
  test("SVC_GATE_CONNECTION_CAP only lowers the cap", () => {
    expect(connectionCap(verify(token({ conns: 120 })), 100)).toEqual({ limit: 100, plan_limit: 120, cap: 100 });
    expect(connectionCap(verify(token({ conns: 120 })), 500)).toEqual({ limit: 120, plan_limit: 120, cap: 500 });
    expect(connectionCap(verify(null), 30)).toEqual({ limit: 30, plan_limit: 50, cap: 30 });
    expect(connectionCap(verify(null), 80)).toEqual({ limit: 50, plan_limit: 50, cap: 80 });
  });
  test("an expired enterprise token falls back to 50", () => {
    expect(connectionCap(verify(token({ conns: 500 })), undefined).limit).toBe(500);
    expect(connectionCap(verify(token({ conns: 500 }), at("2027-02-01T00:00:00Z"))).limit).toBe(50);
  });
});

describe("date helpers and build date", () => {
  test("endOfDayUtc7 is 17:00 UTC of that date", () => {
    expect(new Date(endOfDayUtc7("2026-12-31")).toISOString()).toBe("2026-12-31T17:00:00.000Z");
    expect(new Date(endOfDayUtc7("2028-02-29")).toISOString()).toBe("2028-02-29T17:00:00.000Z");
  });
  test("dateInUtc7 turns over at 17:00 UTC", () => {
    expect(dateInUtc7(Date.parse("2026-12-31T16:59:59Z"))).toBe("2026-12-31");
    expect(dateInUtc7(Date.parse("2026-12-31T17:00:00Z"))).toBe("2027-01-01");
  });
  test("addDays and addYears", () => {
    expect(addDays("2026-12-31", 7)).toBe("2027-01-07");
    expect(addYears("2026-11-22", 3)).toBe("2029-11-22");
    expect(addYears("2028-02-29", 1)).toBe("2029-02-28");
  });
  test("BUILD_DATE is a calendar date", () => {
    expect(BUILD_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(() => verify(null, { buildDate: BUILD_DATE })).not.toThrow();
  });
});
