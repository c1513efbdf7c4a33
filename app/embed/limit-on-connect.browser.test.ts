// The connection cap biting when the editor connects, not when the session was made (issue 34,
// D2): an integrator's backend creates an edit session, its page opens it later with api.js
// (`config.session`); meanwhile the session's seat expired and another editor took the cap. The
// gate opens the editor read-only rather than refusing it; the page must hear of it as the spec
// says: `onLimitReached` with a message. Real gate (cap 1, a seat held 1.5 s instead of 60 s),
// real editing server and kits, Debian's Caddy and Chromium, api.js as served.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { FIXTURES } from "../testing/harness";
import { scaled, until } from "../testing/until";
import { embedToken, startSource } from "./testing";
import { startEmbedBrowserWorld, type EmbedBrowserWorld } from "./testing-browser";

const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
let world: EmbedBrowserWorld;
let source: ReturnType<typeof startSource>;
/** The session the page opens, made by the test as the integrator's backend would. */
let pageSession: unknown = null;

/** The integrator's page: api.js from the service, the session its backend made, every event kept. */
const hostPage = (service: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Integrator</title>
<script src="${service}/svc/api.js"></script></head><body style="margin:0"><div id="editor" style="width:1000px;height:700px"></div>
<script>
window.events = [];
(async () => {
  const session = await (await fetch("/api/session")).json();
  const log = (name) => (payload) => window.events.push({ name, payload });
  new SVC.Editor("editor", { session, events: { onReady: log("onReady"), onDocumentLoaded: log("onDocumentLoaded"), onLimitReached: log("onLimitReached"), onError: log("onError") } });
})();
</script></body></html>`;

beforeAll(async () => {
  source = startSource();
  world = await startEmbedBrowserWorld(
    (caddyUrl) => (req) => {
      const u = new URL(req.url);
      if (u.pathname === "/") return new Response(hostPage(caddyUrl), { headers: { "Content-Type": "text/html; charset=utf-8" } });
      if (u.pathname === "/api/session") return Response.json(pageSession);
      return new Response("not found", { status: 404 });
    },
    { idleKits: 1, env: { SVC_GATE_CONNECTION_CAP: "1" }, gate: { sampleIntervalMs: 100, pendingTtlMs: 1500 } },
  );
}, scaled(120_000));

afterAll(async () => {
  await world?.close();
  source?.stop();
});

async function createEditSession(key: string) {
  const cfg = { document: { url: source.add(`/${key}.docx`, DOCX), fileType: "docx", key, title: `${key}.docx` }, editor: { mode: "edit", user: { id: key, name: key } } };
  const res = await world.stack.create({ token: await embedToken(cfg) });
  expect(res.status).toBe(201);
  return res.body;
}

const status = async () => (await (await fetch(`${world.stack.gateUrl}/svc/status`)).json()) as any;

test("onLimitReached: an edit session that opens read-only because the cap was reached when its editor connected fires onLimitReached with a message", async () => {
  const banked = await createEditSession("banked");
  expect(banked).toMatchObject({ mode: "edit", limited: false });
  // Its seat expires unused; another editor's session takes the cap.
  await until(status, (s) => s.connections.pending === 0, "the banked session's seat expired", scaled(20_000));
  const fresh = await createEditSession("fresh");
  expect(fresh).toMatchObject({ mode: "edit", limited: false });
  // Its editor connects and holds the cap: a seat nobody connected to would expire after 1.5 s,
  // which a loaded machine can take before the banked page connects (the cap then free again).
  pageSession = fresh;
  const holder = await world.browser.newPage();
  await holder.goto(`${world.appOrigin}/`);
  const holderEvents = () => holder.evaluate(() => (window as any).events as { name: string; payload: any }[]);
  await until(holderEvents, (e) => e.some((x) => x.name === "onDocumentLoaded"), "the fresh session's editor loaded", scaled(60_000));
  await until(status, (s) => s.connections.current === 1, "the fresh session's editor sampled", scaled(20_000));
  // The page opens the banked session now.
  pageSession = banked;
  const page = await world.browser.newPage();
  await page.goto(`${world.appOrigin}/`);
  const events = () => page.evaluate(() => (window as any).events as { name: string; payload: any }[]);
  await until(events, (e) => e.some((x) => x.name === "onDocumentLoaded"), "the document loaded", scaled(60_000));
  const limited = await until(events, (e) => e.some((x) => x.name === "onLimitReached"), "onLimitReached after the load", scaled(10_000));
  // The page's language is the session's (Vietnamese by default): a sentence saying it opened read-only.
  expect(limited.find((x) => x.name === "onLimitReached")!.payload).toMatchObject({ message: expect.stringContaining("chỉ xem"), limit: null });
  expect(limited.filter((x) => x.name === "onError")).toEqual([]);
  // The editor itself is read-only, and the session says so.
  const frame = page.frames().find((f) => f.url().includes("/ed.html"))!;
  await frame.waitForFunction(() => window.edState.readOnly === true);
  await page.close();
  await holder.close();
}, scaled(120_000));
