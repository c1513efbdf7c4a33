// The pool of office-engine worker processes. Each worker hosts one LibreOfficeKit engine with its
// own profile and runs one request at a time. Work waits in memory, one queue per caller served
// round-robin (fair-queue.ts); the pool hands the next request to the first idle worker, as long
// as fewer jobs than the edition's
// `parallel_jobs` run (spec "DocBuilder limits": 1 on community, the worker count on enterprise).
// That limit is asked at every dispatch, never kept: the license file is re-read at run time.
//
// A job may send several requests (a build converting to two formats). It holds one parallel slot
// from its first request's dispatch until release(job): its next request goes ahead of jobs that
// have not started, and no other job slips in between its steps.
//
// A worker is replaced after maxJobs requests, after maxAge, after a timeout (it is killed: a
// stuck load cannot be cancelled inside the engine), after a crash, and when its resident memory
// passes memoryLimitBytes (it is killed; its request gets corrupt_source, reason engine_memory:
// app/engine-memory.ts). A crash fails only the request that worker was running; every
// replacement counts in `restarts`. The planned replacements (maxJobs, maxAge) start their
// successor ahead, in a profile of its own, so that no request waits for an engine's start
// (issue 47: a request every 200 waited 0.7 s for the old engine's exit and the new one's start).

import { execa, type ResultPromise } from "execa";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { ServiceError } from "../errors";
import type { Logger } from "../log";
import type { CoreInfo, WorkerReply, WorkerRequest } from "../../workers/protocol";
import { engineReadableEnv } from "../../workers/confine";
import { MEMORY_CHECK_MS, MIB, engineMemoryError, residentBytes } from "../engine-memory";
import { engineSource } from "../../workers/engine-identity";
import { childEnvironment } from "../child-env";
import { stopEngine } from "../engine-stop";
import { FairQueue } from "./fair-queue";
import { handIn, handOut, type Handed } from "./worker-folder";
import type { PoolOptions, RunOptions } from "./pool-options";

export type { PoolOptions, RunOptions };

type Resolver = { resolve: (r: unknown) => void; reject: (e: Error) => void };

interface Task extends Resolver {
  request: WorkerRequest;
  options: RunOptions;
  queuedAt: number;
  /** Set while it waits for a worker with a startBy. */
  startByTimer?: Timer;
  /** The parallel slot it runs under: its job, or a key of its own. */
  slot: string;
  /** The slot is the request's own, freed when it settles. */
  ownSlot: boolean;
  /** Whose queue it waits in. */
  caller: string;
}

/**
 * "closing": its request is answered and it closes the document (workers/worker-main.ts answers
 * before LibreOffice's close); it takes the next request once it says `closed`. "standby": a
 * successor that is ready and waits for its predecessor to retire (prepareSuccessor).
 */
type WorkerState = "starting" | "idle" | "busy" | "closing" | "stopping" | "standby";

interface Worker {
  slot: number;
  process: ResultPromise;
  pid: number | undefined;
  state: WorkerState;
  jobs: number;
  startedAt: number;
  task?: Task;
  runTimer?: Timer;
  /** Its engine's profile, one of its slot's (profileDirFor): a successor's differs from its predecessor's. */
  profileDir: string;
  /** Its successor exited before taking its place: it is replaced when it retires, as without one. */
  successorFailed?: boolean;
  /** Set when we killed it on purpose, so its exit is not counted as a crash. */
  retiring?: "recycle" | "timeout" | "shutdown" | "memory";
  /** While closing: ends a worker whose close never finishes. */
  closeTimer?: Timer;
  requests: Writable;
  /**
   * The worker's own folder (an unguessable name): besides its profile and the system's, all it
   * may read. A request's input is handed in there and its output written there, then moved out.
   */
  documentDir: string;
  /** The request under way in documentDir (worker-folder.ts). */
  handed?: Handed;
  everReady: boolean;
  /** Resolves when the process has exited (its pipes may outlive it; we do not wait for them). */
  exited: Promise<void>;
}

