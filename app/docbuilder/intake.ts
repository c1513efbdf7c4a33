// Reads the body of a DocBuilder work request: either multipart/form-data with a `file` part
// (the size limit enforced while it arrives; a large upload streams straight to disk and never
// sits in memory, a body of a few megabytes is written in one call) or JSON with a `url`. Returns
// the parameters untyped: the caller validates them against its own schema.

import Busboy from "busboy";
import { createWriteStream, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ServiceError } from "../errors";
import { ClientGoneError, asClientGone, isClientGone, readTextBounded } from "../request-body";
import { diskProblem, diskServiceError } from "../disk-errors";

export type Source =
  /** `bytes`: the file as it arrived, when it was read whole (a small body): what checks it need not read it again. */
  | { type: "upload"; path: string; filename: string; size: number; bytes?: Buffer }
  | { type: "url"; url: string };

export interface Intake {
  source: Source | null;
  params: Record<string, unknown>;
}

const MAX_JSON_BYTES = 1024 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;

export function tooLarge(limitMb: number): ServiceError {
  return new ServiceError("file_too_large", `Tệp vượt quá ${limitMb} MB cho phép: hãy gửi tệp nhỏ hơn.`, { limit_mb: limitMb });
}

/** bad_request always names what is wrong in detail.errors (the spec: `[{path, message}]`; path "" is the body as a whole). */
function badRequest(message: string, errors: { path: string; message: string }[]): ServiceError {
  return new ServiceError("bad_request", message, { errors });
}

/** Saves an uploaded file under `dir` as `source<.ext>`; the original name is kept only as metadata. */
export async function readWorkRequest(req: Request, dir: string, maxFileMb: number): Promise<Intake> {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) return readMultipart(req, dir, maxFileMb);
  if (type.startsWith("application/json") || type === "") return readJson(req);
  throw badRequest(`Content-Type "${type.split(";")[0]}" không được hỗ trợ: hãy gửi multipart/form-data với phần file, hoặc application/json với url.`, [{ path: "", message: "Content-Type must be multipart/form-data or application/json" }]);
}

async function readJson(req: Request): Promise<Intake> {
  const text = await readTextBounded(req.body, MAX_JSON_BYTES, () =>
    badRequest("Thân JSON quá lớn (tối đa 1 MB): hãy gửi tệp qua multipart thay vì nhúng nội dung.", [{ path: "", message: "JSON body over 1 MB" }]),
  );
  if (text.trim() === "") return { source: null, params: {} };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw badRequest(`JSON không hợp lệ: ${(e as Error).message}.`, [{ path: "", message: "malformed JSON" }]);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest("Thân yêu cầu phải là một đối tượng JSON.", [{ path: "", message: "expected object" }]);
  }
  const params = body as Record<string, unknown>;
  const url = params.url;
  return { source: typeof url === "string" ? { type: "url", url } : null, params };
}

