// The connection cap cannot be walked past, black box: the real proxy (Caddy with the repository's
// Caddyfile, asking /svc/auth before every document WebSocket), the real gate (its clock driven,
// so the spec's 60 s pending window is crossed without waiting), the real editing server with its
// kits. Every editor connects through the proxy as a browser does. Cap 3. After each attack the
// editing server itself is asked how many editing views it holds: never more than the cap.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { startCaddy, type RunningCaddy } from "../../caddy/testing";
import { ManualClock } from "../clock";
import { TestSocket, docWsUrl } from "../edsrv/testing/ws-client";
import { startEmbedStack, startSource, until, embedToken, type EmbedStack } from "../embed/testing";
import { FIXTURES } from "../testing/harness";
import { PENDING_TTL_MS, RECONNECT_GRACE_MS } from "./counting";
import { scaled } from "../testing/until";

const CAP = 3;
const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));

let stack: EmbedStack;
let caddy: RunningCaddy;
let source: ReturnType<typeof startSource>;
const clock = new ManualClock(Date.now());
const sockets: TestSocket[] = [];
let seq = 0;

beforeAll(async () => {
  source = startSource();
  stack = await startEmbedStack({ env: { SVC_GATE_CONNECTION_CAP: String(CAP) }, gate: { clock, sampleIntervalMs: 100 }, idleKits: 2 });
  caddy = await startCaddy({ app: new URL(stack.gateUrl).host, edsrv: new URL(stack.ed.url).host });
}, scaled(120_000));

afterAll(async () => {
  for (const s of sockets) s.close();
  await caddy?.stop();
  await stack?.close();
  source?.stop();
});

const status = async () => (await (await fetch(`${stack.gateUrl}/svc/status`)).json()) as any;

/** Editing views the editing server holds, over every document. */
const editingViews = () => [...stack.ed.brokers.values()].reduce((n, b) => n + [...b.sessions.values()].filter((s) => !s.readOnly).length, 0);

async function advance(ms: number) {
  clock.advance(ms);
  await stack.gate.sampler.nextSample();
}

/** A new embedded session of its own document (a new key each time), as an integrator's backend creates it. */
async function createSession(mode: "edit" | "view" = "edit", key = `cap-${++seq}`) {
  const url = source.add(`/${key}.docx`, DOCX);
  const cfg = { document: { url, fileType: "docx", key, title: `${key}.docx` }, editor: { mode, user: { id: `u${seq}`, name: `User ${seq}` } } };
  const res = await stack.create({ token: await embedToken(cfg, { now: clock.now() }) });
  expect(res.status).toBe(201);
  const s = res.body;
  return { ...s, wopiSrc: new URL(s.editor_url, "http://x").searchParams.get("WOPISrc")! as string, token: s.form.access_token as string };
}

/** The editor's WebSocket through the proxy; resolves with the permission the view got, or the refusal. */
async function connect(session: { wopiSrc: string; token: string }, extraQuery = ""): Promise<{ perm: "edit" | "readonly" | "refused"; socket: TestSocket }> {
  const url = docWsUrl(caddy.url.replace("http", "ws"), session.wopiSrc, session.token) + extraQuery;
  const socket = new TestSocket(url, caddy.url);
  sockets.push(socket);
  try {
    await socket.opened;
  } catch {
    return { perm: "refused", socket };
  }
  socket.send(`load url=${encodeURIComponent(session.wopiSrc)}`);
  const perm = await socket.waitText("perm: ").catch(() => "refused");
  return { perm: perm === "refused" ? "refused" : (perm.slice(6).trim() as "edit" | "readonly"), socket };
}

const sessionState = async (s: { session_id: string; token: string }) =>
  (await (await fetch(`${stack.gateUrl}/svc/embed/session/${s.session_id}`, { headers: { Authorization: `Bearer ${s.token}` } })).json()) as any;