/**
 * How far ahead of a planned recycle the successor starts: in the last quarter of maxJobs (an
 * engine starts in 0.3–0.7 s, which a run of small files can take as few as 20 requests to
 * spend), and a minute before maxAge (capped to a quarter of it). Until then, a slot has one engine.
 */
const SUCCESSOR_LEAD_JOBS = 0.25;
const SUCCESSOR_LEAD_MS = 60_000;

/** Wait before starting again a slot whose worker could not start. */
const START_RETRY_MS = 5000;

/** How soon requests held back only by parallel_jobs look again whether the limit rose. */
const LIMIT_RECHECK_MS = 1000;

const WORKER_ENTRY = path.resolve(import.meta.dir, "../../workers/worker-main.ts");

export class WorkerPool {
  /** The worker serving each slot (starting, idle, busy, closing, or stopping until replaced). */
  private readonly workers = new Map<number, Worker>();
  /** A slot's next worker, started ahead of its planned recycle (prepareSuccessor). */
  private readonly successors = new Map<number, Worker>();
  /** Every worker process that has not exited: serving, successors, and retired ones still exiting. */
  private readonly live = new Set<Worker>();
  private readonly queue = new FairQueue<Task>();
  /** Jobs holding a parallel slot: started and not yet released. */
  private readonly running = new Set<string>();
  private ownSlots = 0;
  /** Set while a request waits only for the parallel limit, which may rise without any event. */
  private limitTimer?: Timer;
  private restarts = 0;
  private coreInfo: CoreInfo | null = null;
  private closing = false;
  private ageTimer?: Timer;
  private memoryTimer?: Timer;
  /** Slots whose last worker exited before it was ready. */
  private readonly failedSlots = new Set<number>();
  private readonly log: Logger;

  constructor(private readonly opts: PoolOptions) {
    this.log = opts.logger.child({ component: "pool" });
  }

  /** Starts every worker and resolves once all are warm (ready), so the first request pays no start-up. */
  async start(): Promise<void> {
    mkdirSync(this.opts.profileRoot, { recursive: true });
    const ready = [];
    for (let slot = 0; slot < this.opts.size; slot++) ready.push(this.spawn(slot));
    const results = await Promise.allSettled(ready);
    const failed = results.filter((r) => r.status === "rejected").length;
    for (const r of results) if (r.status === "rejected") this.log.error("worker_start_failed", { error: r.reason });
    if (failed === this.opts.size) throw new Error("no office-engine worker could start");
    this.log.info("pool_started", { workers: this.opts.size - failed, failed });
    // An idle worker past its age is recycled too, not only after its next request.
    this.ageTimer = setInterval(() => {
      for (const w of this.workers.values()) {
        this.maybeRecycle(w);
        this.prepareSuccessor(w);
      }
    }, Math.min(30_000, this.opts.maxAgeMs)).unref();
    if (this.opts.memoryLimitBytes) this.memoryTimer = setInterval(() => this.checkMemory(), this.opts.memoryCheckMs ?? MEMORY_CHECK_MS).unref();
  }

