// The worker process over its wire protocol (protocol.ts), as the pool drives it: spawned as a
// real child with stdio [pipe, pipe, pipe, pipe], requests on stdin, replies on fd 3.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { unzipSync } from "fflate";
import type { WorkerReply, WorkerRequest } from "./protocol";
import { scaled } from "../app/testing/until";

const CORPUS = "/work/shared/corpus";
const ENTRY = join(import.meta.dir, "worker-main.ts");
const T = scaled(60_000);

type Reply = WorkerReply & Record<string, any>;

/** One spawned worker: every fd-3 line is parsed (a non-JSON line fails the test). */
class Worker {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly replies: Reply[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  private waiters: { pred: (r: Reply) => boolean; resolve: (r: Reply) => void }[] = [];
  stdoutBytes = 0;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [ENTRY], { stdio: ["pipe", "pipe", "pipe", "pipe"], env: { ...env } });
    // LibreOffice's own output: drained and only counted, never parsed.
    this.child.stdout!.on("data", (d: Buffer) => (this.stdoutBytes += d.length));
    this.child.stderr!.resume();
    createInterface({ input: this.child.stdio[3] as Readable }).on("line", (line) => {
      this.lines.push(line);
      const msg = JSON.parse(line) as Reply;
      this.replies.push(msg);
      for (const w of [...this.waiters]) {
        if (w.pred(msg)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  next(pred: (r: Reply) => boolean): Promise<Reply> {
    const seen = this.replies.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  sendLine(line: string): void {
    (this.child.stdin as Writable).write(line + "\n");
  }

  async request(req: WorkerRequest): Promise<Reply> {
    this.sendLine(JSON.stringify(req));
    return this.next((r) => r.type === "result" && r.id === req.id);
  }
}

let root: string;
let w: Worker;
let ready: Reply;
let n = 0;

function job(src: string, name?: string): { dir: string; input: string } {
  const dir = join(root, `job-${++n}`);
  mkdirSync(dir);
  const input = join(dir, name ?? `input.${src.split(".").pop()}`);
  copyFileSync(join(CORPUS, src), input);
  return { dir, input };
}

const id = () => `job-${++n}`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "worker-test-"));
  // The jobs' files are in the test's folder: the worker may read there, as the pool lets it read its own (workers/confine.ts).
  w = new Worker({ SVC_WORKER_PROFILE_DIR: join(root, "profile", "not-yet-created"), SVC_ENGINE_READABLE: root });
  ready = await w.next((r) => r.type === "ready");
}, T);

afterAll(async () => {
  w?.child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("worker process", () => {
  test("ready reports pid, engine core and start time, and the profile dir is created", () => {
    expect(ready).toMatchObject({ type: "ready", pid: w.child.pid });
    expect(ready.core.name).toBe("LibreOffice");
    expect(ready.core.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(ready.core.source).toContain("/usr/lib/libreoffice/program");
    expect(ready.startMs).toBeGreaterThan(0);
    expect(existsSync(join(root, "profile", "not-yet-created", "user", "registrymodifications.xcu"))).toBe(true);
    console.log(`worker ready: engine start ${ready.startMs} ms, core ${JSON.stringify(ready.core)}`);
  });

  test("before it says ready, a worker converts a document of each family to PDF (its warm-up: the first request does not pay the engine's first loads), leaving no copy of them in its profile", () => {
    const events = w.replies.map((r) => (r.type === "log" ? r.event : r.type));
    expect(events.indexOf("worker_warmed")).toBeGreaterThan(-1);
    expect(events.indexOf("worker_warmed")).toBeLessThan(events.indexOf("ready"));
    expect(w.replies.find((r) => r.type === "log" && r.event === "worker_warmed")!.fields).toMatchObject({ converted: 3 });
    expect(events).not.toContain("worker_warm_up_failed");
    expect(existsSync(join(root, "profile", "not-yet-created", "warm"))).toBe(false);
  });

  test("a worker leaves out its log lines under the service's level (SVC_WORKER_LOG_LEVEL): at warn, no job_done, yet every result, closed and warning", async () => {
    const quiet = new Worker({ SVC_WORKER_PROFILE_DIR: join(root, "profile-quiet"), SVC_ENGINE_READABLE: root, SVC_WORKER_LOG_LEVEL: "warn" });
    try {
      await quiet.next((r) => r.type === "ready");
      const { dir, input } = job("docx/onlyoffice_sample.docx");
      const jobId = id();
      expect(await quiet.request({ id: jobId, op: "convert", input, output: join(dir, "out.pdf"), to: "pdf" })).toMatchObject({ ok: true });
      await quiet.next((r) => r.type === "closed" && r.id === jobId);
      const bad = id();
      quiet.sendLine(JSON.stringify({ id: bad, op: "convert", input: "relative/path", output: "/tmp/x.pdf", to: "pdf" }));
      await quiet.next((r) => r.type === "log" && r.event === "request_invalid");
      await quiet.next((r) => r.type === "closed" && r.id === bad);
      // (Without the setting a worker sends every level: its job_done is read in the test below.)
      expect(quiet.replies.filter((r) => r.type === "log" && (r.level === "info" || r.level === "debug"))).toEqual([]);
    } finally {
      quiet.child.kill("SIGKILL");
    }
  }, T);

  test("convert docx → pdf", async () => {
    const { dir, input } = job("docx/onlyoffice_sample.docx");
    const out = join(dir, "out.pdf");
    const r = await w.request({ id: id(), op: "convert", input, output: out, to: "pdf", requestId: "req-1" });
    expect(r).toMatchObject({ ok: true, result: { family: "text", pages: 1 } });
    expect(readFileSync(out).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  }, T);

  test("a result leaves as soon as its output is written: the document is closed after it, and then the worker says closed (and only then takes the next request)", async () => {
    const { dir, input } = job("docx/onlyoffice_sample.docx");
    const jobId = id();
    const result = await w.request({ id: jobId, op: "convert", input, output: join(dir, "out.pdf"), to: "pdf" });
    const closed = await w.next((r) => r.type === "closed" && r.id === jobId);
    const done = await w.next((r) => r.type === "log" && r.event === "job_done" && r.fields?.job_id === jobId);
    expect(w.replies.indexOf(result)).toBeLessThan(w.replies.indexOf(done));
    expect(w.replies.indexOf(done)).toBeLessThan(w.replies.indexOf(closed));
    // The close is measured apart from the answer's time.
    expect(done.fields).toMatchObject({ ms: expect.any(Number), close_ms: expect.any(Number) });
    // A request the worker refuses is followed by closed too: the pool waits for it after every result.
    const bad = id();
    w.sendLine(JSON.stringify({ id: bad, op: "convert", input: "relative/path", output: "/tmp/x.pdf", to: "pdf" }));
    await w.next((r) => r.type === "closed" && r.id === bad);
  }, T);

  test("convert xlsx → ods, pptx → pdf and csv → xlsx", async () => {
    const a = job("xlsx/tika_charts.xlsx");
    const r1 = await w.request({ id: id(), op: "convert", input: a.input, output: join(a.dir, "out.ods"), to: "ods" });
    expect(r1).toMatchObject({ ok: true, result: { family: "spreadsheet" } });
    expect(Object.keys(unzipSync(readFileSync(join(a.dir, "out.ods"))))).toContain("content.xml");

    const b = job("pptx/onlyoffice_sample.pptx");
    const r2 = await w.request({ id: id(), op: "convert", input: b.input, output: join(b.dir, "out.pdf"), to: "pdf" });
    expect(r2).toMatchObject({ ok: true, result: { family: "presentation", pages: 8 } });
    expect(readFileSync(join(b.dir, "out.pdf")).subarray(0, 5).toString("latin1")).toBe("%PDF-");

    const c = job("csv/sheetjs_attendance.csv");
    const r3 = await w.request({ id: id(), op: "convert", input: c.input, output: join(c.dir, "out.xlsx"), to: "xlsx" });
    expect(r3).toMatchObject({ ok: true, result: { family: "spreadsheet", pages: 1 } });
    const sheet = new TextDecoder().decode(unzipSync(readFileSync(join(c.dir, "out.xlsx")))["xl/sharedStrings.xml"]);
    expect(sheet).toContain("Tom Brooks");
  }, T);

  test("warm conversions of small docx, xlsx, pptx (timings logged, not asserted)", async () => {
    const out: string[] = [];
    for (const src of ["docx/pythondocx_tables.docx", "xlsx/tika_charts.xlsx", "pptx/pythonpptx_table_cell.pptx"]) {
      const ms: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { dir, input } = job(src);
        const t0 = performance.now();
        const r = await w.request({ id: id(), op: "convert", input, output: join(dir, "out.pdf"), to: "pdf" });
        ms.push(Math.round(performance.now() - t0));
        expect(r.ok).toBe(true);
      }
      out.push(`${src}: ${ms.join("/")} ms`);
    }
    const done = w.replies.filter((r) => r.type === "log" && r.event === "job_done");
    console.log(`round trips through the worker → pdf: ${out.join(", ")}; worker rss ${done.at(-1)?.fields?.rss_mb} MB`);
  }, T);

  test("text of a docx contains its words", async () => {
    const { input } = job("docx/onlyoffice_sample.docx");
    const r = await w.request({ id: id(), op: "text", input });
    expect(r).toMatchObject({ ok: true, result: { family: "text", pages: 1 } });
    expect(r.result.text).toContain("Welcome to ONLYOFFICE Online Editors");
    expect(r.result.text).toContain("HTML5");
  }, T);

  test("meta of a doc gives author, dates, pages and counts", async () => {
    const { input } = job("doc/jodconverter_multi_page.doc");
    const r = await w.request({ id: id(), op: "meta", input });
    expect(r).toMatchObject({ ok: true, result: { family: "text", author: "Mirko Nasato", created: "2008-07-12T19:03:00.000Z", modified: "2020-01-08T14:20:00.000Z", pages: 3 } });
    expect(r.result.words).toBeGreaterThan(0);
    expect(r.result.keywords).toEqual([]);
  }, T);

  test("thumbnail writes a PNG of the requested width", async () => {
    const { dir, input } = job("pptx/onlyoffice_sample.pptx");
    const out = join(dir, "thumb.png");
    const r = await w.request({ id: id(), op: "thumbnail", input, output: out, width: 320 });
    expect(r).toMatchObject({ ok: true, result: { family: "presentation", width: 320, height: 240, pages: 8 } });
    const png = readFileSync(out);
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(png.readUInt32BE(16)).toBe(320);
    expect(png.readUInt32BE(20)).toBe(240);
  }, T);

  test("password_required when no password is given, success with the right one", async () => {
    const a = job("docx/msoffcrypto_example_password.docx");
    const none = await w.request({ id: id(), op: "convert", input: a.input, output: join(a.dir, "out.pdf"), to: "pdf" });
    expect(none).toMatchObject({ ok: false, error: { code: "password_required" } });
    const wrong = await w.request({ id: id(), op: "convert", input: a.input, output: join(a.dir, "out.pdf"), to: "pdf", password: "nope" });
    expect(wrong).toMatchObject({ ok: false, error: { code: "password_required" } });
    const right = await w.request({ id: id(), op: "text", input: a.input, password: "Password1234_" });
    expect(right).toMatchObject({ ok: true, result: { family: "text" } });
    expect(right.result.text).toContain("Lorem ipsum");
    const b = job("xlsx/tika_protected_passtika.xlsx");
    const x = await w.request({ id: id(), op: "convert", input: b.input, output: join(b.dir, "out.pdf"), to: "pdf", password: "tika" });
    expect(x).toMatchObject({ ok: true, result: { family: "spreadsheet", pages: 3 } });
    // passwords never reach the log lines
    expect(w.lines.filter((l) => l.includes('"type":"log"')).some((l) => l.includes("Password1234_") || l.includes("tika\""))).toBe(false);
  }, T);

  test("corrupt_source for a truncated file and for an empty one", async () => {
    const a = job("docx/tika_truncated.docx");
    expect(await w.request({ id: id(), op: "convert", input: a.input, output: join(a.dir, "o.pdf"), to: "pdf" })).toMatchObject({ ok: false, error: { code: "corrupt_source" } });
    const b = job("odt/collabora_empty_0bytes.odt");
    expect(await w.request({ id: id(), op: "text", input: b.input })).toMatchObject({ ok: false, error: { code: "corrupt_source" } });
  }, T);

  test("unsupported_format for a target of another family", async () => {
    const { dir, input } = job("docx/pythondocx_tables.docx");
    const r = await w.request({ id: id(), op: "convert", input, output: join(dir, "out.xlsx"), to: "xlsx" });
    expect(r).toMatchObject({ ok: false, error: { code: "unsupported_format" } });
    expect(existsSync(join(dir, "out.xlsx"))).toBe(false);
  }, T);

  test("a malformed line gets an internal error and the worker keeps serving", async () => {
    w.sendLine("{this is not json");
    const bad = await w.next((r) => r.type === "result" && r.ok === false && r.id === "" && r.error.code === "internal");
    expect(bad.error.message).toContain("malformed");
    const missing = await w.request({ id: "no-input", op: "convert" } as unknown as WorkerRequest);
    expect(missing).toMatchObject({ ok: false, error: { code: "internal" } });
    const unknownOp = await w.request({ id: "bad-op", op: "explode", input: "/x" } as unknown as WorkerRequest);
    expect(unknownOp).toMatchObject({ ok: false, error: { code: "internal" } });
    const { dir, input } = job("odt/formatcorpus_lo7_odf13.odt");
    const ok = await w.request({ id: id(), op: "convert", input, output: join(dir, "out.pdf"), to: "pdf" });
    expect(ok).toMatchObject({ ok: true, result: { family: "text" } });
    expect(w.child.exitCode).toBeNull();
  }, T);

  test("fd 3 carries only JSON protocol lines; LibreOffice's output stays on stdout/stderr", () => {
    expect(w.lines.length).toBeGreaterThan(10);
    for (const r of w.replies) expect(["ready", "result", "closed", "log"]).toContain(r.type);
    const done = w.replies.filter((r) => r.type === "log" && r.event === "job_done");
    expect(done.length).toBeGreaterThan(5);
    expect(done[0]!.fields).toMatchObject({ job_id: expect.any(String), op: "convert", ms: expect.any(Number) });
    expect(w.replies.some((r) => r.type === "log" && r.fields?.request_id === "req-1")).toBe(true);
  });

  test("the worker exits with code 0 on stdin EOF", async () => {
    const { dir, input } = job("docx/pythondocx_tables.docx");
    const r = await w.request({ id: id(), op: "convert", input, output: join(dir, "out.pdf"), to: "pdf" });
    expect(r.ok).toBe(true);
    (w.child.stdin as Writable).end();
    expect(await w.exited).toEqual({ code: 0, signal: null });
  }, T);

  test("a second worker exits with code 0 on SIGTERM", async () => {
    const w2 = new Worker({ SVC_WORKER_PROFILE_DIR: join(root, "profile2"), SVC_ENGINE_READABLE: root });
    await w2.next((r) => r.type === "ready");
    w2.child.kill("SIGTERM");
    expect(await w2.exited).toEqual({ code: 0, signal: null });
  }, T);
});
