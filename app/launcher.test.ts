// The start command's launcher brings up the whole set behind real Caddy, keeps it up when one of
// its processes dies, and stops it in order without losing what was typed.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { ID_PATTERNS } from "./ids";
import { TestSocket, docWsUrl } from "./edsrv/testing/ws-client";
import { startChromium } from "./edsrv/testing/chromium";
import { until, waitFor, within, scaled } from "./testing/until";

// The integrator's file server for the embedded document (loopback is allowed for it below).
const hello = readFileSync(path.resolve(import.meta.dir, "../fixtures/hello.docx"));
const source = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(hello) });

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-launch-"));
const PROXY_PORT = 18_000 + Math.floor(Math.random() * 1000);
const APP_PORT = PROXY_PORT + 1000;
const EDSRV_PORT = PROXY_PORT + 2000;
const base = `http://127.0.0.1:${PROXY_PORT}`;
let proc: ReturnType<typeof Bun.spawn>;
let output = "";
/** The launcher's standard output alone (the spec: one JSON line per event there). */
let stdoutText = "";
/** Ends when the launcher's stdout and stderr are read to their end. */
let outputRead: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  proc = Bun.spawn([process.execPath, path.resolve(import.meta.dir, "launcher.ts")], {
    env: {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      SVC_PROXY_ADDRESS: `127.0.0.1:${PROXY_PORT}`,
      SVC_APP_LISTEN: `127.0.0.1:${APP_PORT}`,
      SVC_EDSRV_LISTEN: `127.0.0.1:${EDSRV_PORT}`,
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_LOG_LEVEL: "info",
      SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
      // Secrets the launcher does not make up itself in development, so that every one is set.
      SVC_DOCBUILDER_JWT_SECRET: "launcher-test-docbuilder-jwt-0b7e2c94f1a6d385",
      SVC_DOCBUILDER_CALLBACK_SECRET: "launcher-test-docbuilder-callback-6c1d",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const pump = async (stream: ReadableStream<Uint8Array>, own?: true) => {
    for await (const chunk of stream) {
      const text = new TextDecoder().decode(chunk);
      output += text;
      if (own) stdoutText += text;
    }
  };
  outputRead = Promise.all([pump(proc.stdout as ReadableStream<Uint8Array>, true), pump(proc.stderr as ReadableStream<Uint8Array>)]);
  await waitUntil(() => output.includes('"event":"service_ready"'), "the launcher said it is ready", 90_000);
}, scaled(180_000));

/** The launcher's JSON events for one process, in order. */
const events = (name: string, event?: string) =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{") && l.includes('"service":"launcher"'))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((e) => e.process === name && (!event || e.event === event));

/** waitFor, and the launcher's last output when it never came. */
async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  try {
    await waitFor(cond, what, ms);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${output.slice(-3000)}`);
  }
}

afterAll(() => {
  proc?.kill("SIGKILL");
  source.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

test("logs: every line on the launcher's standard output is one JSON event (its own lines included), never a plain-text line", () => {
  const lines = stdoutText.split("\n").filter((l) => l.trim());
  expect(lines.length).toBeGreaterThan(5);
  const plain = lines.filter((l) => {
    try {
      return typeof JSON.parse(l) !== "object";
    } catch {
      return true;
    }
  });
  expect(plain).toEqual([]);
  const ready = lines.map((l) => JSON.parse(l)).find((e) => e.event === "service_ready");
  expect(ready).toMatchObject({ level: "info", service: "launcher", urls: { docbuilder_status: `${base}/v1/status` } });
});

test("the start command serves DocBuilder through the proxy with a demo key kept in the data directory and never printed", async () => {
  expect(output).toContain('"event":"service_ready"');
  const status = await fetch(`${base}/v1/status`);
  expect(status.status).toBe(200);
  expect(((await status.json()) as any).dev_mode).toBe(true);
  const key = readFileSync(path.join(dataDir, "demo-api-key"), "utf8").trim();
  expect(output).not.toContain(key);
  expect(output).toContain(path.join(dataDir, "demo-api-key"));
  const pdf = await fetch(`${base}/v1/convert`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}` },
    body: (() => {
      const fd = new FormData();
      fd.append("to", "pdf");
      fd.append("file", Bun.file(path.resolve(import.meta.dir, "../fixtures/hello.docx")), "hello.docx");
      return fd;
    })(),
  });
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get("Content-Type")).toBe("application/pdf");
});

