// The gate's CheckFileInfo call on an outside WOPI host (spec: only at the cap, only for origins in
// SVC_WOPI_ALLOWED_HOSTS), against a stand-in file-sync host on 127.0.0.1: what is sent, what is
// read, and that the SSRF rules hold (loopback is reachable only because the test allows it).

import { afterAll, describe, expect, test } from "bun:test";
import { parseAllowList } from "../net/ssrf";
import { checkFileInfoFetcher, wopiAllowedHostNames, wopiHostAllowed } from "./admission";

type Seen = { path: string; query: string; authorization: string | null; userAgent: string | null };

const seen: Seen[] = [];
const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const u = new URL(req.url);
    seen.push({ path: u.pathname, query: u.search, authorization: req.headers.get("authorization"), userAgent: req.headers.get("user-agent") });
    switch (u.pathname) {
      case "/wopi/files/writer":
        return Response.json({ BaseFileName: "a.docx", UserCanWrite: true });
      case "/wopi/files/reader":
        return Response.json({ BaseFileName: "a.docx", UserCanWrite: false });
      case "/wopi/files/absent":
        return Response.json({ BaseFileName: "a.docx" });
      case "/wopi/files/truthy":
        return Response.json({ BaseFileName: "a.docx", UserCanWrite: "true" });
      case "/wopi/files/moved":
        return new Response(null, { status: 302, headers: { Location: "/wopi/files/writer" } });
      case "/wopi/files/html":
        return new Response("<html>login</html>", { headers: { "Content-Type": "text/html" } });
      case "/wopi/files/huge":
        return new Response(`{"UserCanWrite":true,"pad":"${"x".repeat(2 * 1024 * 1024)}"}`);
      default:
        return new Response("no", { status: 401 });
    }
  },
});
afterAll(() => host.stop(true));
const origin = `http://127.0.0.1:${host.port}`;
const loopbackAllowed = parseAllowList(wopiAllowedHostNames([origin]));

describe("CheckFileInfo on an outside WOPI host", () => {
  test("outside WOPI host: UserCanWrite is read, the token goes in the query and as a Bearer header, the WOPISrc query is dropped", async () => {
    const cfi = checkFileInfoFetcher(loopbackAllowed);
    seen.length = 0;
    expect(await cfi(`${origin}/wopi/files/writer?access_token=stale&x=1`, "tok_A-1")).toBe(true);
    expect(seen).toEqual([{ path: "/wopi/files/writer", query: "?access_token=tok_A-1", authorization: "Bearer tok_A-1", userAgent: "SVC-Gate/1.0" }]);
    expect(await cfi(`${origin}/wopi/files/reader`, "t")).toBe(false);
    // Collabora's rule: absent means false; only a JSON true is true.
    expect(await cfi(`${origin}/wopi/files/absent`, "t")).toBe(false);
    expect(await cfi(`${origin}/wopi/files/truthy`, "t")).toBe(false);
  });

  test("outside WOPI host: an answer that cannot be read is null (not taken for read-only)", async () => {
    const cfi = checkFileInfoFetcher(loopbackAllowed);
    for (const p of ["unauthorized", "html", "huge"]) expect([p, await cfi(`${origin}/wopi/files/${p}`, "t")]).toEqual([p, null]);
  });

  test("outside WOPI host: a redirect is not followed (the token would go with it)", async () => {
    const cfi = checkFileInfoFetcher(loopbackAllowed);
    seen.length = 0;
    expect(await cfi(`${origin}/wopi/files/moved`, "t")).toBeNull();
    expect(seen.map((s) => s.path)).toEqual(["/wopi/files/moved"]);
  });

  test("outside WOPI host: SSRF rules hold: an internal address not allowed by the operator is never called", async () => {
    seen.length = 0;
    expect(await checkFileInfoFetcher(parseAllowList([]))(`${origin}/wopi/files/writer`, "t")).toBeNull();
    expect(await checkFileInfoFetcher(parseAllowList(wopiAllowedHostNames(["files.example.com"])))(`${origin}/wopi/files/writer`, "t")).toBeNull();
    expect(seen).toEqual([]);
  });

  test("outside WOPI host: the allow list is the host names of SVC_WOPI_ALLOWED_HOSTS, origins or bare names", () => {
    expect(wopiAllowedHostNames(["https://Cloud.Example:8443/", "files.local:8080", " nc.internal ", "", "http://[::1]:9"])).toEqual(["cloud.example", "files.local", "nc.internal", "::1"]);
    expect(wopiHostAllowed(["https://cloud.example:8443"], "https://CLOUD.example:8443/wopi/files/1")).toBe(true);
    expect(wopiHostAllowed(["https://cloud.example:8443"], "http://cloud.example:8443/wopi/files/1")).toBe(false);
  });
});
