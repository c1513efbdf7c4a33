// The embed configuration and its token (spec: "Embed configuration", "Embed session creation"),
// checked without HTTP: every token rule, every field problem with its JSON Pointer, the 415, and
// the defaults the spec leaves open.

import { describe, expect, test } from "bun:test";
import { ServiceError } from "../errors";
import { EMBED_FILE_TYPES } from "../../schemas/embed";
import { baseFileName, resolveConfig, uiDefaults, type SessionBody } from "./embed-config";
import { EMBED_SECRET, embedToken } from "./testing";

const SIGNED = { jwtSecret: EMBED_SECRET, allowUnsigned: false };
const UNSIGNED = { jwtSecret: "", allowUnsigned: true };
const config = {
  document: { url: "https://files.example/docs/B%C3%A1o%20c%C3%A1o.docx", fileType: "docx", key: "doc-1.v2" },
  editor: { mode: "edit", lang: "en", user: { id: "u1", name: "Lan" }, callbackUrl: "https://app.example/cb" },
};

async function failure(body: SessionBody, auth = SIGNED): Promise<ServiceError> {
  try {
    await resolveConfig(body, auth, Date.now());
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error("resolved, expected an error");
}

describe("embed config token (HS256 JWT whose payload is the config)", () => {
  test("a valid token replaces document, editor and ui of the body", async () => {
    const token = await embedToken({ ...config, ui: { closeButton: true } });
    const r = await resolveConfig({ token, document: { url: "https://evil.example/x.docx", fileType: "docx", key: "other" } }, SIGNED, Date.now());
    expect(r.document).toEqual({ url: config.document.url, fileType: "docx", key: "doc-1.v2", title: "Báo cáo.docx" });
    expect(r.editor).toEqual({ mode: "edit", lang: "en", user: { id: "u1", name: "Lan" }, callbackUrl: "https://app.example/cb" });
    expect(r.ui.closeButton).toBe(true);
    expect(r.signed).toBe(true);
  });

  test("token_required: the server has a secret and the body has no token", async () => {
    expect((await failure(config)).code).toBe("token_required");
  });

  test("invalid_token: a bad signature, alg none, HS384, HS512, a missing exp, exp more than 24 h away, garbage", async () => {
    const cases: [string, string][] = [
      [await embedToken(config, { secret: "another-secret-another-secret-xx" }), "signature"],
      [await embedToken(config, { alg: "none" }), "signature"],
      [await embedToken(config, { alg: "HS384" }), "signature"],
      [await embedToken(config, { alg: "HS512" }), "signature"],
      [await embedToken(config, { expIn: null }), "missing_exp"],
      [await embedToken(config, { expIn: 24 * 3600 + 120 }), "too_long"],
      ["not.a.jwt", "signature"],
      ["abc", "signature"],
    ];
    for (const [token, reason] of cases) {
      const e = await failure({ token });
      expect([reason, e.code, e.detail.reason]).toEqual([reason, "invalid_token", reason]);
      expect(e.status).toBe(401);
    }
    // Exactly 24 h ahead is allowed.
    expect((await resolveConfig({ token: await embedToken(config, { expIn: 24 * 3600 }) }, SIGNED, Date.now())).document.key).toBe("doc-1.v2");
  });

  test("embed token rules name exp only: a token whose nbf is in the future is accepted (its range still checked)", async () => {
    const { sign } = await import("hono/jwt");
    const nowS = Math.floor(Date.now() / 1000);
    const token = await sign({ ...config, exp: nowS + 600, nbf: nowS + 3600 } as any, EMBED_SECRET, "HS256");
    expect((await resolveConfig({ token }, SIGNED, Date.now())).document.key).toBe("doc-1.v2");
  });

  test("invalid_token: every numeric claim is range-checked before use (exp 1e308, 2^63, -1e308, a string; nbf and iat too), never a 500", async () => {
    const { sign } = await import("hono/jwt");
    const nowS = Math.floor(Date.now() / 1000);
    const cases: [Record<string, unknown>, string][] = [
      [{ exp: 1e308 }, "bad_claim"],
      [{ exp: 2 ** 63 }, "bad_claim"],
      [{ exp: -1e308 }, "bad_claim"],
      [{ exp: -1 }, "bad_claim"],
      [{ exp: "soon" }, "bad_claim"],
      [{ exp: nowS + 60, nbf: 1e308 }, "bad_claim"],
      [{ exp: nowS + 60, iat: -(2 ** 63) }, "bad_claim"],
      [{ exp: nowS + 60, nbf: "now" }, "bad_claim"],
      [{ exp: 253_402_300_800 }, "bad_claim"],
      [{ exp: 253_402_300_799 }, "too_long"],
    ];
    for (const [claims, reason] of cases) {
      const e = await failure({ token: await sign({ ...config, ...claims } as any, EMBED_SECRET, "HS256") });
      expect([claims, e.code, e.status, e.detail.reason]).toEqual([claims, "invalid_token", 401, reason]);
      expect(e.message).toMatch(/^Token /);
    }
    // A fractional exp is a NumericDate (RFC 7519) and is accepted.
    expect((await resolveConfig({ token: await sign({ ...config, exp: nowS + 60.5 } as any, EMBED_SECRET, "HS256") }, SIGNED, Date.now())).signed).toBe(true);
  });

  test("embed JWTs get no clock skew on exp: token_expired from exp on, invalid_token past 24 h ahead", async () => {
    // The spec grants 60 s of skew to DocBuilder JWTs only; an embed token is checked at exp exactly.
    const now = Date.now();
    const nowS = Math.floor(now / 1000);
    const at = (expIn: number | null) => embedToken(config, { expIn, now });
    const expired = async (expIn: number) => {
      try {
        await resolveConfig({ token: await at(expIn) }, SIGNED, nowS * 1000);
      } catch (e) {
        return (e as ServiceError).code;
      }
      return "accepted";
    };
    expect(await expired(-1)).toBe("token_expired");
    expect(await expired(-30)).toBe("token_expired");
    expect(await expired(0)).toBe("token_expired");
    expect(await expired(1)).toBe("accepted");
    expect(await expired(24 * 3600)).toBe("accepted");
    expect(await expired(24 * 3600 + 30)).toBe("invalid_token");
  });

  test("embed_auth_not_configured: no secret and unsigned mode off, whatever the body holds", async () => {
    for (const body of [config, { token: await embedToken(config) }]) {
      const e = await failure(body, { jwtSecret: "", allowUnsigned: false });
      expect([e.code, e.status]).toEqual(["embed_auth_not_configured", 401]);
    }
  });

  test("unsigned mode takes the body's config; a token there cannot be checked and is refused", async () => {
    expect((await resolveConfig(config, UNSIGNED, Date.now())).signed).toBe(false);
    const e = await failure({ token: await embedToken(config) }, UNSIGNED);
    expect([e.code, e.detail.reason]).toEqual(["invalid_token", "no_secret"]);
  });
});

describe("invalid_config: every problem with its path", () => {
  test("editor is required: a config without editor is 400 invalid_config at /editor", async () => {
    const { editor: _, ...noEditor } = config;
    const e = await failure(noEditor, UNSIGNED);
    expect([e.code, e.status]).toEqual(["invalid_config", 400]);
    expect(e.detail.errors).toEqual([{ path: "/editor", message: expect.any(String) }]);
    expect(e.message).toContain("/editor");
    // The same from a signed token whose payload has no editor.
    const t = await failure({ token: await embedToken(noEditor) });
    expect([t.code, (t.detail.errors as { path: string }[]).map((x) => x.path)]).toEqual(["invalid_config", ["/editor"]]);
    // An empty editor object is enough: its fields have defaults (schemas/embed.ts).
    expect((await resolveConfig({ ...noEditor, editor: {} }, UNSIGNED, Date.now())).editor.mode).toBe("edit");
  });

  test("missing document and editor fields", async () => {
    const e = await failure({ document: {} }, UNSIGNED);
    expect(e.code).toBe("invalid_config");
    expect(e.status).toBe(400);
    const paths = (e.detail.errors as { path: string }[]).map((x) => x.path).sort();
    expect(paths).toEqual(["/document/fileType", "/document/key", "/document/url", "/editor"]);
    expect((await failure({}, UNSIGNED)).detail.errors).toEqual([
      { path: "/document", message: expect.any(String) },
      { path: "/editor", message: expect.any(String) },
    ]);
  });

  test("each field's rule", async () => {
    const bad = {
      document: { url: "ftp://files.example/a.docx", fileType: "docx", key: "has space", title: "" },
      editor: { mode: "write", lang: "english!", user: { id: 'a"b', name: "" }, callbackUrl: "not a url" },
      ui: { closeButton: "yes", width: "wide", colour: "red" },
    };
    const e = await failure(bad as SessionBody, UNSIGNED);
    const byPath = Object.fromEntries((e.detail.errors as { path: string; message: string }[]).map((x) => [x.path, x.message]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        "/document/url",
        "/document/key",
        "/document/title",
        "/editor/mode",
        "/editor/lang",
        "/editor/user/id",
        "/editor/user/name",
        "/editor/callbackUrl",
        "/ui/closeButton",
        "/ui/width",
        "/ui/colour",
      ].sort(),
    );
    expect(byPath["/document/key"]).toContain("A-Z a-z 0-9 . _ -");
    expect(byPath["/ui/colour"]).toBe("unknown field: colour");
    expect(e.message).toMatch(/^Cấu hình nhúng có 11 lỗi/);
  });

  test("a key of 128 characters is accepted, 129 is not", async () => {
    const ok = await resolveConfig({ ...config, document: { ...config.document, key: "k".repeat(128) } }, UNSIGNED, Date.now());
    expect(ok.document.key.length).toBe(128);
    expect((await failure({ ...config, document: { ...config.document, key: "k".repeat(129) } }, UNSIGNED)).code).toBe("invalid_config");
  });

  test("the token's payload is checked the same way, its JWT claims aside", async () => {
    const e = await failure({ token: await embedToken({ document: { url: "x" }, sub: "app", iss: "me", jti: "1", surprise: true }) });
    expect(e.code).toBe("invalid_config");
    expect((e.detail.errors as { path: string }[]).map((x) => x.path).sort()).toEqual(["/document/fileType", "/document/key", "/document/url", "/editor", "/surprise"]);
  });
});

describe("unsupported_file_type", () => {
  test("fileType is exact: one of the 12 lowercase values as sent, anything else 415 (no lowercasing, no dot stripping)", async () => {
    for (const fileType of ["pdf", "docm", "png", "xlsm", "DOCX", "Docx", ".docx", ".odt", " docx", "docx ", "", "docx.", "doc x"]) {
      const e = await failure({ ...config, document: { ...config.document, fileType } }, UNSIGNED);
      expect([fileType, e.code, e.status]).toEqual([fileType, "unsupported_file_type", 415]);
      expect(e.detail.allowed).toEqual([...EMBED_FILE_TYPES]);
      expect(e.detail.fileType).toBe(fileType);
    }
    for (const fileType of EMBED_FILE_TYPES) {
      const r = await resolveConfig({ ...config, document: { ...config.document, fileType } }, UNSIGNED, Date.now());
      expect(r.document.fileType).toBe(fileType);
    }
    // Not a string at all is a field problem (400), like a missing fileType.
    expect((await failure({ ...config, document: { ...config.document, fileType: 7 } } as SessionBody, UNSIGNED)).code).toBe("invalid_config");
  });
});

describe("defaults the spec leaves open", () => {
  test("mode edit, lang vi, a guest user, title from the URL's file name, ui defaults", async () => {
    const r = await resolveConfig({ document: { url: "https://f.example/a/Hợp%20đồng.docx?x=1", fileType: "docx", key: "k" }, editor: {} }, UNSIGNED, Date.now());
    expect(r.editor.mode).toBe("edit");
    expect(r.editor.lang).toBe("vi");
    expect(r.editor.user.id).toMatch(/^guest-[0-9a-f]{8}$/);
    expect(r.editor.user.name).toBe("Khách");
    expect(r.editor.callbackUrl).toBeNull();
    expect(r.document.title).toBe("Hợp đồng.docx");
    expect(r.ui).toEqual({ width: "100%", height: "100%", toolbar: "tabbed", closeButton: false, print: true, export: true, copy: true, userList: true });
    const noName = await resolveConfig({ document: { url: "https://f.example/", fileType: "xlsx", key: "k2" }, editor: { user: { id: 42 } } }, UNSIGNED, Date.now());
    expect(noName.document.title).toBe("k2.xlsx");
    expect(noName.editor.user).toEqual({ id: "42", name: "42" });
  });

  test("the file name shown by the editor has the type's extension and no path separator", () => {
    expect(baseFileName("Báo cáo", "docx")).toBe("Báo cáo.docx");
    expect(baseFileName("Q3/2026 report.DOCX", "docx")).toBe("Q3_2026 report.DOCX");
    expect(baseFileName("a\\b.xlsx", "xlsx")).toBe("a_b.xlsx");
  });

  test("ui_defaults in Collabora's form", () => {
    const ui = { width: "100%", height: "100%", toolbar: "tabbed", closeButton: false, print: true, export: true, copy: true, userList: true, ruler: false, statusbar: true } as const;
    expect(uiDefaults(ui)).toBe("UIMode=tabbed;TextRuler=false;TextStatusbar=true;SpreadsheetStatusbar=true;PresentationStatusbar=true");
  });
});
