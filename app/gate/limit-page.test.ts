// The HTTP 429 limit page: everything interpolated into it (the user's own editor URL, the posted
// form fields, the figures, the edition) must stay text, whatever it contains; its buttons only ever
// lead to an editor page of this site; it runs no script. The browser flow is in
// limit-page.browser.test.ts.

import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ServiceError } from "../errors";
import { LIMIT_PAGE_CSP, LIMIT_PAGE_PREFIX, MAX_FORM_BYTES, limitPage, limitPageAnswer, limitPageLocation, postedLimitPage, readOnlyUrl, retryUrl } from "./limit-page";

const HOSTILE = `"><script>alert('x')</script><img src=x onerror=alert(1)>&amp;'`;
const EDITOR = "/browser/h/ed.html?WOPISrc=http%3A%2F%2Ff.example%2Fwopi%2Ffiles%2F1&lang=vi";
const FIGURES = { limit: 1, current: 1, edition: "community" };
const page = (html: string) => new PageAttrs(html);

/** Attributes of the page's links, forms and inputs, read back as a browser would (entities decoded). */
class PageAttrs {
  constructor(readonly html: string) {}
  private static decode = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
  attrs(tag: string, attr: string): string[] {
    return [...this.html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attr}="([^"]*)"`, "g"))].map((m) => PageAttrs.decode(m[1]!));
  }
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}
const post = (path: string, body: BodyInit, type = "application/x-www-form-urlencoded") =>
  new Request(`http://gate${path}`, { method: "POST", body, headers: type ? { "Content-Type": type } : {} });

describe("limit page escaping", () => {
  test("a hostile edition and hostile figures are escaped as text; the page has no script at all", () => {
    const html = limitPage({ limit: HOSTILE as unknown as number, current: `<script>1</script>` as unknown as number, edition: HOSTILE, rawUri: EDITOR });
    expect(html).not.toMatch(/<script\b/i);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("alert('x')");
    expect(html).toContain("&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;");
    expect(html).toContain("&#38;amp;");
  });

  test("the figures and the edition appear as given when harmless", () => {
    const html = limitPage({ limit: 50, current: 51, edition: "community", rawUri: EDITOR });
    expect(html).toContain("51 trên 50 phiên chỉnh sửa");
    expect(html).toContain("(phiên bản community)");
  });

  test("GET: the buttons are links to the editor URL with permission=readonly and to the same URL; a hostile URL stays data", () => {
    const uri = `/browser/h/ed.html?WOPISrc=${HOSTILE}&x=</script><script>alert(2)</script>&q="'\u2028<!--`;
    const html = limitPageAnswer({ ...FIGURES, rawUri: uri }).html;
    expect(html).not.toMatch(/<script\b/i);
    expect(html).not.toContain("<!--");
    expect(html).not.toContain("<img");
    const [ro, retry] = page(html).attrs("a", "href");
    const back = new URL(ro!, "http://x");
    expect(back.pathname).toBe("/browser/h/ed.html");
    expect(back.searchParams.get("permission")).toBe("readonly");
    expect(back.searchParams.get("x")).toBe("</script><script>alert(2)</script>");
    expect(new URL(retry!, "http://x").searchParams.get("x")).toBe("</script><script>alert(2)</script>");
    expect(html).not.toContain("<form");
  });

  test("POST: each button is a form that re-posts every field as a hidden input, hostile values kept as data", () => {
    const fields: [string, string][] = [
      ["access_token", "tok"],
      ["ui_defaults", HOSTILE],
      [`na"me<`, "v"],
    ];
    const html = limitPage({ ...FIGURES, rawUri: EDITOR, fields });
    expect(html).not.toMatch(/<script\b/i);
    expect(html).not.toContain("<img");
    const p = page(html);
    expect(p.attrs("form", "method")).toEqual(["post", "post"]);
    expect(p.attrs("form", "action")).toEqual([`${EDITOR}&permission=readonly`, EDITOR]);
    expect(p.attrs("input", "name")).toEqual([...fields.map(([k]) => k), ...fields.map(([k]) => k)]);
    expect(p.attrs("input", "value")).toEqual([...fields.map(([, v]) => v), ...fields.map(([, v]) => v)]);
    expect(html).not.toContain("<a ");
  });

  test("the buttons only ever lead to a path on the same site", () => {
    expect(readOnlyUrl("/browser/h/ed.html?WOPISrc=a&permission=edit")).toBe("/browser/h/ed.html?WOPISrc=a&permission=readonly");
    for (const bad of ["javascript:alert(1)", "//evil.example/x", "https://evil.example/", "/a/..//evil.example/x", "/\\evil.example/x", "x"]) {
      expect([bad, readOnlyUrl(bad), retryUrl(bad), limitPageLocation(bad)]).toEqual([bad, null, null, null]);
    }
    const html = limitPage({ ...FIGURES, rawUri: "javascript:alert(1)", fields: [["access_token", "t"]] });
    expect(html).not.toContain("javascript:");
    expect(html.match(/disabled>/g)).toHaveLength(2);
  });

  test("the page's Content-Security-Policy allows its own style by hash, no script, forms to this site only", () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(limitPage({ ...FIGURES, rawUri: EDITOR }))![1]!;
    expect(LIMIT_PAGE_CSP).toBe(`default-src 'none'; style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'; form-action 'self'; base-uri 'none'`);
    expect(limitPageAnswer({ ...FIGURES, rawUri: EDITOR })).toMatchObject({ status: 429, headers: { "Content-Security-Policy": LIMIT_PAGE_CSP, "Cache-Control": "no-store", "Retry-After": "30" } });
  });
});

