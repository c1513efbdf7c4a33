// A stream that ends early ends its request, never the process. The gate + DocBuilder process and
// the editing server run as their own processes (bun app/main.ts, bun app/edsrv/main.ts); every
// entry point that reads a body is sent part of it and then the socket is closed, at once or after
// a pause (a slow client), and every download is dropped after its first bytes. Afterwards both
// processes are alive, answer, convert, and left nothing behind (no job directory, no partial
// version file), and no line of their logs is an error or an uncaught exception.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../caddy/testing";
import { CALLBACK_SECRET, EDSRV_ADMIN_PASSWORD, EMBED_SECRET, embedToken, startSource, until } from "./embed/testing";
import { FIXTURES, TEST_API_KEY, enterpriseEnv } from "./testing/harness";
import { within, scaled } from "./testing/until";

const ROOT = path.resolve(import.meta.dir, "..");
const DOCX = readFileSync(path.join(FIXTURES, "hello.docx"));

interface Proc {
  proc: Subprocess;
  output: string;
  port: number;
}

let gate: Proc;
let ed: Proc;
let gateData: string;
let edData: string;
let source: ReturnType<typeof startSource>;

function spawn(entry: string, env: Record<string, string>, port: number): Proc {
  const proc = Bun.spawn([process.execPath, path.join(ROOT, entry)], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const p: Proc = { proc, output: "", port };
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) p.output += new TextDecoder().decode(c);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  return p;
}

const answers = (url: string) =>
  until(
    async () => {
      try {
        return (await fetch(url)).status;
      } catch {
        return 0;
      }
    },
    (s) => s === 200,
    `${url} answers`,
    60_000,
  );

beforeAll(async () => {
  source = startSource();
  const [gatePort, edPort] = [await freePort(), await freePort()];
  gateData = mkdtempSync(path.join(os.tmpdir(), "svc-abort-gate-"));
  edData = mkdtempSync(path.join(os.tmpdir(), "svc-abort-ed-"));
  const gateUrl = `http://127.0.0.1:${gatePort}`;
  gate = spawn(
    "app/main.ts",
    {
      ...enterpriseEnv(),
      SVC_DATA_DIR: gateData,
      SVC_LICENSE_FILE: path.join(gateData, "license.token"),
      SVC_APP_LISTEN: `127.0.0.1:${gatePort}`,
      SVC_PUBLIC_URL: gateUrl,
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_DOCBUILDER_API_KEYS: `test:${TEST_API_KEY}`,
      SVC_EDSRV_URL: `http://127.0.0.1:${edPort}`,
      SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD,
      SVC_EMBED_JWT_SECRET: EMBED_SECRET,
      SVC_EMBED_CALLBACK_SECRET: CALLBACK_SECRET,
      SVC_FETCH_ALLOW_HOSTS: "127.0.0.1",
      SVC_LOG_LEVEL: "info",
    },
    gatePort,
  );
  ed = spawn(
    "app/edsrv/main.ts",
    {
      SVC_DATA_DIR: edData,
      SVC_EDSRV_LISTEN: `127.0.0.1:${edPort}`,
      SVC_ONLINE_ALIASGROUP1: gateUrl,
      SVC_EDSRV_ADMIN_PASSWORD: EDSRV_ADMIN_PASSWORD,
      SVC_EDSRV_IDLE_KITS: "1",
      SVC_LOG_LEVEL: "info",
    },
    edPort,
  );
  await Promise.all([answers(`${gateUrl}/v1/status`), answers(`http://127.0.0.1:${edPort}/hosting/discovery`)]);
}, scaled(120_000));

afterAll(async () => {
  for (const p of [gate, ed]) {
    p?.proc.kill("SIGTERM");
    await p?.proc.exited;
  }
  source?.stop();
  rmSync(gateData, { recursive: true, force: true });
  rmSync(edData, { recursive: true, force: true });
});

/**
 * Sends a request head and part of its body (Content-Length says more), then closes the socket.
 * The pause is the client's own (a body cut at once, or after the server has started reading it),
 * part of the input under test, not a wait for the server.
 */
async function sendPartial(port: number, head: string, partial: string | Uint8Array, pauseMs = 200): Promise<void> {
  const socket = net.connect(port, "127.0.0.1");
  // A refused connection (the process is gone) is seen by processesAreFine, not waited for here.
  const connected = await new Promise<boolean>((r) => {
    socket.once("connect", () => r(true));
    socket.once("error", () => r(false));
  });
  socket.on("error", () => {});
  if (!connected) return;
  socket.write(head + "\r\n");
  socket.write(partial);
  await Bun.sleep(pauseMs);
  socket.destroy();
}

