import { describe, expect, test } from "bun:test";
import { docWsUrl } from "./edsrv/testing/ws-client";
import { parseAliasGroups } from "./alias-groups";
import { documentKeyer, normaliseWopiSrc, parsePageUri, parseWsUri, requestsReadOnly } from "./editing-uri";

const SRC = "http://files.example:8080/wopi/files/165";
const KEY = "http://files.example:8080/wopi/files/165";
const raw = (u: string) => u.replace(/^wss?:\/\/[^/]+/, "");
const A = encodeURIComponent(`${SRC}?access_token=${encodeURIComponent("tok-1")}&access_token_ttl=0`);

describe("WebSocket URI forms (spec routing table, protocol notes §6)", () => {
  test("the canonical form gives the document key and the token", () => {
    const t = parseWsUri(raw(docWsUrl("http://h", SRC, "tok-1")))!;
    expect(t).toMatchObject({ wopiSrc: SRC, wopiSrcAsGiven: SRC, docKey: KEY, token: "tok-1", permission: null, load: null });
  });

  test("a trailing slash and further segments after ws are the same document", () => {
    expect(parseWsUri(`/ed/${A}/ws/?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws`)!.docKey).toBe(KEY);
    expect(parseWsUri(`/ed/${A}/ws/sess1/write/3?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws/sess1/write/3`)!.docKey).toBe(KEY);
  });

  test("a document part encoded twice is read", () => {
    const twice = encodeURIComponent(A);
    const t = parseWsUri(`/ed/${twice}/ws?WOPISrc=${encodeURIComponent(encodeURIComponent(SRC))}&compat=/ws`)!;
    expect(t.docKey).toBe(KEY);
    expect(t.token).toBe("tok-1");
  });

  test("the short form /ed/ws?WOPISrc= and the form without query", () => {
    expect(parseWsUri(`/ed/ws?WOPISrc=${encodeURIComponent(SRC)}&access_token=tok-2`)).toMatchObject({ docKey: KEY, token: "tok-2" });
    expect(parseWsUri(`/ed/ws/?WOPISrc=${encodeURIComponent(SRC)}`)).toMatchObject({ docKey: KEY, token: null });
    expect(parseWsUri(`/ed/${A}/ws`)).toMatchObject({ docKey: KEY, token: "tok-1" });
  });

  test("Collabora's real prefixes and its hexified form", () => {
    expect(parseWsUri(`/cool/${A}/ws?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws`)!.docKey).toBe(KEY);
    expect(parseWsUri(`/lool/${A}/ws?WOPISrc=${SRC}&compat=/ws`)!.docKey).toBe(KEY);
    const hex = Buffer.from(`${A}/ws?WOPISrc=${encodeURIComponent(SRC)}&compat=`).toString("hex");
    expect(parseWsUri(`/cool/0x${hex}/ws`)).toMatchObject({ docKey: KEY, token: "tok-1" });
  });

  test("one reader for gate and editing server: a permission or token in the outer query is not the document's", () => {
    const a = encodeURIComponent(`${SRC}?access_token=edit-token&access_token_ttl=0`);
    const t = parseWsUri(`/ed/${a}/ws?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws&permission=readonly&access_token=other`)!;
    expect(t.token).toBe("edit-token");
    expect(t.permission).toBeNull();
    expect(requestsReadOnly(t)).toBe(false);
    // `view` is no read-only request for either reader: counted as editing.
    const v = encodeURIComponent(`${SRC}?access_token=t&permission=view`);
    expect(requestsReadOnly(parseWsUri(`/ed/${v}/ws?WOPISrc=${encodeURIComponent(SRC)}`)!)).toBe(false);
  });
  test("permission from a reconnect's document part", () => {
    const a = encodeURIComponent(`${SRC}?access_token=t&access_token_ttl=0&permission=readonly`);
    expect(parseWsUri(`/ed/${a}/ws?WOPISrc=${encodeURIComponent(SRC)}&compat=/ws`)!.permission).toBe("readonly");
  });

  test("URIs that are not an editing WebSocket are unknown (refused)", () => {
    for (const u of ["/ed/adminws", "/hosting/discovery", "/ed//ws", "/ed/notaurl/ws", "/ed/x/y/ws", "/browser/h/ed.html", "/ed/ws", `/ed/${A}/wss`, "/ed/javascript%3Aalert(1)/ws", "/ed/0xzz/ws", "garbage"]) {
      expect(parseWsUri(u)).toBeNull();
    }
  });

  test("the document key is scheme://host:port/path, like Collabora's docKey", () => {
    expect(normaliseWopiSrc("HTTPS://Files.Example/wopi/files/1?access_token=x")).toBe("https://files.example:443/wopi/files/1");
    expect(normaliseWopiSrc("ftp://x/y")).toBeNull();
  });

  test("the editor page gives its document and permission", () => {
    expect(parsePageUri(`/browser/abc123/ed.html?WOPISrc=${encodeURIComponent(SRC)}&permission=readonly`)).toMatchObject({ docKey: KEY, permission: "readonly" });
    expect(parsePageUri(`/browser/abc123/ed.html`)).toBeNull();
  });
});