describe("the limit page of a refused editor-page POST", () => {
  test("a refused POST of an editor page goes (307) to /svc/limit-page with the editor path and query; other URIs do not", () => {
    expect(limitPageLocation(EDITOR)).toBe(`${LIMIT_PAGE_PREFIX}${EDITOR}`);
    for (const other of ["/browser/h/other.html?x=1", "/ed/ws?WOPISrc=x", "/browser/a/b/ed.html", "/svc/status"]) expect([other, limitPageLocation(other)]).toEqual([other, null]);
  });

  test("carries the posted fields (urlencoded or multipart, files dropped) into both forms", async () => {
    const form = new FormData();
    form.append("access_token", "tok-1");
    form.append("access_token_ttl", "0");
    form.append("file", new Blob(["bytes"]), "a.bin");
    for (const req of [post(`${LIMIT_PAGE_PREFIX}${EDITOR}`, "access_token=tok-1&access_token_ttl=0"), new Request(`http://gate${LIMIT_PAGE_PREFIX}${EDITOR}`, { method: "POST", body: form })]) {
      const a = await postedLimitPage(req, () => FIGURES);
      expect(a.status).toBe(429);
      const p = page(a.html);
      expect(p.attrs("form", "action")).toEqual([`${EDITOR}&permission=readonly`, EDITOR]);
      expect(p.attrs("input", "name")).toEqual(["access_token", "access_token_ttl", "access_token", "access_token_ttl"]);
      expect(p.attrs("input", "value")).toEqual(["tok-1", "0", "tok-1", "0"]);
    }
  });

  test("refuses what is not an editor page's form: another path (404), another body (400), an oversized form (413)", async () => {
    expect((await failure(postedLimitPage(post(`${LIMIT_PAGE_PREFIX}/svc/status`, "a=1"), () => FIGURES))).code).toBe("not_found");
    expect((await failure(postedLimitPage(post(`${LIMIT_PAGE_PREFIX}//evil.example/browser/h/ed.html`, "a=1"), () => FIGURES))).code).toBe("not_found");
    const json = await failure(postedLimitPage(post(`${LIMIT_PAGE_PREFIX}${EDITOR}`, "{}", "application/json"), () => FIGURES));
    expect([json.code, json.status]).toEqual(["bad_request", 400]);
    const big = await failure(postedLimitPage(post(`${LIMIT_PAGE_PREFIX}${EDITOR}`, `a=${"x".repeat(MAX_FORM_BYTES)}`), () => FIGURES));
    expect([big.code, big.status, big.detail.limit_bytes]).toEqual(["bad_request", 413, MAX_FORM_BYTES]);
    const many = await failure(postedLimitPage(post(`${LIMIT_PAGE_PREFIX}${EDITOR}`, Array.from({ length: 65 }, (_, i) => `f${i}=1`).join("&")), () => FIGURES));
    expect(many.code).toBe("bad_request");
  });
});
