// The gate as WOPI host (spec: "Gate: internal endpoints", "WOPI access", "Download links",
// versions, retention), called over HTTP the way the editing server calls it (protocol notes §4).
// The gate's clock is driven, so token expiry, the final-save grace, link expiry, the 30 s close
// and retention are checked at their edges.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ManualClock } from "../clock";
import { FIXTURES } from "../testing/harness";
import { CLOSED_AFTER_MS } from "./presence";
import { CALLBACK_SECRET, embedToken, startEmbedStack, startReceiver, startSource, until, type EmbedStack } from "./testing";
import { FINAL_SAVE_GRACE_MS } from "./wopi-host";
import { scaled } from "../testing/until";

const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
const XLSX = readFileSync(path.join(FIXTURES, "hello.xlsx"));
const APP_ORIGIN = "https://app.example";
const clock = new ManualClock(Date.now());
let stack: EmbedStack;
let source: ReturnType<typeof startSource>;
let receiver: ReturnType<typeof startReceiver>;
let seq = 0;

beforeAll(async () => {
  source = startSource();
  receiver = startReceiver(CALLBACK_SECRET, () => clock.now());
  stack = await startEmbedStack({ env: { SVC_EMBED_ALLOWED_ORIGINS: APP_ORIGIN, SVC_EMBED_MAX_FILE_MB: "1" }, gate: { clock, sampleIntervalMs: 100 } });
  await stack.gate.sampler.nextSample();
}, scaled(120_000));
afterAll(async () => {
  await stack?.close();
  source?.stop();
  receiver?.stop();
});

interface Opened {
  session: any;
  docId: string;
  token: string;
  wopi: string;
}

async function open(o: { mode?: string; key?: string; title?: string; user?: string; origin?: string; ui?: Record<string, unknown>; bytes?: Uint8Array; fileType?: string } = {}): Promise<Opened> {
  const url = source.add(`/f/${++seq}.${o.fileType ?? "docx"}`, o.bytes ?? DOCX);
  const cfg = {
    document: { url, title: o.title ?? "Hợp đồng", fileType: o.fileType ?? "docx", key: o.key ?? `wopi-${seq}` },
    editor: { mode: o.mode ?? "edit", lang: "vi", user: { id: o.user ?? "u1", name: o.user === "u2" ? "Bình" : "Lan" }, callbackUrl: receiver.url },
    ...(o.ui ? { ui: o.ui } : {}),
  };
  const r = await stack.create({ token: await embedToken(cfg, { expIn: 600, now: clock.now() }) }, o.origin ? { Origin: o.origin } : {});
  expect(r.status).toBe(201);
  return { session: r.body, docId: r.body.doc_id, token: r.body.form.access_token, wopi: `${stack.gateUrl}/svc/wopi/files/${r.body.doc_id}` };
}

const cfi = (s: Opened, token = s.token) => fetch(`${s.wopi}?access_token=${encodeURIComponent(token)}&access_token_ttl=0`, { headers: { "X-COOL-WOPI-ServerId": "test" } });
const getFile = (s: Opened, token = s.token) => fetch(`${s.wopi}/contents?access_token=${encodeURIComponent(token)}`);
function putFile(s: Opened, body: Uint8Array | string, h: Record<string, string> = {}, token = s.token) {
  return fetch(`${s.wopi}/contents?access_token=${encodeURIComponent(token)}&access_token_ttl=0`, {
    method: "POST",
    headers: {
      "X-WOPI-Override": "PUT",
      "Content-Type": "application/octet-stream",
      "X-COOL-WOPI-IsModifiedByUser": "true",
      "X-COOL-WOPI-IsAutosave": "false",
      "X-COOL-WOPI-IsExitSave": "false",
      Authorization: `Bearer ${token}`,
      ...h,
    },
    body: body as BodyInit,
  });
}
const lmtOf = async (s: Opened) => ((await (await cfi(s)).json()) as any).LastModifiedTime as string;
const errorOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as any).error?.code });
const variant = (n: number) => {
  const b = new Uint8Array(DOCX);
  return new Uint8Array([...b, ...new TextEncoder().encode(`<!-- ${n} -->`)]);
};