/** Every process below `pid`, with its command line. */
function descendants(pid: number): { pid: number; cmdline: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {} // gone meanwhile
  }
  const out: { pid: number; cmdline: string }[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      try {
        out.push({ pid: c, cmdline: readFileSync(`/proc/${c}/cmdline`, "latin1").replaceAll("\0", " ") });
      } catch {}
      walk(c);
    }
  };
  walk(pid);
  return out;
}

test("no engine holds a secret: Caddy, the kits and the workers hold none of the secrets the gate and the editing server are given", async () => {
  const tree = descendants(proc.pid);
  const gate = tree.find((p) => p.cmdline.includes("app/main.ts"))!;
  const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, "latin1");
  const secrets = environ(gate.pid)
    .split("\0")
    .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)] as const)
    .filter(([name, value]) => /SECRET|KEYS|PASSWORD/.test(name) && value.length >= 8);
  expect(secrets.map(([name]) => name)).toEqual(expect.arrayContaining(["SVC_EDSRV_ADMIN_PASSWORD", "SVC_DOCBUILDER_API_KEYS", "SVC_DOCBUILDER_JWT_SECRET", "SVC_DOCBUILDER_CALLBACK_SECRET", "SVC_EMBED_CALLBACK_SECRET"]));
  const engines = tree.filter((p) => !p.cmdline.includes("app/main.ts") && !p.cmdline.includes("app/edsrv/main.ts"));
  expect(engines.some((p) => p.cmdline.startsWith("caddy "))).toBe(true);
  expect(engines.some((p) => p.cmdline.includes("workers/worker-main.ts"))).toBe(true);
  expect(engines.some((p) => p.cmdline.includes("workers/kit/main.ts"))).toBe(true);
  for (const p of engines) {
    const env = environ(p.pid);
    for (const [name, value] of secrets) expect({ process: p.cmdline, name, held: env.includes(value) }).toEqual({ process: p.cmdline, name, held: false });
  }
});

test("service_ready is logged once an editor can open: after the editing server's idle kits are warm", async () => {
  const lines = output.split("\n");
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const kitsWarm = at(/"event":"edsrv_started"/), edsrvReady = at(/"event":"process_ready".*"process":"edsrv"/), ready = at(/"event":"service_ready"/);
  expect(kitsWarm).toBeGreaterThanOrEqual(0);
  expect(edsrvReady).toBeGreaterThan(kitsWarm);
  expect(ready).toBeGreaterThan(edsrvReady);
});

test("a console a person can read: up to service_ready, no health probe's request line (the launcher's readiness polls, the proxy's health checks) at info", () => {
  const lines = stdoutText.split("\n").filter((l) => l.startsWith("{"));
  const upToReady = lines.slice(0, lines.findIndex((l) => l.includes('"event":"service_ready"')) + 1);
  const probes = upToReady.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === "http_request" && /^\/(ed\/ready|v1\/status|svc\/healthz|svc\/status)$/.test(String(e.path)));
  expect(probes).toEqual([]);
});

test("the start command prints the demo's address; / leads to the demo through the proxy", async () => {
  expect(output).toContain(`${base}/svc/demo`);
  const res = await fetch(`${base}/`);
  expect(res.status).toBe(200);
  expect(res.url).toBe(`${base}/svc/demo`);
  expect(await res.text()).toContain('<script src="/svc/api.js"></script>');
  expect((await fetch(`${base}/svc/api.js`)).status).toBe(200);
});