/** Sends a whole request, reads the first bytes of its answer, then closes the socket. */
async function dropAnswer(port: number, head: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  const connected = await new Promise<boolean>((r) => {
    socket.once("connect", () => r(true));
    socket.once("error", () => r(false));
  });
  socket.on("error", () => {});
  if (!connected) return "";
  const first = new Promise<string>((resolve) => socket.once("data", (d) => resolve(d.toString("latin1"))));
  socket.write(head + "\r\n");
  try {
    return await within(first, 30_000, `the first bytes of the answer to ${head.split("\r\n")[0]}`);
  } finally {
    socket.destroy();
  }
}

const auth = `Authorization: Bearer ${TEST_API_KEY}`;
const BOUNDARY = "svcAbortBoundary";
const multipartStart = (name = "file", filename = "a.docx") =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
const multipartHead = (pathName: string, extra = "") =>
  `POST ${pathName} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 200000\r\n${extra}`;
const jsonHead = (pathName: string, headers = auth) =>
  `POST ${pathName} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n`;

async function processesAreFine() {
  expect(gate.proc.exitCode).toBeNull();
  expect(ed.proc.exitCode).toBeNull();
  expect((await fetch(`http://127.0.0.1:${gate.port}/v1/status`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ed.port}/hosting/capabilities`)).status).toBe(200);
  for (const p of [gate, ed]) {
    expect(p.output).not.toMatch(/Unhandled error|uncaught|"level":"error"|"event":"unhandled_error"/i);
  }
}

/** An outside party that reads a request, sends the head and part of a body, and hangs up. */
function startHalfAnswer(answerHead: string, partialBody: string) {
  let requests = 0;
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => {
      requests++;
      socket.write(answerHead + "\r\n" + partialBody);
      setTimeout(() => socket.destroy(), 100);
    });
  });
  server.listen(0, "127.0.0.1");
  return {
    url: (p: string) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}${p}`,
    requests: () => requests,
    stop: () => server.close(),
  };
}

describe("a stream that ends early ends its request, never the process", () => {
  test("DocBuilder bodies cut mid-upload (convert, extract, thumbnail, template, build, JSON url), at once and after a pause", async () => {
    const partialFile = multipartStart() + "PK".padEnd(40_000, "x");
    for (const pauseMs of [50, 1500]) {
      for (const p of ["/v1/convert", "/v1/extract/text", "/v1/extract/meta", "/v1/extract/thumbnail", "/v1/template/render"]) {
        await sendPartial(gate.port, multipartHead(p), partialFile, pauseMs);
      }
      // The file part complete, a field after it cut.
      await sendPartial(gate.port, multipartHead("/v1/convert"), `${multipartStart()}PKxx\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="to"\r\n\r\np`, pauseMs);
      for (const p of ["/v1/convert", "/v1/build", "/v1/extract/text"]) {
        await sendPartial(gate.port, jsonHead(p), `{"to":"pdf","url":"http://127.0.0.1:1/`, pauseMs);
      }
    }
    // Each cut request ends when the gate notices the close; it cleans up what it had started.
    const leftBehind = () => [...readdirSync(path.join(gateData, "jobs")), ...readdirSync(path.join(gateData, "scratch"))];
    await until(() => ({ aborted: gate.output.includes('"event":"request_aborted"'), left: leftBehind() }), (v) => v.aborted && v.left.length === 0, "the cut requests logged and cleaned up");
    await processesAreFine();
    expect(gate.output).toContain('"event":"request_aborted"');
    // Nothing left behind: every job directory and scratch directory was removed.
    expect(readdirSync(path.join(gateData, "jobs"))).toEqual([]);
    expect(readdirSync(path.join(gateData, "scratch"))).toEqual([]);
    // And the service still works.
    const fd = new FormData();
    fd.append("file", new Blob([DOCX]), "hello.docx");
    fd.append("to", "pdf");
    const res = await fetch(`http://127.0.0.1:${gate.port}/v1/convert`, { method: "POST", headers: { Authorization: `Bearer ${TEST_API_KEY}` }, body: fd });
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  test("gate bodies cut mid-body (session creation, WOPI PutFile, demo and editing-server posts) and downloads dropped mid-answer", async () => {
    const url = source.add("/abort.docx", DOCX);
    const cfg = { document: { url, fileType: "docx", key: `abort-${Date.now()}`, title: "abort.docx" }, editor: { mode: "edit", user: { id: "u1", name: "Lan" } } };
    const res = await fetch(`http://127.0.0.1:${gate.port}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: await embedToken(cfg) }) });
    expect(res.status).toBe(201);
    const s = (await res.json()) as any;
    const wopiSrc = new URL(s.editor_url, "http://x").searchParams.get("WOPISrc")!;
    const wopiPath = new URL(wopiSrc).pathname;
    const token = s.form.access_token as string;

    for (const pauseMs of [50, 1500]) {
      await sendPartial(gate.port, jsonHead("/svc/embed/session", "Origin: http://127.0.0.1"), '{"token":"eyJhbGciOi', pauseMs);
      await sendPartial(
        gate.port,
        `POST ${wopiPath}/contents?access_token=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-WOPI-Override: PUT\r\nContent-Type: application/octet-stream\r\nContent-Length: 500000\r\n`,
        new Uint8Array(DOCX.subarray(0, 2000)),
        pauseMs,
      );
      // The editing server's own posts: the editor page's form and an internal conversion.
      await sendPartial(ed.port, `POST /browser/x/ed.html?WOPISrc=${encodeURIComponent(wopiSrc)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n`, "access_token=abc", pauseMs);
      await sendPartial(ed.port, `POST /ed/convert-to/pdf HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 200000\r\n`, multipartStart("data") + "PK".padEnd(20_000, "x"), pauseMs);
      // A WebSocket that closes in the middle of a frame.
      await sendPartial(
        ed.port,
        `GET /ed/${encodeURIComponent(wopiSrc)}/ws?access_token=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n`,
        new Uint8Array([0x81, 0xfe, 0x10, 0x00, 1, 2, 3, 4, 5, 6]),
        pauseMs,
      );
    }
    // Outside parties that hang up mid-answer: a document.url cut mid-file, a callback receiver
    // cut mid-answer (after a save).
    const half = startHalfAnswer("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n", "PK\u0003\u0004partial");
    try {
      const cut = { document: { url: half.url("/cut.docx"), fileType: "docx", key: `cut-${Date.now()}`, title: "cut.docx" }, editor: { mode: "edit", user: { id: "u1", name: "Lan" } } };
      const r = await fetch(`http://127.0.0.1:${gate.port}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: await embedToken(cut) }) });
      expect(r.status).toBe(422);
      expect(((await r.json()) as any).error.code).toBe("download_failed");
      const cb = { document: { url, fileType: "docx", key: `cb-${Date.now()}`, title: "cb.docx" }, editor: { mode: "edit", user: { id: "u2", name: "Minh" }, callbackUrl: half.url("/callback") } };
      const withCallback = (await (await fetch(`http://127.0.0.1:${gate.port}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: await embedToken(cb) }) })).json()) as any;
      const cbSrc = new URL(withCallback.editor_url, "http://x").searchParams.get("WOPISrc")!;
      const before = half.requests();
      expect((await fetch(`${cbSrc}/contents?access_token=${withCallback.form.access_token}`, { method: "POST", headers: { "X-WOPI-Override": "PUT" }, body: DOCX })).status).toBe(200);
      await until(() => half.requests(), (n) => n > before, "the callback was sent");
    } finally {
      half.stop();
    }

    // Downloads dropped after their first bytes: the WOPI GetFile, the signed link, api.js.
    const state = (await (await fetch(`http://127.0.0.1:${gate.port}/svc/embed/session/${s.session_id}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as any;
    const link = new URL(state.download_url);
    expect(await dropAnswer(gate.port, `GET ${wopiPath}/contents?access_token=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)).toStartWith("HTTP/1.1 200");
    expect(await dropAnswer(gate.port, `GET ${link.pathname}${link.search} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)).toStartWith("HTTP/1.1 200");
    expect(await dropAnswer(gate.port, `GET /svc/api.js HTTP/1.1\r\nHost: 127.0.0.1\r\n`)).toStartWith("HTTP/1.1 200");
    await until(() => readdirSync(path.join(gateData, "embed", "tmp")), (left) => left.length === 0, "the cut PutFile bodies' temporary files removed");
    await processesAreFine();
    // No partial version was stored, and the document still opens and saves.
    expect(readdirSync(path.join(gateData, "embed", "tmp"))).toEqual([]);
    const again = (await (await fetch(`http://127.0.0.1:${gate.port}/svc/embed/session/${s.session_id}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as any;
    expect(again.version).toBe(0);
    const put = await fetch(`${wopiSrc}/contents?access_token=${token}`, { method: "POST", headers: { "X-WOPI-Override": "PUT" }, body: DOCX });
    expect(put.status).toBe(200);
  });
});
