// Reads the body of a DocBuilder work request: either multipart/form-data with a `file` part
// (a body of a few megabytes read whole and parsed by Bun's own multipart parser, its file written
// in one call; a larger one streamed through busboy straight to disk, the size limit enforced
// while it arrives, never sitting in memory) or JSON with a `url`. Returns the parameters untyped:
// the caller validates them against its own schema.

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

// The multipart rules' refusals, the same whichever parser read the body.
const fieldTooLong = (name: string) => badRequest(`Trường "${name}" quá dài.`, [{ path: `/${name}`, message: "too long" }]);
const unexpectedFilePart = (name: string) => badRequest(`Phần tệp phải có tên "file", không phải "${name}".`, [{ path: `/${name}`, message: "unexpected file part" }]);
const moreThanOneFile = () => badRequest("Chỉ gửi một tệp trong mỗi yêu cầu.", [{ path: "/file", message: "more than one file" }]);

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
  if (wholeBody) return readWholeMultipart(req, dir, maxFileMb);

  return new Promise<Intake>((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: { "content-type": req.headers.get("content-type")! },
        limits: { fileSize: maxBytes, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
        // A file's name as browsers and fetch send it: UTF-8 (busboy's default read it as Latin-1,
        // and "Báo cáo.docx" came back as "BÃ¡o cÃ¡o.docx").
        defParamCharset: "utf8",
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
      if (info.valueTruncated) fail(fieldTooLong(name));
      else setField(params, name, value, fail);
    });
    bb.on("file", (name, stream, info) => {
      if (name !== "file") {
        stream.resume();
        fail(unexpectedFilePart(name));
        return;
      }
      const filename = sanitizeName(info.filename ?? "");
      const target = path.join(dir, `source${uploadExtension(filename)}`);
      stream.on("limit", () => fail(tooLarge(maxFileMb)));
      fileWrite = writeStreamed(stream, target).then((size) => {
        source = { type: "upload", path: target, filename, size };
      });
      // Awaited at "close"; when the body ends early there is no close, and a rejection nobody
      // handles would end the process.
      fileWrite.catch(() => {});
    });
    bb.on("filesLimit", () => fail(moreThanOneFile()));
    const refuse = (e: unknown) =>
      reject(isClientGone(e) ? asClientGone(e) : (failed ?? badRequest(`Thân multipart không hợp lệ: ${(e as Error).message}.`, [{ path: "", message: "malformed multipart body" }])));
    bb.on("error", refuse);
    bb.on("close", async () => {
      try {
        await fileWrite;
      } catch (e) {
        fail(notReceived(e));
      }
      if (failed) reject(failed);
      else resolve({ source: source ?? urlSource(params), params });
    });

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
/** Fields past this many are ignored, as busboy's `fields` limit does for a streamed body. */
const MAX_FIELDS = 50;

/**
 * A multipart body of at most WHOLE_WRITE_BYTES: read whole (its size bounded by what it declared)
 * and parsed by Bun's native multipart parser, with the rules busboy applies to a streamed one
 * (one file part, named `file`, within the size limit; fields of at most 64 kB; 50 fields). Busboy
 * on the same bytes cost 0.06–0.08 ms more per request and its file part went through Node's stream
 * adapters (issue 47).
 */
async function readWholeMultipart(req: Request, dir: string, maxFileMb: number): Promise<Intake> {
  let body: ArrayBuffer;
  try {
    body = await req.arrayBuffer();
  } catch (err) {
    throw asClientGone(isClientGone(err) ? err : new ClientGoneError(err)); // a declared body that does not all come: its client went
  }
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
  } catch (e) {
    throw badRequest(`Thân multipart không hợp lệ: ${(e as Error).message}.`, [{ path: "", message: "malformed multipart body" }]);
  }
  const params: Record<string, unknown> = {};
  let file: { name: string; part: Blob } | null = null;
  let fields = 0;
  let failed: ServiceError | null = null;
  const fail = (e: ServiceError) => {
    failed ??= e;
  };
  for (const [name, value] of form) {
    if (typeof value === "string") {
      if (++fields > MAX_FIELDS) continue;
      if (Buffer.byteLength(value) > MAX_FIELD_BYTES) fail(fieldTooLong(name));
      else setField(params, name, value, fail);
    } else if (name !== "file") {
      fail(unexpectedFilePart(name));
    } else if (file) {
      fail(moreThanOneFile());
    } else {
      file = { name: value.name, part: value };
      if (value.size > maxFileMb * 1024 * 1024) fail(tooLarge(maxFileMb));
    }
  }
  if (failed) throw failed;
  if (!file) return { source: urlSource(params), params };
  const filename = sanitizeName(file.name);
  const target = path.join(dir, `source${uploadExtension(filename)}`);
  const bytes = Buffer.from(await file.part.arrayBuffer());
  try {
    // Synchronous: for a body of at most WHOLE_WRITE_BYTES, a write on the event loop costs less
    // than a hop to the I/O threads and back.
    writeFileSync(target, bytes);
  } catch (e) {
    throw notReceived(e);
  }
  return { source: { type: "upload", path: target, filename, size: bytes.length, bytes }, params };
}

/** The extension an upload is saved under: its name's, letters and digits only. */
function uploadExtension(filename: string): string {
  return path.extname(filename).toLowerCase().replace(/[^.a-z0-9]/g, "");
}

/** A multipart request without a file may name a `url` field instead. */
function urlSource(params: Record<string, unknown>): Source | null {
  return typeof params.url === "string" ? { type: "url", url: params.url } : null;
}

/** An upload that could not be written: the disk's own error (full, read-only) or a 400. */
function notReceived(e: unknown): ServiceError {
  const disk = diskProblem(e);
  return disk ? diskServiceError(disk) : badRequest(`Không nhận được tệp tải lên: ${(e as Error).message}.`, [{ path: "/file", message: "upload not received" }]);
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
