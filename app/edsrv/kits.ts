// The kit process pool of the editing server. A kit (workers/kit/main.ts) hosts one office
// engine with its own profile and, once assigned, exactly one document. A few idle kits are kept
// started so that opening a document pays no engine start-up. A kit is never reused: when its
// document closes it is killed and a fresh idle kit is started (recycling). A kit that dies
// fails only its own document; the pool notices the exit and tops the idle set up again.
//
// What one document may cost a kit is bounded (issue 21 item 2): a file the zip guard refuses is
// never loaded (app/zip-guard.ts), a load has loadTimeoutMs, and a kit whose resident memory
// passes memoryLimitBytes is killed (app/engine-memory.ts). A load that fails any of these
// rejects like any failed load, so the page gets `error: cmd=load kind=faileddocloading`; the kit
// is then killed as retired, not counted as a crash. A kit past the ceiling with its document
// already loaded dies as a crash, which the document's recovery handles.

import { execa, type ResultPromise } from "execa";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { linkOrCopy, moveFile } from "../engine-files";
import os from "node:os";
import path from "node:path";
import { engineReadableEnv } from "../../workers/confine";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log";
import { MEMORY_CHECK_MS, MIB, residentBytes } from "../engine-memory";
import { ServiceError } from "../errors";
import { checkZipContainer } from "../zip-guard";
import { childEnvironment } from "../child-env";
import { stopEngine } from "../engine-stop";
import { KIT_OPS, type KitFields, type KitMessage, type KitOp, type KitResult } from "../../workers/kit-protocol";
import { DEFAULT_WATCHDOG_BOUNDS, findStall, LastTurnInputs, WATCH_EVERY_MS, type KitStall, type WaitingRequest, type WatchdogBounds } from "./kit-watchdog";
import { statSync } from "node:fs";

const KIT_ENTRY = path.resolve(import.meta.dir, "../../workers/kit/main.ts");

export interface KitCallback {
  viewId: number;
  cb: number;
  payload: string;
  /** A tile invalidation's number in the document's pixel versions (see workers/kit/callbacks.ts). */
  version?: number;
}

export interface KitPoolOptions {
  idle: number;
  profileRoot: string;
  logger: Logger;
  /** How long a starting kit may take to say ready before it is ended (KIT_START_LIMIT_MS). */
  startTimeoutMs?: number;
  /** How many kits may be starting at once (KIT_STARTS_AT_ONCE); more wait for a turn. */
  startsAtOnce?: number;
  command?: string[];
  /** How long after handing a kit out the idle set is topped up (TOP_UP_DELAY_MS). */
  topUpDelayMs?: number;
  /** How long a kit may take to load a document (SVC_EDSRV_LOAD_TIMEOUT_SECONDS); no bound when absent. */
  loadTimeoutMs?: number;
  /** Resident memory one kit may use (SVC_ENGINE_MEMORY_LIMIT_MB); no ceiling when absent. */
  memoryLimitBytes?: number;
  /** How often resident memory is read (MEMORY_CHECK_MS). */
  memoryCheckMs?: number;
  /** Where each kit gets its own folder, the only one of the data directory it may read (workers/confine.ts); the profile root when absent. */
  documentRoot?: string;
  /** The LibreOffice program folder the kits load (SVC_ENGINE_PROGRAM_DIR); Debian's when absent. */
  programDir?: string;
  /** How long a kit may leave its requests unanswered (kit-watchdog.ts); the defaults when absent. */
  watchdog?: WatchdogBounds;
  /** Variables of the editing server's environment handed to every kit as they are (tests' fault injection). */
  kitEnvironment?: Record<string, string>;
}

/** A document's open and first screen take well under this on a warm kit. */
export const TOP_UP_DELAY_MS = 3000;
/**
 * A kit that has not said ready by then is ended. Generous: a kit's start is an engine start and
 * a warm-up (2-8 s on 2 cores), which a loaded machine stretched past a minute; a page waits for
 * its kit ("starting…") rather than fail, so this only ends an engine that is stuck.
 */
export const KIT_START_LIMIT_MS = 300_000;
/**
 * How many kits start at once: a start is CPU-bound, and starting more than the machine has cores
 * makes every one of them slower. On a loaded machine, 15 kits started together for 24 documents
 * opened one after the other each took 38-85 s to warm.
 */
export const KIT_STARTS_AT_ONCE = Math.max(1, os.availableParallelism());
/** How often an open tries another kit when the one it waited for died before it was ready. */
const START_ATTEMPTS = 3;

export class KitError extends Error {}

