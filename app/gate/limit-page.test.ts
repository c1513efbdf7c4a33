// The HTTP 429 limit page: everything interpolated into it (the user's own editor URL, the figures,
// the edition) must stay text, whatever it contains.

import { describe, expect, test } from "bun:test";
import { limitPage, readOnlyUrl } from "./limit-page";

const HOSTILE = `"><script>alert('x')</script><img src=x onerror=alert(1)>&amp;'`;
const scripts = (html: string) => html.match(/<script\b/gi) ?? [];
/** The read-only URL as the page's script will see it. */
const roOf = (html: string) => JSON.parse(/var ro=(.*?);\n/.exec(html)![1]!) as string | null;

describe("limit page escaping", () => {
  test("a hostile edition and hostile figures are escaped as text", () => {
    const html = limitPage({ limit: HOSTILE as unknown as number, current: `<script>1</script>` as unknown as number, edition: HOSTILE, rawUri: "/browser/h/ed.html?WOPISrc=x" });
    expect(scripts(html)).toHaveLength(1); // the page's own
    expect(html).not.toContain("<img");
    expect(html).not.toContain("alert('x')");
    expect(html).toContain("&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;");
    expect(html).toContain("&#38;amp;");
  });

  test("the figures and the edition appear as given when harmless", () => {
    const html = limitPage({ limit: 50, current: 51, edition: "community", rawUri: "/browser/h/ed.html?WOPISrc=x" });
    expect(html).toContain("51 trên 50 phiên chỉnh sửa");
    expect(html).toContain("(phiên bản community)");
  });

  test("a hostile editor URL cannot close the script or inject markup, and survives as data", () => {
    const uri = `/browser/h/ed.html?WOPISrc=${HOSTILE}&x=</script><script>alert(2)</script>&q="'\u2028<!--`;
    const html = limitPage({ limit: 1, current: 1, edition: "community", rawUri: uri });
    expect(scripts(html)).toHaveLength(1);
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
    expect(html).not.toContain("<!--");
    expect(html).not.toContain("<img");
    const ro = roOf(html)!;
    const back = new URL(ro, "http://x");
    expect(back.pathname).toBe("/browser/h/ed.html");
    expect(back.searchParams.get("permission")).toBe("readonly");
    expect(back.searchParams.get("x")).toBe("</script><script>alert(2)</script>");
  });

  test("the read-only button only ever leads to a path on the same site", () => {
    expect(readOnlyUrl("/browser/h/ed.html?WOPISrc=a&permission=edit")).toBe("/browser/h/ed.html?WOPISrc=a&permission=readonly");
    for (const bad of ["javascript:alert(1)", "//evil.example/x", "https://evil.example/", "/a/..//evil.example/x", "/\\evil.example/x", "x"]) {
      expect([bad, readOnlyUrl(bad)]).toEqual([bad, null]);
    }
    const html = limitPage({ limit: 1, current: 1, edition: "community", rawUri: "javascript:alert(1)" });
    expect(roOf(html)).toBeNull();
    expect(html).not.toContain("javascript:");
  });
});
