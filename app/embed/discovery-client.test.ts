// The gate's reading of the editing server's discovery: ours and a real Collabora Online's shape
// (protocol notes §1), the editor_url it builds, the cache (a few minutes) and editor_unavailable.

import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock";
import { parseConfig } from "../config";
import { discoveryXml } from "../edsrv/discovery";
import { ServiceError } from "../errors";
import { memoryLogger } from "../log";
import { DISCOVERY_TTL_MS, EditorDiscovery, editorUrl, parseDiscovery } from "./discovery-client";

const COLLABORA = `<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery>
  <net-zone name="external-https">
    <app name="writer" favIconUrl="https://office.example/browser/1a2b3c4d5e/images/x-office-document.svg">
      <action default="true" ext="docx" name="edit" urlsrc="https://office.example/browser/1a2b3c4d5e/cool.html?"/>
      <action default="true" ext="docx" name="view" urlsrc="https://office.example/browser/1a2b3c4d5e/cool.html?"/>
    </app>
    <app name="application/vnd.oasis.opendocument.text"><action name="edit" default="true" ext="" urlsrc="https://office.example/browser/1a2b3c4d5e/cool.html?"/></app>
    <app name="Capabilities"><action ext="" name="getinfo" urlsrc="https://office.example/hosting/capabilities"/></app>
  </net-zone>
  <proof-key value="AQAB" modulus="x" exponent="AQAB" oldvalue="AQAB" oldmodulus="x" oldexponent="AQAB"/>
</wopi-discovery>`;

describe("discovery", () => {
  test("our editing server's discovery: an edit action for each of the 12 embed types", () => {
    const actions = parseDiscovery(discoveryXml(parseConfig({ SVC_ONLINE_SERVER_NAME: "office.example:8443" }), "abcdef0123"));
    for (const ext of ["docx", "doc", "odt", "rtf", "txt", "xlsx", "xls", "ods", "csv", "pptx", "ppt", "odp"]) {
      expect([ext, actions.get(ext)?.get("edit")]).toEqual([ext, "http://office.example:8443/browser/abcdef0123/ed.html?"]);
    }
  });

  test("a real Collabora's shape (cool.html, proof-key, MIME apps without ext) reads the same way", () => {
    const actions = parseDiscovery(COLLABORA);
    expect(actions.get("docx")?.get("edit")).toBe("https://office.example/browser/1a2b3c4d5e/cool.html?");
    expect(actions.has("")).toBe(false);
  });

  test("editor_url: the path and query of urlsrc, then WOPISrc (encoded once), lang, closebutton, and permission=readonly for view", () => {
    const wopiSrc = "http://gate:8081/svc/wopi/files/doc_0123";
    expect(editorUrl("https://office.example/browser/1a2b3c4d5e/cool.html?", { wopiSrc, lang: "vi", closeButton: true, readOnly: false })).toBe(
      `/browser/1a2b3c4d5e/cool.html?WOPISrc=${encodeURIComponent(wopiSrc)}&lang=vi&closebutton=1`,
    );
    expect(editorUrl("http://e/browser/h/ed.html?ui=x&", { wopiSrc, lang: "en-US", closeButton: false, readOnly: true })).toBe(
      `/browser/h/ed.html?ui=x&WOPISrc=${encodeURIComponent(wopiSrc)}&lang=en-US&closebutton=0&permission=readonly`,
    );
  });

  test("preload is used only when the editing server's capabilities say hasDocumentPreload (ours), not for Collabora's", async () => {
    let caps: Record<string, unknown> = { productName: "Collabora Online Development Edition", hasWopiAccessCheck: true };
    let calls = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (calls++, Response.json(caps)) });
    const collabora = new EditorDiscovery({ baseUrl: `http://127.0.0.1:${server.port}`, clock: new ManualClock(), logger: memoryLogger() });
    expect(await collabora.preloadSupported()).toBe(false);
    expect(await collabora.preloadSupported()).toBe(false);
    expect(calls).toBe(1); // Collabora's answer is kept too: no capabilities request per session
    caps = { productName: "SVC Editing Server", hasDocumentPreload: true };
    const ours = new EditorDiscovery({ baseUrl: `http://127.0.0.1:${server.port}`, clock: new ManualClock(), logger: memoryLogger() });
    const before = calls;
    expect(await Promise.all([ours.preloadSupported(), ours.preloadSupported()])).toEqual([true, true]);
    expect(await ours.preloadSupported()).toBe(true);
    expect(calls - before).toBe(1); // asked once, then kept
    server.stop(true);
    const gone = new EditorDiscovery({ baseUrl: `http://127.0.0.1:${server.port}`, clock: new ManualClock(), logger: memoryLogger() });
    expect(await gone.preloadSupported()).toBe(false);
  });

  test("read for a few minutes from the cache, then again; a failure is 503 editor_unavailable", async () => {
    const clock = new ManualClock();
    // A real Collabora's discovery, served on loopback (a stand-in for that outside server).
    let calls = 0;
    let fail = false;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch() {
        calls++;
        return fail ? new Response("starting", { status: 503 }) : new Response(COLLABORA, { headers: { "Content-Type": "text/xml" } });
      },
    });
    const d = new EditorDiscovery({ baseUrl: `http://127.0.0.1:${server.port}`, clock, logger: memoryLogger() });
    await Promise.all([d.urlsrc("docx", false), d.urlsrc("docx", true), d.urlsrc("docx", false)]);
    expect(calls).toBe(1);
    clock.advance(DISCOVERY_TTL_MS - 1);
    await d.urlsrc("docx", false);
    expect(calls).toBe(1);
    clock.advance(1);
    fail = true;
    const e = await d.urlsrc("docx", false).catch((x) => x);
    expect(e).toBeInstanceOf(ServiceError);
    expect([e.code, e.status]).toEqual(["editor_unavailable", 503]);
    expect(calls).toBe(2);
    fail = false;
    expect(await d.urlsrc("docx", false)).toBe("https://office.example/browser/1a2b3c4d5e/cool.html?");
    // A type the editing server does not publish is editor_unavailable too, with the reason.
    const none = await d.urlsrc("xlsx", false).catch((x) => x);
    expect([none.code, none.detail.reason]).toEqual(["editor_unavailable", "no_action"]);
    server.stop(true);
    clock.advance(DISCOVERY_TTL_MS);
    expect((await d.urlsrc("docx", false).catch((x) => x)).code).toBe("editor_unavailable");
  });
});