export class Kit {
  pid = 0;
  version = "";
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: string | null }>;
  alive = true;
  /** Set by the pool user: the kit now belongs to a document. */
  assigned = false;
  /** Killed on purpose (recycle/shutdown, a load over its bounds): its exit is not a crash. */
  retiring = false;
  /** A document has been loaded in it (a kill after this is the document's crash). */
  loaded = false;
  /** Set by the pool: how long a load may take. */
  loadTimeoutMs?: number;
  onCallback: (e: KitCallback) => void = () => {};
  onExit: (info: { code: number | null; signal: string | null; crashed: boolean; stall: KitStall | null }) => void = () => {};
  /** Set by the watchdog when it ended the kit for not answering (kit-watchdog.ts). */
  stall: KitStall | null = null;
  /** The watchdog's bounds (set by the pool). */
  watchdog: WatchdogBounds = DEFAULT_WATCHDOG_BOUNDS;
  private seq = 0;
  private fileSeq = 0;
  private readonly pending = new Map<string, WaitingRequest & { turn?: number; resolve: (v: any) => void; reject: (e: Error) => void }>();
  /** When the kit last said anything (or requests began to wait on a quiet kit). */
  private lastHeardAt = performance.now();
  /** The people's inputs the kit answered in the office's latest turn. */
  private readonly lastTurn = new LastTurnInputs();
  /** The size of the document loaded (a load's and a save's bound grow with it). */
  private documentBytes = 0;
  private readonly stdin: Writable;

  constructor(
    readonly slot: number,
    readonly profileDir: string,
    /** The kit's own folder (an unguessable name): besides its profile and the system's, all it may read (workers/confine.ts). */
    readonly documentDir: string,
    private readonly proc: ResultPromise,
    private readonly log: Logger,
    startTimeoutMs: number,
  ) {
    this.stdin = proc.stdin as Writable;
    this.stdin.on("error", () => {});
    for (const stream of [proc.stdout, proc.stderr]) {
      (stream as Readable | null)?.on("data", () => {});
      (stream as Readable | null)?.on("error", () => {});
    }
    let readyResolve!: () => void, readyReject!: (e: Error) => void;
    this.ready = new Promise<void>((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    this.ready.catch(() => {});
    // Past the start limit the kit is ended, never left running beside the pool nor handed out:
    // its ready promise rejects with its exit, and whoever waited for it gets another kit.
    const timer = setTimeout(() => {
      this.log.warn("kit_start_timeout", { slot, timeout_ms: startTimeoutMs });
      this.kill();
    }, startTimeoutMs);
    const replies = createInterface({ input: proc.stdio[3] as Readable });
    replies.on("line", (line) => {
      let msg: KitMessage;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      this.lastHeardAt = performance.now();
      if (msg.type === "begin") {
        const p = this.pending.get(msg.id);
        if (p) {
          p.begun = true;
          p.turn = msg.turn;
        }
      } else if (msg.type === "ready") {
        clearTimeout(timer);
        this.pid = msg.pid;
        this.version = msg.version ?? "";
        this.log.info("kit_ready", { pid: msg.pid, start_ms: msg.startMs, slot });
        readyResolve();
      } else if (msg.type === "reply") {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (p.seq !== undefined && p.turn !== undefined) this.lastTurn.note(p.seq, p.turn);
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new KitError(String(msg.error)));
      } else if (msg.type === "cb") {
        try {
          this.onCallback({ viewId: msg.viewId, cb: msg.cb, payload: msg.payload, version: typeof msg.version === "number" ? msg.version : undefined });
        } catch (err) {
          this.log.error("kit_callback_handler_failed", { error: err as Error });
        }
      } else if (msg.type === "log") {
        const lvl = (["debug", "info", "warn", "error"].includes(msg.level) ? msg.level : "info") as "info";
        this.log[lvl](String(msg.event), { ...(msg.fields ?? {}), pid: this.pid });
      }
    });
    this.exited = new Promise((resolve) => {
      // The exit event, not execa's promise (which also waits for every pipe; see docbuilder/pool.ts).
      void Promise.resolve(proc.nodeChildProcess).then((cp) =>
        cp.once("exit", (code: number | null, signal: string | null) => {
          this.alive = false;
          clearTimeout(timer);
          readyReject(new KitError("kit exited before it was ready"));
          for (const p of this.pending.values()) p.reject(new KitError("kit exited"));
          this.pending.clear();
          const crashed = !this.retiring;
          if (crashed) this.log.error("kit_exited", { pid: this.pid, code, signal, assigned: this.assigned });
          else this.log.info("kit_stopped", { pid: this.pid, code, signal });
          try {
            this.onExit({ code, signal, crashed, stall: this.stall });
          } catch (err) {
            this.log.error("kit_exit_handler_failed", { error: err as Error });
          }
          resolve({ code, signal });
        }),
      );
    });
    proc.catch(() => {});
  }

  /**
   * Sends one request and resolves with its result (rejects with KitError). `load` is bounded (see
   * the top). Files cross the kit's own folder, the one folder of the data directory it may read:
   * a file to `load` is handed in there first, and a `save` is written there and moved to the
   * path asked for once it is complete.
   */
  request<Op extends KitOp>(op: Op, fields: KitFields<Op>, journalSeq?: number): Promise<KitResult<Op>> {
    const untyped = fields as Record<string, unknown>;
    if (op === "load") return this.load(untyped) as Promise<KitResult<Op>>;
    if (op === "save" && typeof untyped.path === "string") return this.saveThroughOwnFolder(untyped.path, untyped) as Promise<KitResult<Op>>;
    return this.send(op, untyped, journalSeq);
  }

  /**
   * The watchdog (kit-watchdog.ts): a kit that leaves its requests unanswered past their bound is
   * ended, with what it stopped on; one with nothing asked of it is pinged now and then. The
   * document's recovery takes it from there (its exit is a crash with `stall` set).
   */
  watch(now = performance.now()): void {
    if (!this.alive || this.retiring || this.pid === 0) return;
    const silentMs = now - this.lastHeardAt;
    if (!this.pending.size) {
      if (this.loaded && silentMs > this.watchdog.idlePingMs) void this.send("ping", {}).catch(() => {});
      return;
    }
    // A load has its own bound (loadTimeoutMs, the operator's SVC_EDSRV_LOAD_TIMEOUT_SECONDS).
    const waiting = [...this.pending.values()].filter((r) => r.op !== "load");
    const stall = findStall(waiting, silentMs, this.watchdog, this.documentBytes, this.lastTurn.seqs);
    if (!stall) return;
    this.stall = stall;
    this.log.error("kit_stopped_answering", { pid: this.pid, op: stall.op, waited_ms: stall.waitedMs, bound_ms: stall.boundMs, suspect_seqs: stall.suspectSeqs, waiting: this.pending.size });
    this.proc.kill("SIGKILL");
  }

  private async load(fields: Record<string, unknown>): Promise<KitResult<"load">> {
    if (typeof fields.path === "string") {
      try {
        await checkZipContainer(fields.path);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        this.log.warn("kit_load_refused", { pid: this.pid, reason: err.detail.reason, part: err.detail.part ?? null });
        throw new KitError(`document refused before loading: ${String(err.detail.reason)}`);
      }
      fields = { ...fields, path: this.handIn(fields.path) };
      this.documentBytes = fileBytes(fields.path as string);
    }
    const timeoutMs = this.loadTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sent = this.send<KitResult<"load">>("load", fields);
    if (!timeoutMs) return this.loadedWith(sent);
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // A load cannot be cancelled inside LibreOffice: the kit goes, the page hears it failed.
        this.log.warn("kit_load_timeout", { pid: this.pid, timeout_ms: timeoutMs });
        reject(new KitError(`document load took more than ${timeoutMs} ms`));
        this.kill();
      }, timeoutMs);
    });
    try {
      return await this.loadedWith(Promise.race([sent, timedOut]));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Puts `file` in the kit's own folder (a hard link; a copy across file systems) and answers its path there. */
  private handIn(file: string): string {
    const inside = path.join(this.documentDir, `in-${++this.fileSeq}${path.extname(file)}`);
    linkOrCopy(file, inside);
    return inside;
  }

  private async saveThroughOwnFolder(target: string, fields: Record<string, unknown>): Promise<KitResult<"save">> {
    const inside = path.join(this.documentDir, `out-${++this.fileSeq}${path.extname(target)}`);
    try {
      const result = await this.send<KitResult<"save">>("save", { ...fields, path: inside });
      moveFile(inside, target);
      return result;
    } finally {
      rmSync(inside, { force: true });
    }
  }

  private async loadedWith<T>(p: Promise<T>): Promise<T> {
    const result = await p;
    this.loaded = true;
    return result;
  }

  /**
   * Kills the kit for using more than `limit` bytes: a load under way fails (and the kit is
   * retired, not crashed); with its document loaded, it is that document's crash.
   */
  killForMemory(rss: number, limit: number): void {
    if (!this.alive) return;
    this.log.warn("kit_memory_exceeded", { pid: this.pid, rss_mb: Math.round(rss / MIB), limit_mb: Math.round(limit / MIB), loaded: this.loaded });
    if (!this.loaded) this.retiring = true;
    this.proc.kill("SIGKILL");
  }

  private send<T>(op: string, fields: Record<string, unknown>, journalSeq?: number): Promise<T> {
    if (!this.alive) return Promise.reject(new KitError("kit is not running"));
    const id = String(++this.seq);
    // A quiet kit's silence counts from the first request that waits on it.
    if (!this.pending.size) this.lastHeardAt = performance.now();
    const answer = KIT_OPS[op as KitOp]?.answer ?? "command";
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { op, answer, seq: journalSeq, begun: false, resolve, reject });
      this.stdin.write(JSON.stringify({ ...fields, op, id }) + "\n");
    });
  }

  /** Ends the kit (SIGKILL: LibreOffice's own teardown can hang and nothing in it needs saving). */
  kill(): void {
    this.retiring = true;
    if (this.alive) this.proc.kill("SIGKILL");
  }

  /** The pool stops: SIGTERM, SIGKILL after ENGINE_STOP_GRACE_MS (a busy kit runs no handler); resolves once it has exited. */
  stop(): Promise<void> {
    this.retiring = true;
    if (!this.alive) return this.exited.then(() => {});
    return stopEngine((signal) => this.proc.kill(signal), this.exited);
  }
}