describe("CheckFileInfo, GetFile", () => {
  test("CheckFileInfo has the fields Collabora reads, from the session and the document", async () => {
    const s = await open({ origin: APP_ORIGIN, ui: { print: false, copy: false, userList: false } });
    const res = await cfi(s);
    expect(res.status).toBe(200);
    const info = (await res.json()) as any;
    expect(info).toMatchObject({
      BaseFileName: "Hợp đồng.docx",
      BreadcrumbDocName: "Hợp đồng",
      Size: DOCX.byteLength,
      Version: "0",
      OwnerId: "u1",
      UserId: "u1",
      UserFriendlyName: "Lan",
      UserCanWrite: true,
      UserCanNotWriteRelative: true,
      SupportsLocks: false,
      SupportsRename: false,
      PostMessageOrigin: APP_ORIGIN,
      HidePrintOption: true,
      DisablePrint: true,
      DisableCopy: true,
      DisableExport: false,
      HideUserList: "true",
    });
    expect(info.LastModifiedTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // The token also works as a Bearer header alone (no_auth_header off, query without it).
    const bearer = await fetch(s.wopi, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(bearer.status).toBe(200);
  });

  test("a session created by a server (no Origin) gets the one configured origin as PostMessageOrigin", async () => {
    const s = await open();
    expect(((await (await cfi(s)).json()) as any).PostMessageOrigin).toBe(APP_ORIGIN);
  });

  test("GetFile returns the current version's bytes", async () => {
    const s = await open({ fileType: "xlsx", bytes: XLSX });
    const res = await getFile(s);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(XLSX));
  });

  test("tokens are bound to one file, one user and one permission", async () => {
    const a = await open();
    const b = await open({ user: "u2" });
    // Another document's token, an unknown token, no token.
    for (const token of [b.token, "x".repeat(43), ""]) {
      expect(await errorOf(await cfi(a, token))).toEqual({ status: 401, code: "invalid_session_token" });
      expect((await getFile(a, token)).status).toBe(401);
      expect((await putFile(a, "x", {}, token)).status).toBe(401);
    }
    // The user is the session's.
    expect(((await (await cfi(b)).json()) as any).UserId).toBe("u2");
    // A read-only session cannot write.
    const v = await open({ mode: "view", key: a.session.key });
    expect(v.docId).toBe(a.docId);
    expect(((await (await cfi(v)).json()) as any).UserCanWrite).toBe(false);
    expect(await errorOf(await putFile(v, variant(1)))).toEqual({ status: 401, code: "invalid_session_token" });
  });
});

describe("PutFile", () => {
  test("stores the next version, answers its LastModifiedTime at once, and sends document.saved with the X-COOL-WOPI headers", async () => {
    const s = await open();
    const before = await lmtOf(s);
    const res = await putFile(s, variant(1), { "X-COOL-WOPI-Timestamp": before, "X-COOL-WOPI-IsAutosave": "true", "X-COOL-WOPI-IsModifiedByUser": "false" });
    expect(res.status).toBe(200);
    const { LastModifiedTime } = (await res.json()) as any;
    expect(LastModifiedTime).not.toBe(before);
    expect(res.headers.get("x-wopi-itemversion")).toBe("1");
    const info = (await (await cfi(s)).json()) as any;
    expect([info.Version, info.LastModifiedTime, info.Size]).toEqual(["1", LastModifiedTime, variant(1).byteLength]);
    expect(new Uint8Array(await (await getFile(s)).arrayBuffer())).toEqual(variant(1));
    const cb = await receiver.wait((c) => c.body?.key === s.session.key && c.body.version === 1);
    expect(cb.check).toMatchObject({ ok: true });
    expect(cb.headers["x-svc-event"]).toBe("document.saved");
    expect(cb.headers["user-agent"]).toBe("SVC-Gate/1.0");
    expect(cb.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(cb.body).toMatchObject({
      status: "saved",
      key: s.session.key,
      version: 1,
      fileType: "docx",
      title: "Hợp đồng",
      size: variant(1).byteLength,
      sha256: new Bun.CryptoHasher("sha256").update(variant(1)).digest("hex"),
      savedBy: { id: "u1", name: "Lan" },
      autosave: true,
      final: false,
      modifiedByUser: false,
    });
    expect(Object.keys(cb.body).sort()).toEqual(["autosave", "fileType", "final", "key", "modifiedByUser", "savedBy", "sha256", "size", "status", "timestamp", "title", "url", "users", "version"].sort());
    const dl = await fetch(cb.body.url);
    expect(new Uint8Array(await dl.arrayBuffer())).toEqual(variant(1));
  });

  test("PutFile never waits for the callback: answered while the receiver still has not answered", async () => {
    const s = await open();
    const release = receiver.hold();
    try {
      expect((await putFile(s, variant(1))).status).toBe(200);
      // The callback for version 1 has reached the receiver, which is still holding its answer.
      const cb = await receiver.wait((c) => c.body?.key === s.session.key && c.body.version === 1);
      expect((await putFile(s, variant(2))).status).toBe(200);
      expect(cb.body.version).toBe(1);
    } finally {
      release();
    }
    await receiver.wait((c) => c.body?.key === s.session.key && c.body.version === 2);
  });

  test("409 for a stale X-COOL-WOPI-Timestamp; no timestamp (a forced save) is taken", async () => {
    const s = await open();
    const first = await lmtOf(s);
    expect((await putFile(s, variant(1), { "X-COOL-WOPI-Timestamp": first })).status).toBe(200);
    expect(await errorOf(await putFile(s, variant(2), { "X-COOL-WOPI-Timestamp": "2020-01-01T00:00:00.000000Z" }))).toEqual({ status: 409, code: "conflict" });
    expect((await putFile(s, variant(3))).status).toBe(200);
    expect(((await (await cfi(s)).json()) as any).Version).toBe("2");
  });

  test("a save retried after its answer was lost (same bytes, the timestamp before it) is that version, not a conflict", async () => {
    const s = await open();
    const t0 = await lmtOf(s);
    const r1 = (await (await putFile(s, variant(1), { "X-COOL-WOPI-Timestamp": t0 })).json()) as any;
    const again = await putFile(s, variant(1), { "X-COOL-WOPI-Timestamp": t0 });
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).LastModifiedTime).toBe(r1.LastModifiedTime);
    expect(((await (await cfi(s)).json()) as any).Version).toBe("1");
    // Other bytes with that old timestamp are a conflict.
    expect((await putFile(s, variant(9), { "X-COOL-WOPI-Timestamp": t0 })).status).toBe(409);
  });

  test("400 bad_request for an empty body; 413 past SVC_EMBED_MAX_FILE_MB (nothing stored either way)", async () => {
    const s = await open();
    expect(await errorOf(await putFile(s, new Uint8Array()))).toEqual({ status: 400, code: "bad_request" });
    expect(await errorOf(await putFile(s, new Uint8Array(1024 * 1024 + 1)))).toEqual({ status: 413, code: "file_too_large" });
    expect(((await (await cfi(s)).json()) as any).Version).toBe("0");
  });

  test("501 not_implemented for PUT_RELATIVE, RENAME_FILE, locks and every other override", async () => {
    const s = await open();
    for (const override of ["PUT_RELATIVE", "RENAME_FILE", "LOCK", "UNLOCK", "REFRESH_LOCK", "GET_LOCK", "DELETE", "PUT_USER_INFO", ""]) {
      const res = await fetch(`${s.wopi}?access_token=${s.token}`, { method: "POST", headers: { "X-WOPI-Override": override, "X-WOPI-SuggestedTarget": "copy.docx" }, body: "x" });
      expect([override, await errorOf(res)]).toEqual([override, { status: 501, code: "not_implemented" }]);
    }
    expect(await errorOf(await putFile(s, variant(1), { "X-WOPI-Override": "PUT_RELATIVE" }))).toEqual({ status: 501, code: "not_implemented" });
    // Without a valid token the override is not even considered.
    expect((await fetch(`${s.wopi}?access_token=nope`, { method: "POST", headers: { "X-WOPI-Override": "PUT_RELATIVE" } })).status).toBe(401);
  });

  test("the latest 5 versions plus the original are kept; older ones answer 410 version_gone", async () => {
    const s = await open();
    for (let i = 1; i <= 7; i++) expect((await putFile(s, variant(i))).status).toBe(200);
    const links = stack.gate.embed.links;
    const get = (v: number) => fetch(links.url(s.docId, v));
    for (const v of [0, 3, 4, 5, 6, 7]) expect([v, (await get(v)).status]).toEqual([v, 200]);
    for (const v of [1, 2]) expect([v, await errorOf(await get(v))]).toEqual([v, { status: 410, code: "version_gone" }]);
    expect(new Uint8Array(await (await get(0)).arrayBuffer())).toEqual(new Uint8Array(DOCX));
    expect(new Uint8Array(await (await get(7)).arrayBuffer())).toEqual(variant(7));
    const dir = path.join(stack.dataDir, "embed", "files", s.docId);
    expect(["v0", "v1", "v2", "v3", "v7"].map((v) => existsSync(path.join(dir, `${v}.docx`)))).toEqual([true, false, false, true, true]);
    const state = (await (await fetch(`${stack.gateUrl}/svc/embed/session/${s.session.session_id}`, { headers: { Authorization: `Bearer ${s.token}` } })).json()) as any;
    expect(state.version).toBe(7);
  });

  test("the query strings of /wopi/ paths (the token) are never logged", async () => {
    const s = await open();
    await cfi(s);
    await putFile(s, variant(1));
    const lines = stack.gate.logLines.filter((l) => l.includes("/svc/wopi/files/"));
    expect(lines.length).toBeGreaterThan(1);
    expect(stack.gate.logLines.join("\n")).not.toContain(s.token);
    for (const l of lines) expect(JSON.parse(l).path).not.toContain("?");
  });
});