describe("the connection cap cannot be walked past (through the proxy)", () => {
  beforeEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await until(() => editingViews(), (n) => n === 0, "no editing view left");
    // Past every pending entry and grace slot of the previous test.
    await advance(RECONNECT_GRACE_MS + PENDING_TTL_MS);
    await until(status, (s) => s.connections.current === 0 && s.connections.pending === 0 && s.connections.enforcing, "a fresh sample with nothing counted");
  });

  test("reusing an edit session's access token never adds an editing view: the newer connection replaces the older one", async () => {
    const sessions = [await createSession(), await createSession(), await createSession()];
    for (const s of sessions) expect((await connect(s)).perm).toBe("edit");
    await until(status, (s) => s.connections.current === CAP, "the three views sampled");
    // The first session's token, replayed four times (a second tab, a copied form).
    for (let i = 0; i < 4; i++) {
      const again = await connect(sessions[0]);
      expect(again.perm).toBe("edit");
      expect(editingViews()).toBeLessThanOrEqual(CAP);
    }
    await until(() => editingViews(), (n) => n === CAP, "exactly the cap's views");
    await advance(100);
    expect((await status()).connections.current).toBe(CAP);
  });

  test("sessions created but not opened (banked) cannot join as editing views once the cap is taken", async () => {
    const banked = [await createSession(), await createSession(), await createSession()];
    // Their pending entries expire unconfirmed: the cap is free again and three more are admitted.
    await advance(PENDING_TTL_MS);
    await until(status, (s) => s.connections.pending === 0, "the banked sessions' pending entries expired");
    const fresh = [await createSession(), await createSession(), await createSession()];
    for (const s of fresh) expect(s).toMatchObject({ mode: "edit", limited: false });
    // The banked ones connect first: the cap is full with the fresh ones' seats, so they open read-only.
    for (const s of banked) expect((await connect(s)).perm).toBe("readonly");
    for (const s of fresh) expect((await connect(s)).perm).toBe("edit");
    expect(editingViews()).toBe(CAP);
    await advance(100);
    expect((await status()).connections.current).toBe(CAP);
    // Each banked session tells the truth about what it became (spec rule 6).
    expect(await sessionState(banked[0])).toMatchObject({ mode: "view" });
  });

  /** The document loaded ahead by the session's warm start (its CheckFileInfo answered with edit rights). */
  const preloaded = (s: { wopiSrc: string }) =>
    until(() => [...stack.ed.brokers.values()].find((b) => b.wopiSrc === s.wopiSrc)?.state, (st) => st === "loaded", "the warm start loaded the document", 30_000);

  test("a session switched to view, or deleted, right after creation opens no editing view", async () => {
    // The warm start preloads only on a ready idle kit (the earlier tests' documents took them).
    await until(() => stack.ed.pool.hasReadyKit, (ready) => ready, "a ready idle kit", 60_000);
    const switched = await createSession();
    await preloaded(switched);
    const res = await fetch(`${stack.gateUrl}/svc/embed/session/${switched.session_id}/mode`, {
      method: "POST",
      headers: { Authorization: `Bearer ${switched.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ mode: "view" }),
    });
    expect(res.status).toBe(200);
    expect((await connect(switched)).perm).toBe("readonly");

    await until(() => stack.ed.pool.hasReadyKit, (ready) => ready, "a ready idle kit", 60_000);
    const deleted = await createSession();
    await preloaded(deleted);
    expect((await fetch(`${stack.gateUrl}/svc/embed/session/${deleted.session_id}`, { method: "DELETE", headers: { Authorization: `Bearer ${deleted.token}` } })).status).toBe(204);
    expect((await connect(deleted)).perm).not.toBe("edit");
    expect(editingViews()).toBe(0);
  });

  test("a permission=readonly appended outside the document part is read the same by gate and editing server: counted, and read-only at the cap", async () => {
    const late = await createSession(); // admitted; its seat expires unused
    await advance(PENDING_TTL_MS);
    const full = [await createSession(), await createSession(), await createSession()];
    for (const s of full) expect((await connect(s)).perm).toBe("edit");
    await until(status, (s) => s.connections.current === CAP, "the cap taken");
    for (const appended of ["&permission=readonly", "&permission=view"]) {
      expect((await connect(late, appended)).perm).toBe("readonly");
      expect(editingViews()).toBe(CAP);
    }
  });
});