describe("alias groups in the document key", () => {
  const keyOf = documentKeyer(
    parseAliasGroups(["http://gate.internal:8081,http://127\\.0\\.0\\.1:8081", "https://Cloud.Example:443,https://cloud[0-9]+\\.example:443,https://files.partner.test"]),
  );

  test("alias group: an alias of group 1 keys as the gate's first entry, port included", () => {
    expect(keyOf("http://127.0.0.1:8081/svc/wopi/files/doc_1?access_token=x")).toBe("http://gate.internal:8081/svc/wopi/files/doc_1");
    expect(keyOf("http://GATE.internal:8081/svc/wopi/files/doc_1")).toBe("http://gate.internal:8081/svc/wopi/files/doc_1");
    // The dots of the regular expression are escaped: another address is not an alias.
    expect(keyOf("http://127x0x0x1:8081/svc/wopi/files/doc_1")).toBe("http://127x0x0x1:8081/svc/wopi/files/doc_1");
  });

  test("alias group: regular-expression and plain aliases of a further group key as its first entry", () => {
    const want = "https://cloud.example:443/wopi/files/9";
    for (const u of ["https://cloud.example/wopi/files/9", "https://CLOUD12.example/wopi/files/9", "https://files.partner.test:443/wopi/files/9"]) expect(keyOf(u)).toBe(want);
    // A regular expression matches the whole host name only.
    expect(keyOf("https://cloud1.example.evil/wopi/files/9")).toBe("https://cloud1.example.evil:443/wopi/files/9");
    expect(keyOf("ftp://cloud.example/x")).toBeNull();
  });

  test("alias group: every WebSocket form and the editor page carry the mapped key", () => {
    const alias = "https://cloud3.example/wopi/files/9";
    const want = "https://cloud.example:443/wopi/files/9";
    expect(parseWsUri(raw(docWsUrl("http://h", alias, "tok")), keyOf)).toMatchObject({ docKey: want, wopiSrc: alias, token: "tok" });
    expect(parseWsUri(`/ed/ws?WOPISrc=${encodeURIComponent(alias)}`, keyOf)!.docKey).toBe(want);
    expect(parsePageUri(`/browser/h/ed.html?WOPISrc=${encodeURIComponent(alias)}`, keyOf)!.docKey).toBe(want);
    // Without groups the alias is its own document.
    expect(parseWsUri(`/ed/ws?WOPISrc=${encodeURIComponent(alias)}`)!.docKey).toBe("https://cloud3.example:443/wopi/files/9");
    expect(documentKeyer([])).toBe(normaliseWopiSrc);
  });
});