describe("expiry and the final save", () => {
  test("an expired token cannot open the document, but its final PutFile is taken for 30 minutes", async () => {
    const s = await open();
    clock.advance(720 * 60_000);
    expect(await errorOf(await cfi(s))).toEqual({ status: 401, code: "invalid_session_token" });
    expect((await getFile(s)).status).toBe(401);
    expect((await putFile(s, variant(1))).status).toBe(200);
    clock.advance(FINAL_SAVE_GRACE_MS - 1);
    expect((await putFile(s, variant(2))).status).toBe(200);
    clock.advance(1);
    expect(await errorOf(await putFile(s, variant(3)))).toEqual({ status: 401, code: "invalid_session_token" });
    const state = await fetch(`${stack.gateUrl}/svc/embed/session/${s.session.session_id}`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(await errorOf(state)).toEqual({ status: 401, code: "invalid_session_token" });
  });

  test("after DELETE or a switch to view, no new view opens, but what was typed before is still saved", async () => {
    const a = await open();
    const b = await open({ key: a.session.key, user: "u2" });
    const auth = (s: Opened) => ({ Authorization: `Bearer ${s.token}`, "Content-Type": "application/json" });
    expect((await fetch(`${stack.gateUrl}/svc/embed/session/${a.session.session_id}`, { method: "DELETE", headers: auth(a) })).status).toBe(204);
    expect((await fetch(`${stack.gateUrl}/svc/embed/session/${b.session.session_id}/mode`, { method: "POST", headers: auth(b), body: '{"mode":"view"}' })).status).toBe(200);
    expect((await cfi(a)).status).toBe(401);
    expect(((await (await cfi(b)).json()) as any).UserCanWrite).toBe(false);
    expect((await putFile(a, variant(1))).status).toBe(200);
    expect((await putFile(b, variant(2))).status).toBe(200);
    clock.advance(FINAL_SAVE_GRACE_MS);
    expect((await putFile(a, variant(3))).status).toBe(401);
    expect((await putFile(b, variant(4))).status).toBe(401);
  });
});

describe("download links", () => {
  test("Content-Disposition attachment with the title; 403 for a wrong signature; 410 once expired; 400 for missing parameters", async () => {
    const s = await open({ title: "Báo cáo quý 3" });
    const url = new URL(stack.gate.embed.links.url(s.docId, 0));
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-disposition")).toBe(`attachment; filename="Bao cao quy 3.docx"; filename*=UTF-8''${encodeURIComponent("Báo cáo quý 3.docx")}`);
    expect(ok.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
    await ok.arrayBuffer();
    const tamper = (k: string, v: string) => {
      const u = new URL(url);
      u.searchParams.set(k, v);
      return fetch(u);
    };
    const sig = url.searchParams.get("sig")!;
    expect(await errorOf(await tamper("sig", sig.replace(/^./, sig[0] === "a" ? "b" : "a")))).toEqual({ status: 403, code: "invalid_signature" });
    expect(await errorOf(await tamper("exp", String(Number(url.searchParams.get("exp")) + 3600)))).toEqual({ status: 403, code: "invalid_signature" });
    expect(await errorOf(await tamper("v", "1"))).toEqual({ status: 403, code: "invalid_signature" });
    const other = await open();
    expect(await errorOf(await fetch(url.href.replace(s.docId, other.docId)))).toEqual({ status: 403, code: "invalid_signature" });
    for (const k of ["v", "exp", "sig"]) {
      const u = new URL(url);
      u.searchParams.delete(k);
      const r = await fetch(u);
      expect([k, await errorOf(r)]).toEqual([k, { status: 400, code: "bad_request" }]);
    }
    // Valid until exp (SVC_EMBED_RETAIN_HOURS, 72 by default), then 410.
    const exp = Number(url.searchParams.get("exp")) * 1000;
    expect(exp - clock.now()).toBeGreaterThan(72 * 3600_000 - 2000);
    clock.set(exp);
    expect((await fetch(url)).status).toBe(200);
    clock.set(exp + 1000);
    expect(await errorOf(await fetch(url))).toEqual({ status: 410, code: "link_expired" });
    expect(stack.gate.logLines.join("\n")).not.toContain(sig);
  });
  test("a download sig of the wrong length is 403 invalid_signature (the spec's answer for a wrong sig)", async () => {
    const s = await open();
    const url = new URL(stack.gate.embed.links.url(s.docId, 0));
    const sig = url.searchParams.get("sig")!;
    for (const bad of [sig.slice(0, -1), sig + "0", sig.slice(0, 32), "0", sig.toUpperCase(), `${sig.slice(0, -2)}zz`, "not-hex-at-all", sig + sig]) {
      const u = new URL(url);
      u.searchParams.set("sig", bad);
      expect([bad, await errorOf(await fetch(u))]).toEqual([bad, { status: 403, code: "invalid_signature" }]);
    }
    // An empty sig is a wrong one too; a missing sig is a missing parameter (400).
    const empty = new URL(url);
    empty.searchParams.set("sig", "");
    expect(await errorOf(await fetch(empty))).toEqual({ status: 403, code: "invalid_signature" });
  });
});

describe("closing and retention", () => {
  test("a document no session can open any more closes after 30 s without a view, sends document.closed, and is purged after SVC_EMBED_RETAIN_HOURS", async () => {
    const s = await open();
    expect((await putFile(s, variant(1), { "X-COOL-WOPI-IsExitSave": "true" })).status).toBe(200);
    const saved = await receiver.wait((c) => c.body?.key === s.session.key && c.body.status === "saved");
    expect(saved.body.final).toBe(true);
    // Its one session still may open it: it stays open however long nobody looks.
    clock.advance(CLOSED_AFTER_MS * 3);
    await stack.gate.sampler.nextSample();
    expect(stack.gate.embed.store.document(s.docId)!.state).toBe("open");
    const st = (await (await fetch(`${stack.gateUrl}/svc/embed/session/${s.session.session_id}`, { method: "DELETE", headers: { Authorization: `Bearer ${s.token}` } })).status);
    expect(st).toBe(204);
    await stack.gate.sampler.nextSample();
    clock.advance(CLOSED_AFTER_MS - 1);
    await stack.gate.sampler.nextSample();
    expect(stack.gate.embed.store.document(s.docId)!.state).toBe("open");
    clock.advance(1);
    await stack.gate.sampler.nextSample();
    await until(() => stack.gate.embed.store.document(s.docId)!.state, (x) => x === "closed", "the document closed");
    const closed = await receiver.wait((c) => c.body?.key === s.session.key && c.body.status === "closed");
    expect(closed.headers["x-svc-event"]).toBe("document.closed");
    expect(closed.check).toMatchObject({ ok: true });
    expect(closed.body).toMatchObject({ status: "closed", version: 1, users: [], savedBy: null, final: false, autosave: false, modifiedByUser: false });
    expect(closed.at).toBeGreaterThanOrEqual(saved.at);
    const link = closed.body.url as string;
    expect((await fetch(link)).status).toBe(200);
    // Retention: 72 h after the close, files and rows go; the link then says version_gone.
    clock.advance(72 * 3600_000 - 1000);
    stack.gate.embed.sweep();
    expect(stack.gate.embed.store.document(s.docId)?.state).toBe("closed");
    clock.advance(2000);
    expect(stack.gate.embed.sweep()).toBeGreaterThanOrEqual(1);
    expect(existsSync(path.join(stack.dataDir, "embed", "files", s.docId))).toBe(false);
    expect(stack.gate.embed.store.document(s.docId)).toBeNull();
    // The link's own expiry is also 72 h: with a fresh link the version is gone.
    expect(await errorOf(await fetch(stack.gate.embed.links.url(s.docId, 1)))).toEqual({ status: 410, code: "version_gone" });
    expect((await fetch(`${stack.gateUrl}/svc/embed/session/${s.session.session_id}`, { headers: { Authorization: `Bearer ${s.token}` } })).status).toBe(404);
  });

  test("closed with version 0 has a null url; reopening the same key during retention reopens the gate's copy", async () => {
    const s = await open();
    await fetch(`${stack.gateUrl}/svc/embed/session/${s.session.session_id}`, { method: "DELETE", headers: { Authorization: `Bearer ${s.token}` } });
    await stack.gate.sampler.nextSample();
    clock.advance(CLOSED_AFTER_MS);
    await stack.gate.sampler.nextSample();
    const closed = await receiver.wait((c) => c.body?.key === s.session.key && c.body.status === "closed");
    expect(closed.body).toMatchObject({ version: 0, url: null });
    const hits = source.hits.length;
    const again = await open({ key: s.session.key });
    expect(again.docId).toBe(s.docId);
    expect(source.hits.length).toBe(hits + 0);
    expect(stack.gate.embed.store.document(s.docId)!.state).toBe("open");
  });
});