test("a new developer's first minute: the printed address opens the demo, a document is edited and saved, the signed callback shows", async () => {
  const chrome = await startChromium();
  try {
    const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${base}/`);
    await page.waitForFunction(() => (window as any).demo?.log.some((e: any) => e.name === "onDocumentLoaded"), undefined, { timeout: 60_000 });
    const frame = page.frames().find((f) => f.url().includes("/ed.html"))!;
    await frame.waitForFunction(() => window.edState.firstPaintAt > 0);
    await frame.focus("#ime");
    await page.keyboard.type("First minute ");
    await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onModified" && e.payload.modified));
    await page.click('[data-call="save"]');
    await page.waitForFunction(() => (window as any).demo.log.some((e: any) => e.name === "onSaved"));
    // The demo speaks the browser's language (English here).
    await page.waitForFunction(() => document.getElementById("callbacks")!.textContent!.includes("signature valid"), undefined, { timeout: 20_000 });
    expect((await page.evaluate(() => (window as any).demo.log.filter((e: any) => e.name === "onError"))).length).toBe(0);
  } finally {
    await chrome.close();
  }
}, scaled(90_000));

test("the proxy redirects / to /svc/, hides internal gate paths and answers unknown paths with the JSON 404", async () => {
  const root = await fetch(`${base}/`, { redirect: "manual" });
  expect(root.status).toBe(302);
  expect(root.headers.get("Location")).toBe("/svc/");
  for (const p of ["/svc/auth", "/svc/wopi/files/doc_x", "/nowhere"]) {
    const res = await fetch(`${base}${p}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("not_found");
    expect(body.error.request_id).toMatch(ID_PATTERNS.request);
    expect(res.headers.get("X-SVC-Request-Id")).toBe(body.error.request_id);
  }
});

test("every port moved and nothing else set: the embedded default opens a document (a session through the proxy, the editor's WebSocket through the proxy, the gate as WOPI host by alias group 1, a save as version 1) and the gate counts its editor where the editing server listens", async () => {
  expect(output).toContain("/svc/embed/session");
  const res = await fetch(`${base}/svc/embed/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify({ document: { url: `http://127.0.0.1:${source.port}/hello.docx`, fileType: "docx", key: "launcher-1" }, editor: { user: { id: "u1", name: "Lan" } } }),
  });
  expect(res.status).toBe(201);
  expect(res.headers.get("access-control-allow-origin")).toBe(base);
  const s = (await res.json()) as any;
  const wopiSrc = new URL(s.editor_url, base).searchParams.get("WOPISrc")!;
  expect(wopiSrc).toBe(`http://127.0.0.1:${APP_PORT}/svc/wopi/files/${s.doc_id}`);
  // The editor page through the proxy (the gate admits the embedded session).
  const page = await fetch(`${base}${s.editor_url}`, { method: "POST", body: new URLSearchParams({ access_token: s.form.access_token, access_token_ttl: String(s.form.access_token_ttl) }) });
  expect(page.status).toBe(200);
  await page.text();
  const sock = new TestSocket(docWsUrl(base, wopiSrc, s.form.access_token), base);
  await sock.opened;
  sock.send(`load url=${encodeURIComponent(wopiSrc)}`);
  await sock.waitText("status:");
  expect(sock.texts()).toContain("perm: edit");
  // Counting follows SVC_EDSRV_LISTEN (no SVC_EDSRV_URL given): the gate sampled the editing server and sees this editor.
  const counted = await until(async () => ((await (await fetch(`${base}/svc/status`)).json()) as any).connections, (c) => c.source === "adminws" && c.current >= 1, "the gate counting the open editor");
  expect(counted).toMatchObject({ source: "adminws", enforcing: true });
  let n = sock.frames.length;
  sock.send("textinput text=Launcher%20");
  await sock.waitText("statechanged: .uno:ModifiedStatus=true", n);
  n = sock.frames.length;
  sock.send("save dontTerminateEdit=1 notify=1");
  expect(JSON.parse((await sock.waitText("saveresult:", n)).slice(12))).toMatchObject({ success: true });
  const state = (await (await fetch(`${base}/svc/embed/session/${s.session_id}`, { headers: { Authorization: `Bearer ${s.form.access_token}` } })).json()) as any;
  expect(state).toMatchObject({ version: 1, state: "active" });
  expect(state.download_url.startsWith(`${base}/svc/embed/files/${s.doc_id}?`)).toBe(true);
  expect((await fetch(state.download_url)).status).toBe(200);
  sock.close();
}, scaled(60_000));

