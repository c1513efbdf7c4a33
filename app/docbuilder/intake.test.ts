// The multipart intake writes the uploaded file exactly, whichever way it writes it: a body of a
// few megabytes in one call once it has arrived, a larger one or one of unknown length streamed to
// disk as it arrives. Real HTTP on loopback, so the body arrives in chunks as from a client.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServiceError } from "../errors";
import { readWorkRequest } from "./intake";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-intake-"));
let server: ReturnType<typeof Bun.serve>;
const seen: { size: number; bytes: Buffer; filename: string; params: Record<string, unknown> }[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      let intake;
      try {
        intake = await readWorkRequest(req, dir, Number(new URL(req.url).searchParams.get("max_mb") ?? 100));
      } catch (e) {
        if (!(e instanceof ServiceError)) throw e;
        return Response.json({ code: e.code, detail: e.detail }, { status: 400 });
      }
      const source = intake.source as { type: "upload"; path: string; size: number; filename: string };
      seen.push({ size: source.size, bytes: readFileSync(source.path), filename: source.filename, params: intake.params });
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

async function upload(file: Buffer, chunked = false, filename = "report.docx"): Promise<(typeof seen)[number]> {
  const fd = new FormData();
  fd.append("to", "pdf");
  fd.append("file", new Blob([Uint8Array.from(file)]), filename);
  const res = await post(fd, chunked);
  expect(res.status).toBe(200);
  return seen[seen.length - 1]!;
}

/** Posts a form as it is (Content-Length known) or as a stream of unknown length. */
async function post(fd: FormData, chunked: boolean, query = ""): Promise<Response> {
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
  const res = await fetch(`http://127.0.0.1:${server.port}/${query}`, { method: "POST", body, headers });
  if (res.status === 200) expect(seen.length).toBe(before + 1);
  return res;
}

async function refusal(fd: FormData, chunked: boolean, query = ""): Promise<{ code: string; detail: { errors?: { path: string }[] } }> {
  const res = await post(fd, chunked, query);
  expect(res.status).toBe(400);
  return res.json();
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

// A body of a few megabytes is parsed by Bun's own multipart parser, a larger one or one of unknown
// length by busboy as it streams: the same rules and the same file name either way.
for (const [way, chunked] of [["read whole", false], ["streamed", true]] as const) {
  test(`an upload's file name is read as UTF-8, as browsers send it (${way}): "Báo cáo tháng 1.docx" stays itself`, async () => {
    const got = await upload(bytesOf(1000), chunked, "Báo cáo tháng 1.docx");
    expect(got.filename).toBe("Báo cáo tháng 1.docx");
  });

  test(`one file part, named "file", within the size limit; fields of at most 64 kB (${way})`, async () => {
    const two = new FormData();
    two.append("file", new Blob([Uint8Array.from(bytesOf(10))]), "a.docx");
    two.append("file", new Blob([Uint8Array.from(bytesOf(10))]), "b.docx");
    expect((await refusal(two, chunked)).detail.errors?.[0]?.path).toBe("/file");

    const misnamed = new FormData();
    misnamed.append("document", new Blob([Uint8Array.from(bytesOf(10))]), "a.docx");
    expect((await refusal(misnamed, chunked)).detail.errors?.[0]?.path).toBe("/document");

    const long = new FormData();
    long.append("to", "x".repeat(64 * 1024 + 1));
    long.append("file", new Blob([Uint8Array.from(bytesOf(10))]), "a.docx");
    expect((await refusal(long, chunked)).detail.errors?.[0]?.path).toBe("/to");

    const big = new FormData();
    big.append("file", new Blob([Uint8Array.from(bytesOf(1024 * 1024 + 1))]), "a.docx");
    expect((await refusal(big, chunked, "?max_mb=1")).code).toBe("file_too_large");
  });

  test(`options arrive as JSON or one by one, and fields past the fiftieth are ignored (${way})`, async () => {
    const fd = new FormData();
    fd.append("options", JSON.stringify({ password: "p1" }));
    fd.append("options[sheet]", "2");
    for (let i = 0; i < 60; i++) fd.append(`f${i}`, String(i));
    fd.append("file", new Blob([Uint8Array.from(bytesOf(10))]), "a.docx");
    const res = await post(fd, chunked);
    expect(res.status).toBe(200);
    const got = seen[seen.length - 1]!;
    expect(got.params.options).toEqual({ password: "p1", sheet: "2" });
    expect(got.params.f47).toBe("47");
    expect(got.params.f48).toBeUndefined();
  });

  test(`a body that is not multipart at all is a 400 naming the body (${way})`, async () => {
    const headers = { "content-type": "multipart/form-data; boundary=xyz" };
    const body = chunked ? new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("garbage")), c.close()) }) : "garbage";
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body, headers });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("bad_request");
  });
}
