// The gate killed (SIGKILL) while a person edits, then started again on the same data directory:
// the editing server's retried save lands as the next version, and a callback that was waiting
// for its retry when the gate died is delivered after the restart with the same delivery id. The
// gate runs as its own process (bun app/main.ts) with the spec's retry schedule (10 s, 60 s); the
// editing server is the real one, with real kits.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { docxText } from "../testing/office-files";
import type { Subprocess } from "bun";
import { freePort } from "../../caddy/testing";
import { parseConfig } from "../config";
import { createEdsrv, type Edsrv } from "../edsrv/server";
import { TestSocket, docWsUrl } from "../edsrv/testing/ws-client";
import { memoryLogger } from "../log";
import { FIXTURES } from "../testing/harness";
import { CALLBACK_SECRET, EDSRV_ADMIN_PASSWORD, EMBED_SECRET, embedToken, startReceiver, startSource, until } from "./testing";
import { scaled } from "../testing/until";

const ROOT = path.resolve(import.meta.dir, "../..");
const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));
let ed: Edsrv;
let gate: Subprocess | null = null;
let gateUrl: string;
let env: Record<string, string>;
let dataDir: string;
let edDir: string;
let source: ReturnType<typeof startSource>;
let receiver: ReturnType<typeof startReceiver>;
let gateOutput = "";

async function startGate() {
  gate = Bun.spawn([process.execPath, path.join(ROOT, "app/main.ts")], { env, stdout: "pipe", stderr: "pipe" });
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) gateOutput += new TextDecoder().decode(c);
  };
  void pump(gate.stdout as ReadableStream<Uint8Array>);
  void pump(gate.stderr as ReadableStream<Uint8Array>);
  await until(
    async () => {
      try {
        return (await fetch(`${gateUrl}/svc/healthz`)).status;
      } catch {
        return 0;
      }
    },
    (s) => s === 200,
    "the gate answers",
    60_000,
  );
}

beforeAll(async () => {
  source = startSource();
  receiver = startReceiver();
  const [gatePort, edPort] = [await freePort(), await freePort()];
  gateUrl = `http://127.0.0.1:${gatePort}`;
  dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-crash-gate-"));
  edDir = mkdtempSync(path.join(os.tmpdir(), "svc-crash-ed-"));
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    SVC_DATA_DIR: dataDir,
    SVC_LICENSE_FILE: path.join(dataDir, "license.token"),
    SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
    SVC_PUBLIC_URL: gateUrl,
    SVC_DOCBUILDER_WORKERS: "1",
    SVC_EDSRV_URL: `http://127.0.0.1:${edPort}`,
    SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD,
    SVC_EMBED_JWT_SECRET: EMBED_SECRET,
    SVC_EMBED_CALLBACK_SECRET: CALLBACK_SECRET,
    SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
  };
  [ed] = await Promise.all([
    createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: edDir, SVC_ONLINE_ALIASGROUP1: gateUrl, SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD }),
      logger: memoryLogger("warn"),
      listen: { hostname: "127.0.0.1", port: edPort },
      idleKits: 1,
      autosaveSeconds: 0,
      saveRetryMs: 250,
    }),
    startGate(),
  ]);
}, scaled(120_000));

afterAll(async () => {
  gate?.kill("SIGTERM");
  await gate?.exited;
  await ed?.close();
  source?.stop();
  receiver?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(edDir, { recursive: true, force: true });
});