  /** Queues a request and resolves with the worker's result; rejects with a ServiceError. */
  run<T>(request: WorkerRequest, options: RunOptions): Promise<T> {
    if (this.closing) return Promise.reject(new ServiceError("pool_unavailable", "Dịch vụ đang dừng: hãy thử lại sau."));
    if (this.liveCount() === 0) return Promise.reject(new ServiceError("pool_unavailable"));
    return new Promise<T>((resolve, reject) => {
      const ownSlot = options.job === undefined;
      const slot = options.job ?? `request:${++this.ownSlots}`;
      const task: Task = { request, options, queuedAt: this.opts.clock.now(), resolve: resolve as (r: unknown) => void, reject, slot, ownSlot, caller: options.caller ?? "" };
      if (options.startBy !== undefined && !this.running.has(slot)) {
        task.startByTimer = setTimeout(() => this.onStartBy(task), Math.max(0, options.startBy - this.opts.clock.now()));
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  status() {
    let idle = 0;
    let busy = 0;
    for (const w of this.workers.values()) {
      if (w.state === "idle") idle++;
      else if (w.state === "busy" || w.state === "closing") busy++;
    }
    return { total: this.opts.size, idle, busy, restarts: this.restarts };
  }

  /**
   * Jobs waiting for a slot and jobs running (spec: GET /v1/status `queue`, GET /v1/limits
   * `usage`). A running job's next request waiting for a worker is not a queued job.
   */
  queueStats() {
    const waiting = new Set(this.queue.items().filter((t) => !this.running.has(t.slot)).map((t) => t.slot));
    return { queued: waiting.size, running: this.running.size };
  }

  /** The job is over: its parallel slot goes to the next job waiting. */
  release(job: string): void {
    if (this.running.delete(job)) this.dispatch();
  }

  core(): CoreInfo | null {
    return this.coreInfo;
  }

  /** Process ids of live workers, by slot: for status pages, tests and benchmarks. */
  pids(): number[] {
    return [...this.workers.values()].map((w) => w.pid).filter((p): p is number => p !== undefined);
  }

  /** Process ids of workers running a request right now. */
  busyPids(): number[] {
    return [...this.workers.values()].filter((w) => w.state === "busy").map((w) => w.pid).filter((p): p is number => p !== undefined);
  }

  /**
   * Stops taking work, lets running requests finish within graceMs, fails what is still queued
   * or running after that, and stops every worker (SIGTERM, then SIGKILL after
   * ENGINE_STOP_GRACE_MS); resolves once every worker process has exited.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    clearInterval(this.ageTimer);
    clearInterval(this.memoryTimer);
    clearTimeout(this.limitTimer);
    for (const task of this.queue.drain()) this.fail(task, new ServiceError("pool_unavailable", "Dịch vụ đang dừng: yêu cầu chưa được xử lý."));
    const until = Date.now() + graceMs;
    while (this.status().busy > 0 && Date.now() < until) await Bun.sleep(50);
    this.successors.clear();
    const exits = [...this.live].map((w) => {
      w.retiring = "shutdown";
      if (w.task) this.fail(w.task, new ServiceError("pool_unavailable", "Dịch vụ đang dừng: yêu cầu bị hủy."));
      w.task = undefined;
      w.requests.end();
      // A busy worker does not run its SIGTERM handler: SIGKILL follows (app/engine-stop.ts).
      return stopEngine((signal) => w.process.kill(signal), w.exited);
    });
    await Promise.all(exits);
    this.log.info("pool_stopped");
  }

  // ---------------------------------------------------------------------------------------------

  /** Workers that serve or will serve soon: a starting worker counts unless its slot failed to start. */
  private liveCount() {
    let n = 0;
    // A stopping worker (recycled or timed out) counts: its replacement starts as soon as it exits.
    for (const w of this.workers.values()) if (!(w.state === "starting" && this.failedSlots.has(w.slot))) n++;
    return n;
  }

  /**
   * A profile of the slot that no live worker uses (two engines cannot share one): `worker-N` first,
   * then `worker-N-1`, which a successor or a replacement takes while its predecessor still runs or exits.
   */
  private profileDirFor(slot: number): string {
    const used = new Set([...this.live].map((w) => w.profileDir));
    for (let i = 0; ; i++) {
      const dir = path.join(this.opts.profileRoot, i === 0 ? `worker-${slot}` : `worker-${slot}-${i}`);
      if (!used.has(dir)) return dir;
    }
  }

  /** Starts a worker for `slot`: serving it, or as its successor (standby once ready). */
  private spawn(slot: number, successor = false): Promise<void> {
    const profileDir = this.profileDirFor(slot);
    mkdirSync(profileDir, { recursive: true });
    // Unguessable, so that no name in a document can point at another request's files.
    const documentDir = path.join(this.opts.documentRoot ?? this.opts.profileRoot, `worker-${process.pid}-${randomBytes(16).toString("hex")}`);
    mkdirSync(documentDir, { recursive: true, mode: 0o700 });
    const command = this.opts.workerCommand ?? [process.execPath, WORKER_ENTRY];
    const child = execa(command[0]!, command.slice(1), {
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      // Its own settings only, never the service's secrets (app/child-env.ts).
      env: childEnvironment(process.env, { home: profileDir, own: { SVC_WORKER_PROFILE_DIR: profileDir, SVC_WORKER_SLOT: String(slot), SVC_WORKER_LOG_LEVEL: this.opts.logLevel ?? "debug", SVC_ENGINE_PROGRAM_DIR: this.opts.programDir, ...engineReadableEnv([documentDir]) } }),
      extendEnv: false,
      // Inside its profile: what LibreOffice writes to its working directory (NSS's pkcs11.txt) stays there.
      cwd: profileDir,
      reject: false,
      buffer: false,
      cleanup: true,
    });
    let markExited!: () => void;
    const worker: Worker = {
      slot,
      process: child,
      pid: child.pid,
      state: "starting",
      jobs: 0,
      startedAt: this.opts.clock.now(),
      profileDir,
      requests: child.stdin!,
      documentDir,
      everReady: false,
      exited: new Promise<void>((r) => (markExited = r)),
    };
    this.live.add(worker);
    (successor ? this.successors : this.workers).set(slot, worker);
    const wlog = this.log.child({ worker: slot, pid: child.pid });

    // The engine's own chatter: useful when debugging a crash, never content we produce.
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream as Readable }).on("line", (line) => {
        if (line.trim()) wlog.debug("engine_output", { line: line.slice(0, 300) });
      });
    }

    return new Promise<void>((resolve, reject) => {
      const startTimer = setTimeout(() => {
        if (worker.everReady) return;
        wlog.error("worker_start_timeout");
        child.kill("SIGKILL");
      }, this.opts.startTimeoutMs ?? 60_000);

      const replies = createInterface({ input: child.stdio[3] as Readable });
      replies.on("line", (line) => {
        let msg: WorkerReply;
        try {
          msg = JSON.parse(line);
        } catch {
          wlog.warn("worker_bad_reply", { length: line.length });
          return;
        }
        if (msg.type === "ready") {
          clearTimeout(startTimer);
          // The engine names its folder; which Debian package that is, only this process may read.
          this.coreInfo = { ...msg.core, source: engineSource(msg.core.source) };
          // A successor waits for its predecessor to retire (replace), unless that happened meanwhile.
          const serving = this.workers.get(slot) === worker;
          worker.state = serving ? "idle" : "standby";
          worker.everReady = true;
          if (serving) this.failedSlots.delete(slot);
          wlog.info("worker_ready", { start_ms: msg.startMs, successor: !serving });
          resolve();
          this.dispatch();
        } else if (msg.type === "log") {
          wlog[msg.level](msg.event, msg.fields);
        } else if (msg.type === "result") {
          this.onResult(worker, msg);
        } else if (msg.type === "closed") {
          this.onClosed(worker);
        }
      });

      child.stdin!.on("error", () => {}); // a dead worker's closed pipe is handled by the exit path

      // The exit event, not execa's promise: the promise also waits for every pipe to close.
      // nodeChildProcess is the ChildProcess itself under Bun and a promise of it in some execa
      // versions; resolving it covers both.
      void Promise.resolve(child.nodeChildProcess).then((cp) => cp.once("exit", (code, signal) => {
        clearTimeout(startTimer);
        replies.close();
        this.onExit(worker, code ?? undefined, signal ?? undefined);
        markExited();
        if (!worker.everReady) reject(new Error(`worker ${slot} exited before ready`));
      }));
      child.catch(() => {}); // outcome handled by the exit event
    });
  }

  private dispatch() {
    clearTimeout(this.limitTimer);
    this.limitTimer = undefined;
    let limited = false;
    while (this.queue.length > 0) {
      const worker = [...this.workers.values()].find((w) => w.state === "idle");
      if (!worker) return;
      // A running job's next request goes first; a new job needs a free slot, read now (the
      // edition, hence parallel_jobs, can change between two dispatches), and callers take turns.
      const task = this.queue.take((t) => this.running.has(t.slot)) ?? (this.running.size < this.parallelLimit() ? this.queue.take(() => true) : undefined);
      if (!task) {
        limited = true;
        break;
      }
      this.running.add(task.slot);
      worker.state = "busy";
      worker.task = task;
      worker.jobs++;
      const now = this.opts.clock.now();
      clearTimeout(task.startByTimer);
      // Its own running time starts now, whatever it waited.
      worker.runTimer = setTimeout(() => this.onRunTimeout(worker), Math.max(0, task.options.runTimeoutMs));
      task.options.onStart?.();
      this.log.debug("job_dispatched", { worker: worker.slot, job_id: task.request.id, request_id: task.request.requestId, queued_ms: now - task.queuedAt, running: this.running.size });
      const { request, handed } = handIn(worker.documentDir, task.request);
      worker.handed = handed;
      worker.requests.write(JSON.stringify(request) + "\n");
    }
    // Held back by the limit alone while a worker is idle: a license change raises the limit
    // without any event of the pool, so look again shortly.
    if (limited && !this.closing) this.limitTimer = setTimeout(() => this.dispatch(), LIMIT_RECHECK_MS).unref();
  }

  private parallelLimit(): number {
    const n = this.opts.parallelJobs?.() ?? this.opts.size;
    return Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
  }

  private onResult(worker: Worker, msg: Extract<WorkerReply, { type: "result" }>) {
    const task = worker.task;
    if (!task || task.request.id !== msg.id) return; // a late reply for a request already timed out
    clearTimeout(worker.runTimer);
    worker.task = undefined;
    const handed = worker.handed;
    worker.handed = undefined;
    try {
      if (handed) handOut(handed, msg.ok);
    } catch (err) {
      this.log.error("job_output_move_failed", { worker: worker.slot, job_id: msg.id, error: err as Error });
      this.fail(task, new ServiceError("internal", "Không chuyển được tệp kết quả ra khỏi thư mục xử lý: hãy thử lại."));
      worker.state = "closing";
      worker.closeTimer = setTimeout(() => this.onCloseTimeout(worker), this.opts.closeTimeoutMs ?? task.options.runTimeoutMs);
      return;
    }
    if (msg.ok) this.settle(task, () => task.resolve(msg.result));
    else {
      this.log.info("job_engine_error", { worker: worker.slot, job_id: msg.id, code: msg.error.code, message: msg.error.message });
      this.fail(task, new ServiceError(msg.error.code));
    }
    worker.state = "closing";
    worker.closeTimer = setTimeout(() => this.onCloseTimeout(worker), this.opts.closeTimeoutMs ?? task.options.runTimeoutMs);
  }

  /** The worker closed the document of its last request: free for the next. */
  private onClosed(worker: Worker) {
    if (worker.state !== "closing") return;
    clearTimeout(worker.closeTimer);
    worker.state = "idle";
    this.maybeRecycle(worker);
    this.prepareSuccessor(worker);
    this.dispatch();
  }

  /** A close that never ends (LibreOffice's teardown can hang): the worker goes, no request fails. */
  private onCloseTimeout(worker: Worker) {
    if (worker.state !== "closing") return;
    worker.retiring = "timeout";
    worker.state = "stopping";
    this.log.warn("worker_close_timeout", { worker: worker.slot });
    worker.process.kill("SIGKILL");
  }

  private maybeRecycle(worker: Worker) {
    const tooMany = worker.jobs >= this.opts.maxJobs;
    const tooOld = this.opts.clock.now() - worker.startedAt >= this.opts.maxAgeMs;
    if (this.closing || worker.state !== "idle" || (!tooMany && !tooOld)) return;
    this.log.info("worker_recycle", { worker: worker.slot, reason: tooMany ? "max_jobs" : "max_age", jobs: worker.jobs });
    worker.retiring = "recycle";
    worker.state = "stopping";
    worker.requests.end(); // the worker exits on end of input
    setTimeout(() => worker.process.kill("SIGKILL"), 5000).unref();
    // Its successor takes the slot now, or a new worker starts now, in a profile of its own,
    // while this one closes its engine (0.1–0.3 s that no request need wait for).
    this.workers.delete(worker.slot);
    this.replace(worker.slot);
  }

  /**
   * Starts the worker that will take this one's place when it is recycled for its jobs or its age,
   * ahead of time (SUCCESSOR_LEAD_*): ready by then, it takes the slot at once, where a replacement
   * started at the recycle kept requests waiting for an engine's start. It takes no request before
   * (it waits in `successors`, not in `workers`, the serving map dispatch reads, so the edition's
   * parallel_jobs still counts one worker per slot), and costs an idle engine's memory meanwhile.
   */
  private prepareSuccessor(worker: Worker) {
    if (this.closing || worker.retiring || worker.successorFailed || this.successors.has(worker.slot) || this.workers.get(worker.slot) !== worker) return;
    const soonByJobs = worker.jobs >= this.opts.maxJobs * (1 - SUCCESSOR_LEAD_JOBS);
    const soonByAge = this.opts.clock.now() - worker.startedAt >= this.opts.maxAgeMs - Math.min(SUCCESSOR_LEAD_MS, this.opts.maxAgeMs * SUCCESSOR_LEAD_JOBS);
    if (!soonByJobs && !soonByAge) return;
    this.log.debug("worker_successor_start", { worker: worker.slot, jobs: worker.jobs });
    this.spawn(worker.slot, true).catch(() => {}); // a start failure is handled by onExit
  }

  private onRunTimeout(worker: Worker) {
    const task = worker.task;
    if (!task) return;
    worker.task = undefined;
    worker.retiring = "timeout";
    worker.state = "stopping";
    this.log.warn("worker_timeout", { worker: worker.slot, job_id: task.request.id, request_id: task.request.requestId });
    this.fail(task, task.options.timeoutError?.() ?? new ServiceError("timeout"));
    worker.process.kill("SIGKILL");
  }

  /** Kills a worker past the memory ceiling: its request gets corrupt_source (engine_memory). */
  private checkMemory() {
    const limit = this.opts.memoryLimitBytes!;
    for (const worker of this.workers.values()) {
      if (worker.pid === undefined || worker.state === "starting" || worker.state === "stopping") continue;
      const rss = residentBytes(worker.pid);
      if (rss === null || rss <= limit) continue;
      const task = worker.task;
      worker.task = undefined;
      clearTimeout(worker.runTimer);
      worker.retiring = "memory";
      worker.state = "stopping";
      this.log.warn("worker_memory_exceeded", { worker: worker.slot, pid: worker.pid, rss_mb: Math.round(rss / MIB), limit_mb: Math.round(limit / MIB), job_id: task?.request.id, request_id: task?.request.requestId });
      if (task) this.fail(task, engineMemoryError(limit));
      worker.process.kill("SIGKILL");
    }
  }

  /** A request no worker took in time: it leaves the queue, saying it never started. */
  private onStartBy(task: Task) {
    if (!this.queue.remove(task)) return;
    const queuedMs = this.opts.clock.now() - task.queuedAt;
    this.log.warn("job_not_started", { job_id: task.request.id, request_id: task.request.requestId, queued_ms: queuedMs });
    this.fail(task, new ServiceError("timeout", "Yêu cầu chờ trong hàng đợi quá lâu và chưa được xử lý: hãy thử lại sau, hoặc dùng async=true.", { reason: "not_started", queued_ms: queuedMs }));
  }

  private onExit(worker: Worker, exitCode: number | undefined, signal: string | undefined) {
    clearTimeout(worker.runTimer);
    clearTimeout(worker.closeTimer);
    this.live.delete(worker);
    rmSync(worker.documentDir, { recursive: true, force: true });
    if (this.successors.get(worker.slot) === worker) {
      // A successor that ended before taking its slot: its predecessor serves on and is replaced
      // when it retires, as without one (never a second try for it: an engine that cannot start
      // would otherwise be started after every request).
      this.successors.delete(worker.slot);
      const predecessor = this.workers.get(worker.slot);
      if (predecessor) predecessor.successorFailed = true;
      if (!worker.retiring) this.log.warn("worker_successor_exited", { worker: worker.slot, exit_code: exitCode, signal, ever_ready: worker.everReady });
      if (!worker.retiring) rmSync(worker.profileDir, { recursive: true, force: true });
      return;
    }
    if (this.workers.get(worker.slot) === worker) this.workers.delete(worker.slot);
    const reason = worker.retiring ?? "crash";
    if (worker.task) {
      // The worker died under a request: that request fails, no other.
      this.log.error("worker_crashed_during_job", { worker: worker.slot, job_id: worker.task.request.id, exit_code: exitCode, signal });
      this.fail(worker.task, new ServiceError("internal", "Tiến trình xử lý bị dừng đột ngột khi đang xử lý tệp này: hãy thử lại một lần."));
      worker.task = undefined;
    } else if (reason === "crash") {
      this.log.error("worker_exited", { worker: worker.slot, exit_code: exitCode, signal, ever_ready: worker.everReady });
    }
    if (this.closing || reason === "shutdown") return;
    if (!worker.everReady) {
      // It could not even start (engine missing, disk full…): retry later instead of spinning,
      // and stop counting the slot as live so that requests get pool_unavailable, not a wait.
      this.failedSlots.add(worker.slot);
      if (this.liveCount() === 0) for (const task of this.queue.drain()) this.fail(task, new ServiceError("pool_unavailable"));
      setTimeout(() => this.respawn(worker.slot), START_RETRY_MS).unref();
      return;
    }
    if (reason === "crash" || reason === "memory") {
      // A crash (or a kill mid-work) may have left the profile half-written: start the next engine on a fresh one.
      rmSync(worker.profileDir, { recursive: true, force: true });
    }
    this.respawn(worker.slot);
  }

  private respawn(slot: number) {
    if (this.closing || this.workers.has(slot)) return;
    this.replace(slot);
  }

  /** Gives a slot its next worker: its successor when one started (ready or not), else a new one. */
  private replace(slot: number) {
    if (this.closing) return;
    this.restarts++;
    const successor = this.successors.get(slot);
    if (!successor) {
      this.spawn(slot).catch(() => {}); // a start failure is handled by onExit
      return;
    }
    this.successors.delete(slot);
    this.workers.set(slot, successor);
    if (successor.state === "standby") {
      successor.state = "idle";
      this.failedSlots.delete(slot);
      this.dispatch();
    }
  }

  private settle(task: Task, action: () => void) {
    clearTimeout(task.startByTimer);
    // A request that was its own job frees its slot; a job's slot waits for release(job).
    if (task.ownSlot && this.running.delete(task.slot)) queueMicrotask(() => this.dispatch());
    action();
  }

  private fail(task: Task, err: Error) {
    this.settle(task, () => task.reject(err));
  }
}
