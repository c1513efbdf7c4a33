// The multipart intake writes the uploaded file exactly, whichever way it writes it: a body of a
// few megabytes in one call once it has arrived, a larger one or one of unknown length streamed to
// disk as it arrives. Real HTTP on loopback, so the body arrives in chunks as from a client.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readWorkRequest } from "./intake";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-intake-"));
let server: ReturnType<typeof Bun.serve>;
const seen: { size: number; bytes: Buffer; params: Record<string, unknown> }[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const intake = await readWorkRequest(req, dir, 100);
      const source = intake.source as { type: "upload"; path: string; size: number };
      seen.push({ size: source.size, bytes: readFileSync(source.path), params: intake.params });
      return new Response("ok");
    },
  });
});
afterAll(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

function bytesOf(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7919) & 255;
  return b;
}

async function upload(file: Buffer, chunked = false): Promise<(typeof seen)[number]> {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([Uint8Array.from(file)]), "report.docx");
  let body: BodyInit = fd;
  const headers: Record<string, string> = {};
  if (chunked) {
    // The same multipart body as a stream of unknown length (no Content-Length).
    const encoded = new Response(fd);
    headers["content-type"] = encoded.headers.get("content-type")!;
    const all = new Uint8Array(await encoded.arrayBuffer());
    body = new ReadableStream({
      start(c) {
        for (let at = 0; at < all.length; at += 64 * 1024) c.enqueue(all.subarray(at, at + 64 * 1024));
        c.close();
      },
    });
  }
  const before = seen.length;
  const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body, headers });
  expect(res.status).toBe(200);
  expect(seen.length).toBe(before + 1);
  return seen[seen.length - 1]!;
}

test("a small upload (written in one call once it has arrived) is stored byte for byte, with its size", async () => {
  const file = bytesOf(300_000);
  const got = await upload(file);
  expect(got.size).toBe(file.length);
  expect(got.bytes.equals(file)).toBe(true);
  expect(got.params.to).toBe("pdf");
});

test("an upload past 4 MiB (streamed to disk as it arrives) is stored byte for byte, with its size", async () => {
  const file = bytesOf(6 * 1024 * 1024 + 123);
  const got = await upload(file);
  expect(got.size).toBe(file.length);
  expect(got.bytes.equals(file)).toBe(true);
});

test("an upload of unknown length (no Content-Length) is streamed to disk and stored byte for byte", async () => {
  const file = bytesOf(200_000);
  const got = await upload(file, true);
  expect(got.size).toBe(file.length);
  expect(got.bytes.equals(file)).toBe(true);
});
