// A refused embed config names its cause (issue 25): wrong secret vs algorithm vs not a JWT vs
// expired vs too long vs fields outside the token, each in detail, with the spec's codes unchanged.
import { describe, expect, test } from "bun:test";
import { ServiceError } from "../errors";
import { resolveConfig, type SessionBody } from "./embed-config";
import { EMBED_SECRET, embedToken } from "./testing";

const AUTH = { jwtSecret: EMBED_SECRET, allowUnsigned: false };
const config = { document: { url: "https://files.example.com/a.docx", fileType: "docx", key: "k1" }, editor: { user: { id: "u1" } } };

async function refused(body: SessionBody): Promise<ServiceError> {
  const e = await resolveConfig(body, AUTH, Date.now()).then(
    () => null,
    (x) => x,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}

describe("token refusals name their cause", () => {
  test("wrong secret: invalid_token, reason signature, cause wrong_secret", async () => {
    const e = await refused({ token: await embedToken(config, { secret: "another-secret-another-secret-another" }) });
    expect([e.code, e.detail]).toEqual(["invalid_token", { reason: "signature", cause: "wrong_secret", alg: "HS256" }]);
    expect(e.message).toContain("SVC_EMBED_JWT_SECRET");
  });

  test("algorithm: HS384 and none are named with their alg", async () => {
    expect((await refused({ token: await embedToken(config, { alg: "HS384" }) })).detail).toEqual({ reason: "signature", cause: "algorithm", alg: "HS384" });
    expect((await refused({ token: await embedToken(config, { alg: "none" }) })).detail).toMatchObject({ cause: "algorithm", alg: "none" });
  });

  test("not a JWT: cause malformed", async () => {
    expect((await refused({ token: "abc" })).detail).toEqual({ reason: "signature", cause: "malformed" });
  });

  test("expired: token_expired with exp and how long ago", async () => {
    const e = await refused({ token: await embedToken(config, { expIn: -90 }) });
    expect(e.code).toBe("token_expired");
    expect(e.detail.reason).toBe("expired");
    expect(e.detail.expired_seconds_ago).toBeGreaterThanOrEqual(90);
    expect(typeof e.detail.exp).toBe("string");
  });

  test("too long and missing exp: the figures and the reason", async () => {
    const long = await refused({ token: await embedToken(config, { expIn: 25 * 3600 }) });
    expect(long.detail).toMatchObject({ reason: "too_long", max_seconds: 86400 });
    expect(Number(long.detail.seconds_ahead)).toBeGreaterThan(86400);
    expect((await refused({ token: await embedToken(config, { expIn: null }) })).detail).toEqual({ reason: "missing_exp" });
  });

  test("a claim outside the token: document beside a token that lacks it is invalid_config with outside_token", async () => {
    const e = await refused({ token: await embedToken({ editor: config.editor }), document: config.document });
    expect(e.code).toBe("invalid_config");
    expect(e.detail.outside_token).toEqual(["document"]);
    expect(e.message).toContain("nằm ngoài token");
    // Also on a signature refusal: the partly signed body is named.
    const bad = await refused({ token: await embedToken(config, { secret: "x".repeat(40) }), ui: {} });
    expect(bad.detail.outside_token).toEqual(["ui"]);
  });
});
