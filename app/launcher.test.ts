// The start command's launcher brings up the whole set behind real Caddy and stops it cleanly.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ID_PATTERNS } from "./ids";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-launch-"));
const PROXY_PORT = 18_000 + Math.floor(Math.random() * 1000);
const APP_PORT = PROXY_PORT + 1000;
const EDSRV_PORT = PROXY_PORT + 2000;
const base = `http://127.0.0.1:${PROXY_PORT}`;
let proc: ReturnType<typeof Bun.spawn>;
let output = "";

beforeAll(async () => {
  proc = Bun.spawn([process.execPath, path.resolve(import.meta.dir, "launcher.ts")], {
    env: {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      SVC_PROXY_ADDRESS: `127.0.0.1:${PROXY_PORT}`,
      SVC_APP_LISTEN: `127.0.0.1:${APP_PORT}`,
      SVC_EDSRV_LISTEN: `127.0.0.1:${EDSRV_PORT}`,
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_LOG_LEVEL: "warn",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const until = Date.now() + 90_000;
  // Read up to the launcher's last line: the lines after "ready:" (the demo key) may come later.
  while (!output.includes("press Ctrl+C to stop") && Date.now() < until) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
  }
  reader.releaseLock();
}, 120_000);

afterAll(() => {
  proc?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

test("the start command serves DocBuilder through the proxy with a demo key", async () => {
  expect(output).toContain("ready:");
  const status = await fetch(`${base}/v1/status`);
  expect(status.status).toBe(200);
  expect(((await status.json()) as any).dev_mode).toBe(true);
  const key = readFileSync(path.join(dataDir, "demo-api-key"), "utf8").trim();
  expect(output).toContain(key);
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

test("SIGTERM stops the whole set", async () => {
  proc.kill("SIGTERM");
  const code = await proc.exited;
  expect(code).toBe(0);
  await expect(fetch(`${base}/v1/status`)).rejects.toThrow();
});