test("the gate killed (SIGKILL) while a user edits and restarted: the retried save is the next version, no version or callback is lost", async () => {
  const url = source.add("/crash.docx", DOCX);
  const cfg = { document: { url, fileType: "docx", key: `crash-${Date.now()}` }, editor: { user: { id: "u1", name: "Lan" }, callbackUrl: receiver.url } };
  const res = await fetch(`${gateUrl}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: await embedToken(cfg) }) });
  expect(res.status).toBe(201);
  const s = (await res.json()) as any;
  const wopiSrc = new URL(s.editor_url, "http://x").searchParams.get("WOPISrc")!;
  const sock = new TestSocket(docWsUrl(ed.url, wopiSrc, s.form.access_token), ed.url);
  await sock.opened;
  sock.send(`load url=${encodeURIComponent(wopiSrc)}`);
  await sock.waitText("status:");

  // Version 1: its callback's first attempt fails, the retry is due 10 s later.
  receiver.plan.push(500);
  let n = sock.frames.length;
  sock.send(`textinput text=${encodeURIComponent("Alpha ")}`);
  await sock.waitText("statechanged: .uno:ModifiedStatus=true", n);
  n = sock.frames.length;
  sock.send("save dontTerminateEdit=1 notify=1");
  expect(JSON.parse((await sock.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
  const firstAttempt = await receiver.wait((c) => c.body?.version === 1);
  expect(firstAttempt.status).toBe(500);
  const stateOf = async () => (await (await fetch(`${gateUrl}/svc/embed/session/${s.session_id}`, { headers: { Authorization: `Bearer ${s.form.access_token}` } })).json()) as any;
  const pending = await until(stateOf, (st) => st.callback?.attempts === 1, "the failed attempt recorded");
  expect(pending.callback).toMatchObject({ event: "document.saved", version: 1, state: "pending", attempts: 1, last_status: 500, last_error: "status" });
  expect(Date.parse(pending.callback.next_attempt_at) - Date.parse(pending.callback.last_attempt_at)).toBeGreaterThanOrEqual(10_000);

  // The gate dies while the person goes on typing and saves.
  gate!.kill("SIGKILL");
  await gate!.exited;
  n = sock.frames.length;
  sock.send(`textinput text=${encodeURIComponent("Beta ")}`);
  await sock.waitText("statechanged: .uno:ModifiedStatus=true", n);
  n = sock.frames.length;
  sock.send("save dontTerminateEdit=1 notify=1");
  expect(JSON.parse((await sock.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: false });

  await startGate();
  // The editing server's retry lands as version 2 on the restarted gate.
  const v2 = await receiver.wait((c) => c.body?.version === 2 && c.status === 200, 30_000);
  expect(v2.check).toMatchObject({ ok: true, event: "document.saved" });
  expect(docxText(new Uint8Array(await (await fetch(v2.body.url)).arrayBuffer()))).toMatch(/Alpha.*Beta/);
  // Version 1's callback, pending when the gate died, goes out again with the same delivery id.
  const v1 = await receiver.wait((c) => c.body?.version === 1 && c.status === 200, 30_000);
  expect(v1.headers["x-svc-delivery"]).toBe(firstAttempt.headers["x-svc-delivery"]);
  // The same body but its timestamp, the time this attempt was sent (spec: "Send time"), and its
  // users, who had the document open when it was sent (Lan, back after the restart).
  const { timestamp: t1, users: u1, ...rest1 } = v1.body;
  const { timestamp: t0, users: _u0, ...rest0 } = firstAttempt.body;
  expect(rest1).toEqual(rest0);
  expect(u1).toEqual([{ id: "u1", name: "Lan" }]);
  expect(Math.floor(Date.parse(t1) / 1000)).toBe(Number(v1.headers["x-svc-timestamp"]));
  expect(Date.parse(t1) - Date.parse(t0)).toBeGreaterThanOrEqual(9_000);
  expect(v1.check).toMatchObject({ ok: true });
  expect(v1.at - firstAttempt.at).toBeGreaterThanOrEqual(9_000);
  expect(receiver.received.filter((c) => c.status === 200).map((c) => c.body.version).sort()).toEqual([1, 2]);

  expect(await stateOf()).toMatchObject({ version: 2, state: "active" });
  // Version 1, through the link signed before the crash (the gate's link key survived it).
  const v1File = docxText(new Uint8Array(await (await fetch(v1.body.url)).arrayBuffer()));
  expect(v1File).toContain("Alpha");
  expect(v1File).not.toContain("Beta");
  expect(gateOutput).not.toContain(s.form.access_token);
  sock.close();
}, scaled(90_000));
