// Runs the service's processes (gate + DocBuilder, editing server, Caddy) as one set: a process
// that exits unexpectedly is started again after a back-off, so one crash never takes the others
// (or the container) down; a crash loop (too many exits in a short window) is the one case where
// the supervisor gives up, says why, and stops the set. A stop ends the processes one at a time in
// the order given, each after the previous one has exited: the proxy first (no new connection),
// then the editing server (it stores every modified document through the gate, which is still
// up), then the gate (it finishes what it holds; its callbacks are in its persistent outbox).

import { existsSync } from "node:fs";
import { execa, type ResultPromise } from "execa";

/**
 * The set ends with the launcher even when the launcher cannot stop it (SIGKILL, the kernel's OOM
 * killer): each process is started through setpriv (util-linux, in every Debian), which sets the
 * parent-death signal to SIGTERM and then executes the process itself (the same pid). Without it
 * an orphaned gate and proxy kept serving on their ports, and the next start failed on them. (The
 * kernel sends it when the thread that forked the child ends: Bun forks from the main thread,
 * seen with strace, which lives as long as the launcher.)
 */
const SETPRIV = "/usr/bin/setpriv";

/** The command that starts `file args` so that it gets SIGTERM when this process dies. */
export function endingWithParent(file: string, args: string[], setpriv = SETPRIV): [string, string[]] {
  return existsSync(setpriv) ? [setpriv, ["--pdeathsig", "TERM", "--", file, ...args]] : [file, args];
}

export interface ChildSpec {
  name: string;
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Resolves when the process serves; rejects when it does not within its own time. */
  ready: () => Promise<void>;
  /** How long a graceful stop may take before SIGKILL. */
  stopGraceMs: number;
}

export interface SupervisorOptions {
  /** One JSON-able event per line: start, exit, restart, give-up, stop. */
  log: (event: string, fields?: Record<string, unknown>) => void;
  /** Delays before the 1st, 2nd, … restart within the window; the last repeats. */
  backoffMs?: number[];
  /** Exits within `crashWindowMs` after which the supervisor gives up. */
  maxRestarts?: number;
  crashWindowMs?: number;
  /** Called once when the set must end (a crash loop); the launcher stops and exits non-zero. */
  onGiveUp: (name: string) => void;
}

interface Running {
  spec: ChildSpec;
  proc: ResultPromise | null;
  exits: number[];
  restartTimer: ReturnType<typeof setTimeout> | null;
  state: "starting" | "up" | "down" | "stopped";
  /** A development restart under way (restart()), and whether another was asked meanwhile. */
  restarting?: Promise<void> | null;
  restartAgain?: boolean;
}

export class Supervisor {
  private readonly children = new Map<string, Running>();
  private stopping = false;
  private readonly backoffMs: number[];
  private readonly maxRestarts: number;
  private readonly crashWindowMs: number;

  constructor(private readonly o: SupervisorOptions) {
    this.backoffMs = o.backoffMs ?? [500, 1000, 2000, 5000, 10_000];
    this.maxRestarts = o.maxRestarts ?? 5;
    this.crashWindowMs = o.crashWindowMs ?? 60_000;
  }

  /** Starts a process and waits until it serves. */
  async start(spec: ChildSpec): Promise<void> {
    const child: Running = { spec, proc: null, exits: [], restartTimer: null, state: "starting" };
    this.children.set(spec.name, child);
    await this.launch(child);
  }

  /** Each process's state, for health reports and tests. */
  states(): Record<string, Running["state"]> {
    return Object.fromEntries([...this.children].map(([n, c]) => [n, c.state]));
  }

  pid(name: string): number | undefined {
    return this.children.get(name)?.proc?.pid;
  }