test("a process that dies is restarted, not the whole service stopped: the editing server, the gate and the proxy each killed", async () => {
  for (const name of ["edsrv", "gate+docbuilder", "caddy"]) {
    const started = events(name, "process_started");
    const pid = started.at(-1)!.pid as number;
    process.kill(pid, "SIGKILL");
    await waitUntil(() => events(name, "process_ready").length > started.length, `${name} restarted and ready`);
    expect(events(name, "process_exited").at(-1)).toMatchObject({ signal: "SIGKILL" });
    expect(proc.exitCode).toBeNull();
  }
  // Everything answers through the proxy again.
  await waitUntil(async () => (await fetch(`${base}/v1/status`).catch(() => null))?.status === 200, "DocBuilder through the proxy");
  expect((await fetch(`${base}/hosting/capabilities`)).status).toBe(200);
  expect((await fetch(`${base}/svc/healthz`)).status).toBe(200);
}, scaled(180_000));

test("SIGTERM stops the set in order (proxy, editing server, gate) and what was typed but not saved is stored as a version first", async () => {
  const res = await fetch(`${base}/svc/embed/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify({ document: { url: `http://127.0.0.1:${source.port}/hello.docx`, fileType: "docx", key: "launcher-stop" }, editor: { user: { id: "u1", name: "Lan" } } }),
  });
  const s = (await res.json()) as any;
  const wopiSrc = new URL(s.editor_url, base).searchParams.get("WOPISrc")!;
  const sock = new TestSocket(docWsUrl(base, wopiSrc, s.form.access_token), base);
  await sock.opened;
  sock.send(`load url=${encodeURIComponent(wopiSrc)}`);
  await sock.waitText("status:");
  const n = sock.frames.length;
  sock.send(`textinput text=${encodeURIComponent("Typed before the stop ")}`);
  await sock.waitText("statechanged: .uno:ModifiedStatus=true", n);

  proc.kill("SIGTERM");
  const code = await proc.exited;
  expect(code).toBe(0);
  // The exit can come before the last lines are read (a loaded machine): read to the end first.
  await within(outputRead, 10_000, "the launcher's output read to its end");
  await expect(fetch(`${base}/v1/status`)).rejects.toThrow();
  const stops = output
    .split("\n")
    .filter((l) => l.includes('"event":"process_stopping"'))
    .map((l) => JSON.parse(l).process);
  expect(stops).toEqual(["caddy", "edsrv", "gate+docbuilder"]);
  // What the stop logged about saving, so that a failure says which step went wrong.
  const saving = output.split("\n").filter((l) => /at_stop|"event":"putfile"|stopping|stopped|process_|edsrv_|signal/.test(l)).slice(-30).join("\n");
  // This test's document, and any an earlier test left modified (its autosave refused while the gate was killed), all stored.
  expect(saving).toMatch(/"event":"documents_stored_at_stop".*"stored":[1-9].*"quarantined":0,"lost":0/);
  // The version the gate stored holds the typed text.
  const v1 = path.join(dataDir, "embed", "files", s.doc_id, "v1.docx");
  expect(strFromU8(unzipSync(new Uint8Array(readFileSync(v1)))["word/document.xml"]!)).toContain("Typed before the stop");
}, scaled(90_000));
