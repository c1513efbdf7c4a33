// One office-engine worker process: one LibreOfficeKit engine with its own profile, serving
// requests one at a time. Requests arrive as JSON lines on stdin; replies and log events leave as
// JSON lines on file descriptor 3, because LibreOffice writes to stdout and stderr itself.
// The process exits when stdin ends (the pool recycles it that way) or on SIGTERM.

import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { Engine, EngineError } from "./engine";
import type { WorkerReply, WorkerRequest } from "./protocol";

const REPLY_FD = 3;

function send(msg: WorkerReply) {
  writeSync(REPLY_FD, JSON.stringify(msg) + "\n");
}

const log = (level: "debug" | "info" | "warn" | "error", event: string, fields?: Record<string, unknown>) =>
  send({ type: "log", level, event, fields });

const profileDir = process.env.SVC_WORKER_PROFILE_DIR;
if (!profileDir) {
  console.error("SVC_WORKER_PROFILE_DIR is required");
  process.exit(2);
}

const engine = new Engine(log);
engine.start(profileDir);
send({ type: "ready", pid: process.pid, core: engine.core, startMs: engine.startMs });

process.on("SIGTERM", () => process.exit(0));

// Requests are handled strictly one after another: the engine is synchronous and single-threaded,
// and readline does not deliver the next line while this handler runs.
createInterface({ input: process.stdin, terminal: false })
  .on("line", (line) => {
    if (!line.trim()) return;
    let req: WorkerRequest;
    try {
      req = JSON.parse(line);
      if (typeof req !== "object" || req === null || typeof req.id !== "string") throw new Error("not a request object");
    } catch (e) {
      send({ type: "result", id: "", ok: false, error: { code: "internal", message: `malformed request: ${(e as Error).message}` } });
      return;
    }
    const started = performance.now();
    try {
      const result = engine.handle(req);
      send({ type: "result", id: req.id, ok: true, result });
      log("debug", "engine_done", { op: req.op, job_id: req.id, request_id: req.requestId, ms: Math.round(performance.now() - started) });
    } catch (e) {
      const code = e instanceof EngineError ? e.code : "internal";
      send({ type: "result", id: req.id, ok: false, error: { code, message: (e as Error).message } });
    }
  })
  // Exit at once: destroying the engine can hang, and nothing is left to save.
  .on("close", () => process.exit(0));