function readMultipart(req: Request, dir: string, maxFileMb: number): Promise<Intake> {
  const maxBytes = maxFileMb * 1024 * 1024;
  const declared = Number(req.headers.get("content-length") ?? "0");
  const wholeBody = declared > 0 && declared <= WHOLE_WRITE_BYTES;
  // A body much larger than the limit cannot hold a file within it: refuse before reading.
  if (declared > maxBytes + 1024 * 1024) return Promise.reject(tooLarge(maxFileMb));
  if (!req.body) return Promise.reject(badRequest("Thiếu thân yêu cầu multipart.", [{ path: "", message: "missing multipart body" }]));

  return new Promise<Intake>((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: { "content-type": req.headers.get("content-type")! },
        limits: { fileSize: maxBytes, files: 1, fields: 50, fieldSize: MAX_FIELD_BYTES },
      });
    } catch (e) {
      reject(badRequest(`Thân multipart không hợp lệ: ${(e as Error).message}.`, [{ path: "", message: "malformed multipart body" }]));
      return;
    }
    const params: Record<string, unknown> = {};
    let source: Source | null = null;
    let fileWrite: Promise<void> | null = null;
    let failed: ServiceError | null = null;
    const fail = (e: ServiceError) => {
      failed ??= e;
    };

    bb.on("field", (name, value, info) => {
      if (info.valueTruncated) fail(badRequest(`Trường "${name}" quá dài.`, [{ path: `/${name}`, message: "too long" }]));
      else setField(params, name, value, fail);
    });
    bb.on("file", (name, stream, info) => {
      if (name !== "file") {
        stream.resume();
        fail(badRequest(`Phần tệp phải có tên "file", không phải "${name}".`, [{ path: `/${name}`, message: "unexpected file part" }]));
        return;
      }
      const filename = sanitizeName(info.filename ?? "");
      const ext = path.extname(filename).toLowerCase().replace(/[^.a-z0-9]/g, "");
      const target = path.join(dir, `source${ext}`);
      stream.on("limit", () => fail(tooLarge(maxFileMb)));
      const written = wholeBody ? writeWhole(stream, target) : writeStreamed(stream, target).then((size) => ({ size, bytes: undefined }));
      fileWrite = written.then(({ size, bytes }) => {
        source = { type: "upload", path: target, filename, size, bytes };
      });
      // Awaited at "close"; when the body ends early there is no close, and a rejection nobody
      // handles would end the process.
      fileWrite.catch(() => {});
    });
    bb.on("filesLimit", () => fail(badRequest("Chỉ gửi một tệp trong mỗi yêu cầu.", [{ path: "/file", message: "more than one file" }])));
    const refuse = (e: unknown) =>
      reject(isClientGone(e) ? asClientGone(e) : (failed ?? badRequest(`Thân multipart không hợp lệ: ${(e as Error).message}.`, [{ path: "", message: "malformed multipart body" }])));
    bb.on("error", refuse);
    bb.on("close", async () => {
      try {
        await fileWrite;
      } catch (e) {
        const disk = diskProblem(e);
        fail(disk ? diskServiceError(disk) : badRequest(`Không nhận được tệp tải lên: ${(e as Error).message}.`, [{ path: "/file", message: "upload not received" }]));
      }
      if (failed) reject(failed);
      else resolve({ source: source ?? (typeof params.url === "string" ? { type: "url", url: params.url } : null), params });
    });

    if (wholeBody) {
      // A small body is read whole, natively, and parsed in one call: through Node's stream
      // adapters a 30 kB upload took 0.5–1 ms more. Its size is bounded by what it declared.
      req.arrayBuffer().then(
        (body) => bb.end(Buffer.from(body)),
        (err: unknown) => refuse(isClientGone(err) ? err : new ClientGoneError(err)), // a declared body that does not all come: its client went
      );
      return;
    }
    // pipeline, not pipe: a body that ends early (the client closed the connection) is an error of
    // the source stream, and only pipeline hands it on; with pipe it had no listener and ended the process.
    pipeline(Readable.fromWeb(req.body as unknown as import("node:stream/web").ReadableStream), bb).catch(refuse);
  });
}

/**
 * Uploads whose whole body is at most this size (by its Content-Length) are read whole, parsed in
 * one call and their file written in one call: Node's stream adapters and a write stream's open,
 * writes and close cost about 1 ms more, 1–2 % of a small document's conversion (bench:corpus,
 * issue 24); larger bodies and bodies of unknown length stream to disk as they arrive.
 */
const WHOLE_WRITE_BYTES = 4 * 1024 * 1024;

/** Writes a file part to `target` once it has all arrived; resolves to its size and bytes. */
async function writeWhole(stream: Readable, target: string): Promise<{ size: number; bytes: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  // Synchronous: for a body of at most WHOLE_WRITE_BYTES, a write on the event loop costs less
  // than a hop to the I/O threads and back.
  writeFileSync(target, bytes);
  return { size: bytes.length, bytes };
}

/** Streams a file part to `target` as it arrives; resolves to its size. */
async function writeStreamed(stream: Readable, target: string): Promise<number> {
  let size = 0;
  stream.on("data", (chunk: Buffer) => (size += chunk.length));
  await pipeline(stream, createWriteStream(target));
  return size;
}

/** Multipart fields: `options` may be a JSON object; `options.password` / `options[password]` nest. */
function setField(params: Record<string, unknown>, name: string, value: string, fail: (e: ServiceError) => void) {
  if (name === "options") {
    try {
      const parsed = JSON.parse(value);
      params.options = { ...(params.options as object), ...parsed };
    } catch {
      fail(badRequest('Trường "options" phải là JSON hợp lệ, ví dụ {"password":"..."}.', [{ path: "/options", message: "malformed JSON" }]));
    }
    return;
  }
  const nested = /^options(?:\.|\[)([A-Za-z_]+)\]?$/.exec(name);
  if (nested) {
    params.options = { ...(params.options as object), [nested[1]!]: value };
    return;
  }
  params[name] = value;
}

/** Keeps a display name safe for Content-Disposition and logs: no paths, no control characters. */
export function sanitizeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, "").trim().slice(0, 200);
  return clean || "document";
}