  private async launch(child: Running): Promise<void> {
    const { spec } = child;
    child.state = "starting";
    const [file, args] = endingWithParent(spec.file, spec.args);
    const proc = execa(file, args, { env: spec.env, extendEnv: false, stdio: ["ignore", "inherit", "inherit"], reject: false, cleanup: true });
    child.proc = proc;
    this.o.log("process_started", { process: spec.name, pid: proc.pid });
    void proc.then((r) => this.exited(child, proc, r.exitCode ?? null, r.signal ?? null));
    await spec.ready();
    if (child.proc === proc) {
      child.state = "up";
      this.o.log("process_ready", { process: spec.name, pid: proc.pid });
    }
  }

  private exited(child: Running, proc: ResultPromise, code: number | null, signal: string | null): void {
    if (child.proc !== proc) return;
    child.proc = null;
    if (this.stopping || child.state === "stopped") {
      child.state = "stopped";
      return;
    }
    child.state = "down";
    const now = Date.now();
    child.exits = [...child.exits.filter((t) => now - t < this.crashWindowMs), now];
    if (child.exits.length > this.maxRestarts) {
      this.o.log("process_crash_loop", {
        process: child.spec.name,
        exits: child.exits.length,
        window_s: this.crashWindowMs / 1000,
        message: `${child.spec.name} exited ${child.exits.length} times within ${this.crashWindowMs / 1000} s; giving up: read its log lines above for the cause`,
      });
      this.o.onGiveUp(child.spec.name);
      return;
    }
    const delay = this.backoffMs[Math.min(child.exits.length - 1, this.backoffMs.length - 1)]!;
    this.o.log("process_exited", { process: child.spec.name, code, signal, restart_in_ms: delay });
    child.restartTimer = setTimeout(() => {
      child.restartTimer = null;
      if (this.stopping) return;
      this.o.log("process_restarting", { process: child.spec.name });
      this.launch(child).catch((err) => this.o.log("process_not_ready", { process: child.spec.name, error: (err as Error).message }));
    }, delay);
  }

  /**
   * Stops a process gracefully and starts it again (development: its code changed); not counted
   * as a crash. Restarts asked while one runs are folded into one more after it.
   */
  async restart(name: string): Promise<void> {
    const child = this.children.get(name);
    if (!child || this.stopping) return;
    if (child.restarting) {
      child.restartAgain = true;
      return child.restarting;
    }
    child.restarting = (async () => {
      do {
        child.restartAgain = false;
        if (child.restartTimer) clearTimeout(child.restartTimer);
        child.restartTimer = null;
        const proc = child.proc;
        child.state = "stopped"; // its exit is expected
        if (proc) {
          proc.kill("SIGTERM");
          const inTime = await Promise.race([proc.then(() => true), Bun.sleep(child.spec.stopGraceMs).then(() => false)]);
          if (!inTime) {
            proc.kill("SIGKILL");
            await proc;
          }
        }
        if (this.stopping) return;
        this.o.log("process_reloading", { process: name });
        await this.launch(child).catch((err) => this.o.log("process_not_ready", { process: name, error: (err as Error).message }));
      } while (child.restartAgain && !this.stopping);
    })().finally(() => {
      child.restarting = null;
    });
    return child.restarting;
  }

  /** Stops the processes one after the other, in this order; the rest (if any) after them. */
  async stop(order: string[]): Promise<void> {
    this.stopping = true;
    const names = [...order, ...[...this.children.keys()].filter((n) => !order.includes(n))];
    for (const name of names) {
      const child = this.children.get(name);
      if (!child) continue;
      if (child.restartTimer) clearTimeout(child.restartTimer);
      const proc = child.proc;
      child.state = "stopped";
      if (!proc) continue; // not running (exited, waiting for its restart)
      const t0 = Date.now();
      this.o.log("process_stopping", { process: name });
      proc.kill("SIGTERM");
      const inTime = await Promise.race([proc.then(() => true), Bun.sleep(child.spec.stopGraceMs).then(() => false)]);
      if (!inTime) {
        this.o.log("process_stop_timeout", { process: name, grace_ms: child.spec.stopGraceMs });
        proc.kill("SIGKILL");
        await proc;
      }
      this.o.log("process_stopped", { process: name, ms: Date.now() - t0 });
    }
  }
}
