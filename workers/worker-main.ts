// Entry point of one office-engine worker process (see protocol.ts).
//
//   SVC_WORKER_PROFILE_DIR=/path/to/profile bun workers/worker-main.ts
//
// The parent spawns it with stdio [pipe, pipe, pipe, pipe]: requests arrive as JSON lines on
// stdin, replies and log records leave as JSON lines on file descriptor 3 only. stdout and
// stderr belong to LibreOffice (it prints there) and carry nothing of ours; the parent must
// drain or ignore them. Requests are served strictly one at a time: every engine call is
// synchronous and blocks the JS thread until LibreOffice returns.
//
// Exit: on stdin EOF and on SIGTERM/SIGINT the process exits with code 0 via process.exit,
// without LibreOffice's destroy() (which can hang). A signal that arrives while a job runs is
// handled when that job returns; a stuck job is the parent's to kill (SIGKILL). The worker dies
// with its parent, busy or not (workers/parent-death.ts).

import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Engine, EngineError } from "./engine";
import { sendLine } from "./reply";
import { confineEngineProcess } from "./confine";
import { dieWithParent } from "./parent-death";
import { copyWarmDocuments } from "./warm-documents";
import type { WorkerErrorCode, WorkerReply, WorkerRequest } from "./protocol";

/** Replies of the wire protocol, on fd 3. */
const send = (reply: WorkerReply): void => sendLine(reply);

type Level = "debug" | "info" | "warn" | "error";
const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];
/** The least level the service logs (its SVC_LOG_LEVEL, given by the pool): a line under it would be dropped there. */
const leastLevel = Math.max(0, LEVELS.indexOf(process.env.SVC_WORKER_LOG_LEVEL as Level));
const logs = (level: Level) => LEVELS.indexOf(level) >= leastLevel;

function log(level: Level, event: string, fields?: Record<string, unknown>): void {
  if (!logs(level)) return;
  send(fields ? { type: "log", level, event, fields } : { type: "log", level, event });
}

function fail(id: string, code: WorkerErrorCode, message: string): void {
  send({ type: "result", id, ok: false, error: { code, message } });
}

const OPS = new Set(["convert", "text", "meta", "pages", "thumbnail"]);

/** Checks the shape of a request; returns an error message or null. */
function invalid(r: Record<string, unknown>): string | null {
  if (typeof r.id !== "string" || r.id === "") return "id must be a non-empty string";
  if (typeof r.op !== "string" || !OPS.has(r.op)) return `unknown op ${JSON.stringify(r.op)}`;
  if (typeof r.input !== "string" || !r.input.startsWith("/")) return "input must be an absolute path";
  if (r.password !== undefined && typeof r.password !== "string") return "password must be a string";
  if (r.requestId !== undefined && typeof r.requestId !== "string") return "requestId must be a string";
  if (r.op === "convert" || r.op === "thumbnail") {
    if (typeof r.output !== "string" || !r.output.startsWith("/")) return "output must be an absolute path";
  }
  if (r.op === "convert" && (typeof r.to !== "string" || !/^[A-Za-z0-9]{1,8}$/.test(r.to))) return "to must be an extension";
  if (r.op === "thumbnail" && (typeof r.width !== "number" || !Number.isInteger(r.width) || r.width < 1 || r.width > 4096))
    return "width must be an integer between 1 and 4096";
  return null;
}

/** Serves one request line, then says the worker is free for the next. */
function serve(line: string, engine: Engine): void {
  if (line.trim() === "") return;
  const id = serveRequest(line, engine);
  // Free for the next request: the pool sends none before this (and ends a worker that never says it).
  send({ type: "closed", id });
}

