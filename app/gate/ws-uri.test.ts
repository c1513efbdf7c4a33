import { describe, expect, test } from "bun:test";
import { docWsUrl } from "../edsrv/testing/ws-client";
import { normaliseWopiSrc, parsePageUri, parseWsUri } from "./ws-uri";

const SRC = "http://files.example:8080/wopi/files/165";
const KEY = "http://files.example:8080/wopi/files/165";
const raw = (u: string) => u.replace(/^wss?:\/\/[^/]+/, "");
const A = encodeURIComponent(`${SRC}?access_token=${encodeURIComponent("tok-1")}&access_token_ttl=0`);

describe("WebSocket URI forms (spec routing table, protocol notes §6)", () => {
  test("the canonical form gives the document key and the token", () => {
    const t = parseWsUri(raw(docWsUrl("http://h", SRC, "tok-1")))!;
    expect(t).toEqual({ wopiSrc: SRC, docKey: KEY, token: "tok-1", permission: null });
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