function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export class KitPool {
  private readonly idle: Kit[] = [];
  private readonly all = new Set<Kit>();
  /** Kits started and not yet ready (or gone). */
  private starting = 0;
  /** Starts waiting for a turn (KIT_STARTS_AT_ONCE), oldest first. */
  private readonly startQueue: { purpose: "idle" | "open"; granted: (kit: Kit | null) => void }[] = [];
  private nextSlot = 0;
  private closing = false;
  private topUpTimer: ReturnType<typeof setTimeout> | null = null;
  private memoryTimer: ReturnType<typeof setInterval> | null = null;
  private readonly watchTimer: ReturnType<typeof setInterval>;
  private readonly log: Logger;
  spawned = 0;
  crashes = 0;

  constructor(private readonly opts: KitPoolOptions) {
    this.log = opts.logger.child({ component: "kits" });
    mkdirSync(opts.profileRoot, { recursive: true });
    const limit = opts.memoryLimitBytes;
    if (limit) {
      this.memoryTimer = setInterval(() => {
        for (const kit of this.all) {
          if (!kit.alive || kit.pid === 0) continue;
          const rss = residentBytes(kit.pid);
          if (rss !== null && rss > limit) kit.killForMemory(rss, limit);
        }
      }, opts.memoryCheckMs ?? MEMORY_CHECK_MS);
      this.memoryTimer.unref?.();
    }
    this.watchTimer = setInterval(() => {
      for (const kit of this.all) kit.watch();
    }, WATCH_EVERY_MS);
    this.watchTimer.unref?.();
  }

  /** Starts the idle kits; resolves when they are warm. */
  async start(): Promise<void> {
    const kits = await Promise.all(Array.from({ length: this.opts.idle }, () => this.startKit("idle")));
    await Promise.allSettled(kits.map((k) => k?.ready));
  }

  /**
   * Starts a kit when a start is free (KIT_STARTS_AT_ONCE), else once one is: an idle kit joins the
   * idle set as soon as it is started (an open may take it before it is ready). Null when the pool
   * closed meanwhile.
   */
  private startKit(purpose: "idle" | "open"): Promise<Kit | null> {
    return new Promise((granted) => {
      this.startQueue.push({ purpose, granted });
      this.startNext();
    });
  }

  private startNext(): void {
    const limit = this.opts.startsAtOnce ?? KIT_STARTS_AT_ONCE;
    while (this.startQueue.length && this.starting < limit) {
      const next = this.startQueue.shift()!;
      if (this.closing) {
        next.granted(null);
        continue;
      }
      const kit = this.spawn();
      this.starting++;
      const done = () => {
        this.starting--;
        this.startNext();
      };
      kit.ready.then(done, done);
      if (next.purpose === "idle") this.idle.push(kit);
      next.granted(kit);
    }
    if (this.closing) for (const w of this.startQueue.splice(0)) w.granted(null);
  }

  /** Idle kits and idle starts waiting for their turn. */
  private get idleAndComing(): number {
    return this.idle.length + this.startQueue.filter((w) => w.purpose === "idle").length;
  }

  private spawn(): Kit {
    const slot = this.nextSlot++;
    const profileDir = path.join(this.opts.profileRoot, `kit-${slot}`);
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
    // Unguessable, so that no name in a document or a command can point at another kit's files.
    const documentDir = path.join(this.opts.documentRoot ?? this.opts.profileRoot, `kit-${process.pid}-${randomBytes(16).toString("hex")}`);
    mkdirSync(documentDir, { recursive: true, mode: 0o700 });
    const command = this.opts.command ?? [process.execPath, KIT_ENTRY];
    const proc = execa(command[0]!, command.slice(1), {
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      // Its own settings only, never the service's secrets (app/child-env.ts).
      env: childEnvironment(process.env, { home: profileDir, own: { ...this.opts.kitEnvironment, SVC_KIT_PROFILE_DIR: profileDir, SVC_ENGINE_PROGRAM_DIR: this.opts.programDir, ...engineReadableEnv([documentDir]) }, passThrough: ["SVC_KIT_WARMUP"] }),
      extendEnv: false,
      // Inside its profile: what LibreOffice writes to its working directory (NSS's pkcs11.txt) stays there.
      cwd: profileDir,
      reject: false,
      buffer: false,
      cleanup: true,
    });
    const kit = new Kit(slot, profileDir, documentDir, proc, this.log, this.opts.startTimeoutMs ?? KIT_START_LIMIT_MS);
    kit.loadTimeoutMs = this.opts.loadTimeoutMs;
    if (this.opts.watchdog) kit.watchdog = this.opts.watchdog;
    this.spawned++;
    this.all.add(kit);
    void kit.exited.then(({}) => {
      this.all.delete(kit);
      const i = this.idle.indexOf(kit);
      if (i >= 0) this.idle.splice(i, 1);
      if (!kit.retiring) this.crashes++;
      rmSync(profileDir, { recursive: true, force: true });
      rmSync(documentDir, { recursive: true, force: true });
      this.topUp();
    });
    return kit;
  }

  private topUp(): void {
    if (this.closing) return;
    if (this.topUpTimer) clearTimeout(this.topUpTimer);
    this.topUpTimer = null;
    for (let n = this.idleAndComing; n < this.opts.idle; n++) void this.startKit("idle");
  }

  /**
   * Tops the idle set up once the document just handed out has opened: a kit starting (engine
   * start-up and warm-up, a core's worth for about 2 s) while the document loads and paints its
   * first screen would slow exactly that. At once when no ready kit is left for the next open.
   */
  private topUpSoon(): void {
    if (this.closing) return;
    if (!this.hasReadyKit) return this.topUp();
    this.topUpTimer ??= setTimeout(() => this.topUp(), this.opts.topUpDelayMs ?? TOP_UP_DELAY_MS);
    this.topUpTimer.unref?.();
  }

  /** Whether a document would get a started kit now, without waiting for one to start. */
  get hasReadyKit(): boolean {
    return !this.closing && this.idle.some((k) => k.pid !== 0);
  }

  /** A warm kit for a new document (a fresh one is started when none is idle). */
  async acquire(): Promise<Kit> {
    for (let attempt = 1; ; attempt++) {
      if (this.closing) throw new KitError("shutting down");
      // A ready kit first, then the one that started first, then a start of its own (in turn).
      let kit: Kit | null | undefined = this.idle.find((k) => k.pid !== 0) ?? this.idle[0];
      if (kit) this.idle.splice(this.idle.indexOf(kit), 1);
      else kit = await this.startKit("open");
      if (!kit) throw new KitError("shutting down");
      kit.assigned = true;
      this.topUpSoon();
      try {
        await kit.ready;
        return kit;
      } catch (err) {
        // It died (or was ended past KIT_START_LIMIT_MS) before it was ready: another one, a few times.
        if (attempt >= START_ATTEMPTS || this.closing) throw err;
        this.log.warn("kit_start_retry", { attempt, error: err as Error });
      }
    }
  }

  /** Ends a kit whose document closed, and starts a replacement idle one. */
  release(kit: Kit): void {
    kit.kill();
  }

  counts(): { idle: number; assigned: number; total: number } {
    const total = this.all.size;
    return { idle: this.idle.length, assigned: total - this.idle.length, total };
  }

  /** Process ids of the live kits (tests). */
  pids(): number[] {
    return [...this.all].filter((k) => k.alive && k.pid !== 0).map((k) => k.pid);
  }

  version(): string {
    for (const k of this.all) if (k.version) return k.version;
    return "";
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const w of this.startQueue.splice(0)) w.granted(null);
    if (this.topUpTimer) clearTimeout(this.topUpTimer);
    if (this.memoryTimer) clearInterval(this.memoryTimer);
    clearInterval(this.watchTimer);
    await Promise.all([...this.all].map((k) => k.stop()));
  }
}

