// Loading a document from the editor page's request, before its WebSocket connects (the page's own
// load overlaps CheckFileInfo, GetFile and the kit's load): real kits, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { createEdsrv, type Edsrv } from "./server";
import { startWopiHost } from "./testing/wopi-host";
import { TestSocket, docWsUrl } from "./testing/ws-client";
import { quietFor, until, waitFor } from "../testing/until";

const FIX = path.resolve(import.meta.dir, "../../fixtures");
const WAIT_MS = 1500;
let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
let origin: string;
let seq = 0;

beforeAll(async () => {
  host = startWopiHost();
  const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-preload-")), SVC_ONLINE_ALIASGROUP1: host.origin });
  ed = await createEdsrv({ config, logger: memoryLogger("error"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 3, autosaveSeconds: 0, preloadWaitMs: WAIT_MS });
  origin = `http://${new URL(ed.url).host}`;
  host.addToken("tok_a", "u1", true, "Alice");
});
afterAll(async () => {
  await ed?.close();
  host?.stop();
});

const newDoc = () => host.addFile(`p${++seq}`, "hello.docx", readFileSync(path.join(FIX, "hello.docx")));
const idOf = (src: string) => src.split("/").pop()!;
const brokerOf = (src: string) => [...ed.brokers.values()].find((b) => b.wopiSrc === src);

/** What the host page's form POST does. */
function postPage(src: string, token: string): Promise<Response> {
  return fetch(`${ed.url}/browser/${ed.hash}/ed.html?WOPISrc=${encodeURIComponent(src)}`, {
    method: "POST",
    body: new URLSearchParams({ access_token: token, access_token_ttl: "0" }),
  });
}

async function waitForIdleKits(n: number) {
  const pool = ed.pool as unknown as { idle: { pid: number }[] };
  await until(() => pool.idle.filter((k) => k.pid !== 0).length, (k) => k >= n, `${n} idle kits started`, 60_000);
}
const loaded = (src: string) => waitFor(() => brokerOf(src)?.state === "loaded", `${idOf(src)} preloaded`, 10_000);
const gone = (src: string, ms = 10_000) => waitFor(() => !brokerOf(src), `${idOf(src)} closed`, ms);

describe("preloading from the editor page's request", () => {
  test("the page's request loads the document before the WebSocket; the session uses that load (one GetFile; CheckFileInfo asked again for the view)", async () => {
    await waitForIdleKits(2);
    const src = newDoc();
    expect((await postPage(src, "tok_a")).status).toBe(200);
    await loaded(src);
    expect(brokerOf(src)!.sessions.size).toBe(0);

    const s = new TestSocket(docWsUrl(ed.url, src, "tok_a"), origin);
    await s.opened;
    s.send(`load url=${encodeURIComponent(src)}`);
    await s.waitText("status:");
    expect(s.texts()).toContain("perm: edit");
    // The view's permission is never the preload's answer: asked again when the view is made.
    expect(host.cfi.filter((c) => c.fileId === idOf(src)).length).toBe(2);
    expect(host.gets.filter((g) => g.fileId === idOf(src)).length).toBe(1);
    // A second page's document, preloaded after this one's session joined and never joined itself:
    // its close tells that this one's preload wait (started earlier) has passed too, without the
    // test timing the wait.
    const unjoined = newDoc();
    expect((await postPage(unjoined, "tok_a")).status).toBe(200);
    await loaded(unjoined);
    // Still there after the preload's wait: it has its session now.
    await gone(unjoined, WAIT_MS + 10_000);
    expect(brokerOf(src)?.state).toBe("loaded");
    s.close();
    await gone(src);
  });

  test("a view's permission is the one CheckFileInfo gives when the view is made, not at preload: a token that lost write access since opens read-only", async () => {
    await waitForIdleKits(1);
    const src = newDoc();
    host.addToken("tok_switched", "u9", true, "Dung");
    expect((await postPage(src, "tok_switched")).status).toBe(200);
    await loaded(src);
    // The session is switched to view (or deleted) between the page's request and its WebSocket.
    host.addToken("tok_switched", "u9", false, "Dung");
    const s = new TestSocket(docWsUrl(ed.url, src, "tok_switched"), origin);
    await s.opened;
    s.send(`load url=${encodeURIComponent(src)}`);
    await s.waitText("status:");
    expect(s.texts()).toContain("perm: readonly");
    expect(s.texts()).not.toContain("perm: edit");
    s.close();
    await gone(src);
  });

  test("a preloaded document that no session joins is closed after the wait", async () => {
    await waitForIdleKits(1);
    const src = newDoc();
    await postPage(src, "tok_a");
    await loaded(src);
    const loadedAt = Date.now();
    await gone(src, WAIT_MS + 5000);
    expect(Date.now() - loadedAt).toBeGreaterThanOrEqual(WAIT_MS - 100);
  });

  test("a token the WOPI host refuses loads nothing, and the session then gets the refusal", async () => {
    await waitForIdleKits(1);
    const src = newDoc();
    expect((await postPage(src, "tok_unknown")).status).toBe(200);
    // The preload did ask: the host refused its CheckFileInfo. Then nothing more is asked nor loaded.
    await waitFor(() => host.refused.some((r) => r.fileId === idOf(src) && r.token === "tok_unknown" && !r.contents), "the preload's CheckFileInfo, refused");
    // The document the preload began is dropped (it exists, "new", while CheckFileInfo is asked).
    await gone(src);
    await quietFor(300, "nothing loaded nor fetched for a refused token", () => brokerOf(src)?.state ?? host.gets.find((g) => g.fileId === idOf(src)));
    expect(brokerOf(src)).toBeUndefined();
    expect(host.gets.filter((g) => g.fileId === idOf(src)).length).toBe(0);
    const s = new TestSocket(docWsUrl(ed.url, src, "tok_unknown"), origin);
    await s.opened;
    s.send(`load url=${encodeURIComponent(src)}`);
    await s.waitText("error: cmd=internal kind=unauthorized");
  });

  test("a page without a token loads nothing", async () => {
    const src = newDoc();
    const res = await fetch(`${ed.url}/browser/${ed.hash}/ed.html?WOPISrc=${encodeURIComponent(src)}`);
    expect(res.status).toBe(200);
    await quietFor(200, "nothing asked nor loaded for a page without a token", () => brokerOf(src)?.state ?? host.cfi.find((c) => c.fileId === idOf(src)) ?? host.refused.find((r) => r.fileId === idOf(src)));
    expect(brokerOf(src)).toBeUndefined();
    expect(host.cfi.filter((c) => c.fileId === idOf(src)).length).toBe(0);
  });

  test("at most 2 documents wait for their sessions at a time: page requests alone cannot take every kit", async () => {
    await waitForIdleKits(3);
    const srcs = [newDoc(), newDoc(), newDoc()];
    for (const src of srcs) await postPage(src, "tok_a");
    await until(() => srcs.filter((s) => brokerOf(s)?.state === "loaded").length, (k) => k === 2, "two of three pages' documents preloaded");
    await quietFor(300, "no third preload", () => {
      const k = srcs.filter((s) => brokerOf(s)).length;
      return k > 2 && k;
    });
    expect(srcs.filter((s) => brokerOf(s)).length).toBe(2);
    await waitFor(() => srcs.every((s) => !brokerOf(s)), "every preloaded document closed after the wait", WAIT_MS + 5000);
  });
});
