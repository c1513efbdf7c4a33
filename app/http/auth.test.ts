import { describe, expect, test } from "bun:test";
import { sign } from "hono/jwt";
import { ManualClock } from "../clock";
import { ServiceError } from "../errors";
import { createAuthenticator } from "./auth";

const KEY = "svc_test_key_aaaaaaaaaaaaaaaaaaaa";
const SECRET = "s".repeat(40);
const clock = new ManualClock();
const nowS = () => Math.floor(clock.now() / 1000);
const auth = createAuthenticator({ apiKeys: [{ name: "ci", key: KEY }], jwtSecret: SECRET, clock });

async function failure(header: string | undefined, a = auth) {
  try {
    await a(header);
  } catch (e) {
    if (e instanceof ServiceError) return { code: e.code, reason: e.detail.reason };
    throw e;
  }
  throw new Error("expected a failure");
}

const b64url = (s: string) => Buffer.from(s).toString("base64url");

describe("DocBuilder authentication", () => {
  test("a configured API key is accepted and labelled by its name", async () => {
    expect(await auth(`Bearer ${KEY}`)).toEqual({ caller: "ci", kind: "api_key" });
  });

  test("unauthorized with reason missing when there is no bearer credential", async () => {
    expect(await failure(undefined)).toEqual({ code: "unauthorized", reason: "missing" });
    expect(await failure(`Basic ${KEY}`)).toEqual({ code: "unauthorized", reason: "missing" });
  });

  test("unauthorized with reason invalid for a wrong key", async () => {
    expect(await failure(`Bearer ${KEY.slice(0, -1)}b`)).toEqual({ code: "unauthorized", reason: "invalid" });
  });

  test("unauthorized with reason no_keys_configured when neither keys nor JWT secret exist", async () => {
    const bare = createAuthenticator({ apiKeys: [], jwtSecret: "", clock });
    expect(await failure(`Bearer ${KEY}`, bare)).toEqual({ code: "unauthorized", reason: "no_keys_configured" });
  });

  test("an HS256 JWT with exp within 24 hours is accepted and labelled by sub", async () => {
    const token = await sign({ sub: "billing", exp: nowS() + 3600 }, SECRET, "HS256");
    expect(await auth(`Bearer ${token}`)).toEqual({ caller: "billing", kind: "jwt" });
  });

  test("DocBuilder JWT rules name exp, lifetime, skew and algorithm only: a future nbf is accepted", async () => {
    const token = await sign({ sub: "billing", exp: nowS() + 3600, nbf: nowS() + 1800 }, SECRET, "HS256");
    expect(await auth(`Bearer ${token}`)).toEqual({ caller: "billing", kind: "jwt" });
  });

  test("token_expired past exp, with 60 seconds of skew allowed", async () => {
    const within = await sign({ exp: nowS() - 30 }, SECRET, "HS256");
    expect((await auth(`Bearer ${within}`)).kind).toBe("jwt");
    const past = await sign({ exp: nowS() - 61 }, SECRET, "HS256");
    expect((await failure(`Bearer ${past}`)).code).toBe("token_expired");
  });

  test("a JWT without exp or with exp more than 24 hours ahead is invalid", async () => {
    expect(await failure(`Bearer ${await sign({ sub: "x" }, SECRET, "HS256")}`)).toEqual({ code: "unauthorized", reason: "invalid" });
    const far = await sign({ exp: nowS() + 25 * 3600 }, SECRET, "HS256");
    expect(await failure(`Bearer ${far}`)).toEqual({ code: "unauthorized", reason: "invalid" });
  });

  test("a JWT whose exp, nbf or iat is out of range (1e308, 2^63, negative, not a number) is invalid, never a 500", async () => {
    for (const claims of [{ exp: 1e308 }, { exp: 2 ** 63 }, { exp: -1e308 }, { exp: "later" }, { exp: nowS() + 60, nbf: 1e308 }, { exp: nowS() + 60, iat: -1 }]) {
      const token = await sign(claims as any, SECRET, "HS256");
      expect([claims, await failure(`Bearer ${token}`)]).toEqual([claims, { code: "unauthorized", reason: "invalid" }]);
    }
  });

  test("every algorithm but HS256 is refused, none included", async () => {
    const none = `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify({ exp: nowS() + 60 }))}.`;
    expect(await failure(`Bearer ${none}`)).toEqual({ code: "unauthorized", reason: "invalid" });
    const hs512 = await sign({ exp: nowS() + 60 }, SECRET, "HS512");
    expect(await failure(`Bearer ${hs512}`)).toEqual({ code: "unauthorized", reason: "invalid" });
  });

  test("a JWT signed with another secret is invalid", async () => {
    const other = await sign({ exp: nowS() + 60 }, "o".repeat(40), "HS256");
    expect(await failure(`Bearer ${other}`)).toEqual({ code: "unauthorized", reason: "invalid" });
  });
});