/** Answers one request line; returns its id ("" when it has none). */
function serveRequest(line: string, engine: Engine): string {
  let req: Record<string, unknown>;
  try {
    const parsed = JSON.parse(line);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    req = parsed;
  } catch {
    log("warn", "request_malformed", { bytes: line.length });
    fail("", "internal", "malformed request line (not a JSON object)");
    return "";
  }
  const id = typeof req.id === "string" ? req.id : "";
  const bad = invalid(req);
  if (bad) {
    log("warn", "request_invalid", { job_id: id, request_id: req.requestId, reason: bad });
    fail(id, "internal", `invalid request: ${bad}`);
    return id;
  }
  const r = req as unknown as WorkerRequest;
  const t0 = performance.now();
  const fields: Record<string, unknown> = { job_id: id, request_id: r.requestId, op: r.op };
  if (r.op === "convert") fields.to = r.to;
  let answered = false;
  try {
    // The result leaves as soon as the output is written; the document is closed after it.
    engine.handle(r, (result) => {
      answered = true;
      fields.ms = Math.round(performance.now() - t0);
      fields.family = result.family;
      fields.pages = result.pages;
      send({ type: "result", id, ok: true, result });
    });
    if (logs("info")) {
      fields.close_ms = Math.round(performance.now() - t0 - (fields.ms as number));
      fields.rss_mb = Math.round(process.memoryUsage().rss / 1048576);
      log("info", "job_done", fields);
    }
  } catch (err) {
    const code: WorkerErrorCode = err instanceof EngineError ? err.code : "internal";
    const message = err instanceof EngineError ? err.message : `engine failure: ${(err as Error)?.message ?? String(err)}`;
    if (answered) {
      // The answer was complete; only closing the document failed.
      log("warn", "engine_close_failed", { ...fields, message });
    } else {
      fields.ms = Math.round(performance.now() - t0);
      fields.code = code;
      fail(id, code, message);
      log(code === "internal" ? "error" : "info", "job_failed", { ...fields, message });
    }
  }
  return id;
}

/**
 * Converts a document of each family to PDF before the worker says ready (workers/warm-documents.ts):
 * the first request after a start, and after every recycle, does not pay the engine's first loads
 * (hello.docx to PDF: 296 ms in a fresh engine, 37 after; xlsx 132 and 68; pptx 306 and 256).
 * A successor warms while its predecessor still serves (app/docbuilder/pool.ts).
 */
function warmUp(engine: Engine, copies: string[], dir: string): void {
  const t0 = performance.now();
  let converted = 0;
  for (const copy of copies) {
    try {
      engine.convert(copy, join(dir, "warm-out.pdf"), "pdf");
      converted++;
    } catch (err) {
      log("warn", "worker_warm_up_failed", { file: copy, message: String((err as Error)?.message ?? err) });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  log("info", "worker_warmed", { ms: Math.round(performance.now() - t0), converted });
}

function main(): void {
  dieWithParent();
  process.on("SIGTERM", () => process.exit(0));
  process.on("SIGINT", () => process.exit(0));
  process.on("uncaughtException", (err) => {
    try {
      log("error", "worker_uncaught", { message: String((err as Error)?.message ?? err) });
    } catch {
      // nothing else to do
    }
  });

  let profileDir = process.env.SVC_WORKER_PROFILE_DIR;
  if (!profileDir) {
    profileDir = join(tmpdir(), `svc-worker-profile-${process.pid}`);
    log("warn", "worker_profile_default", { profile_dir: profileDir });
  }
  mkdirSync(profileDir, { recursive: true });
  const warmDir = join(profileDir, "warm");
  rmSync(warmDir, { recursive: true, force: true });
  mkdirSync(warmDir);
  const warmCopies = copyWarmDocuments(warmDir);
  confineEngineProcess(profileDir, log);

  const engine = new Engine(log);
  try {
    engine.start(profileDir);
  } catch (err) {
    log("error", "worker_start_failed", { message: String((err as Error)?.message ?? err) });
    process.exit(1);
  }
  warmUp(engine, warmCopies, warmDir);
  send({ type: "ready", pid: process.pid, core: engine.core, startMs: engine.startMs });

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on("line", (line) => serve(line, engine));
  rl.on("close", () => process.exit(0));
}

main();
