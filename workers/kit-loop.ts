// The kit's one thread: LibreOffice's main loop in unipoll mode, with the kit's work inside it.
//
// LibreOfficeKit normally runs the office's main loop on a thread of its own ("lo_startmain"):
// input posted from the kit's thread was worked through there later, concurrently with the kit
// switching views and posting the next person's input, which sent one person's letters to another
// person's cursor and let a command run before the keys typed ahead of it. The kit guarded both
// with waits measured in milliseconds (up to 150 ms per input, 25 ms of quiet per command), which
// a slow machine could outrun. With SAL_LOK_OPTIONS=unipoll (how Collabora's kit runs it) there
// is no such thread: runLoop runs the main loop on the calling thread and calls back into the kit
// (the poll callback) whenever the office would wait. Everything is then one sequence: posted
// input is worked through in order, each event for the view it was posted for, and a poll that
// asks to sleep means the office has worked through everything posted before it
// (bench/unipoll-trial.ts: two views typing in bursts, 0 of 5 rounds right threaded, 5 of 5 in
// unipoll, with none of the waits).
//
// Consequences for the kit's JavaScript: runLoop never returns while the kit lives, so Bun's own
// event loop never runs again: no timers, no stdin stream, no signal handlers. Instead, each poll
// reads requests from stdin, runs what is due and drains the promise jobs (bun:jsc
// drainMicrotasks); async request handlers await `engineIdle()` where they used to sleep.

import { JSCallback, ptr, type Pointer } from "bun:ffi";
import { drainMicrotasks } from "bun:jsc";
import { readSync } from "node:fs";
import type { LokOffice } from "./lok";
import { compileC } from "./native-c";

/** Set before LibreOfficeKit starts (LokOffice's environment): no main-loop thread of its own. */
export const UNIPOLL_ENVIRONMENT = { SAL_LOK_OPTIONS: "unipoll" } as const;

/**
 * Sleeping between polls: on an eventfd that LibreOffice's other threads write to through the
 * wake callback (a native function: no JavaScript may run on those threads) and on stdin, where
 * requests arrive.
 */
const WAIT_C = `
#include <sys/eventfd.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>
static int efd = -1;
int loop_init(void) { efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); return efd; }
static void loop_wake(void* data) { uint64_t one = 1; (void)write(efd, &one, 8); }
void* loop_wake_ptr(void) { return (void*)&loop_wake; }
/* Waits up to timeout_ms (-1: no limit) for a wake or input on in_fd; 1 when in_fd is readable. */
int loop_wait(int in_fd, int timeout_ms) {
  struct pollfd p[2] = { { efd, POLLIN, 0 }, { in_fd, POLLIN, 0 } };
  int r = poll(p, 2, timeout_ms);
  if (r > 0 && (p[0].revents & POLLIN)) { uint64_t v; (void)read(efd, &v, 8); }
  return r > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : 0;
}
`;

interface NativeWait {
  wakePtr: Pointer;
  /** 1 when stdin is readable. */
  wait(inFd: number, timeoutMs: number): number;
  keep: unknown;
}

function compileWait(): NativeWait {
  const lib = compileC("kit-loop", WAIT_C, {
    loop_init: { args: [], returns: "i32" },
    loop_wake_ptr: { args: [], returns: "ptr" },
    loop_wait: { args: ["i32", "i32"], returns: "i32" },
  });
  if ((lib.symbols.loop_init() as number) < 0) throw new Error("eventfd failed");
  return { wakePtr: lib.symbols.loop_wake_ptr() as Pointer, wait: (fd, ms) => lib.symbols.loop_wait(fd, ms) as number, keep: lib };
}

/**
 * How long a wait for the office to be idle lasts at most. The office falls idle within
 * milliseconds of its last event; one kept busy by its own idle work (layout, spelling of a long
 * document) would otherwise hold a command for as long: it then runs, as it would have under
 * the threaded loop.
 */
const IDLE_WAIT_MAX_MS = 2000;

interface IdleWaiter {
  resolve: () => void;
  deadline: number;
}

export interface KitLoopHandlers {
  /** Once, from the first poll: the office's desktop is up (documents can be loaded from here on). */
  start(): void;
  /** One request line from stdin. */
  line(line: string): void;
  /** Every poll: forward the callbacks the office queued. */
  poll(): void;
  /**
   * Every poll from inside a call the kit made (a nested loop: a load, a save, or a modal window
   * LibreOffice runs until it is answered): `ms` since the call's first nested poll.
   */
  nested?(ms: number): void;
}

const idleWaiters: IdleWaiter[] = [];

/**
 * The office's turns: how many times its loop came back to the kit. Requests read in one turn are
 * handed to the office together; an engine that never comes back stopped on one of them
 * (app/edsrv/kit-watchdog.ts reads it from the kit's `begin` lines).
 */
let turn = 0;
export const loopTurn = (): number => turn;

/**
 * Resolves at the first poll in which the office asks to sleep: every event posted before the
 * call has then been worked through. At most IDLE_WAIT_MAX_MS.
 */
export function engineIdle(): Promise<void> {
  return new Promise((resolve) => idleWaiters.push({ resolve, deadline: performance.now() + IDLE_WAIT_MAX_MS }));
}

/**
 * Runs LibreOffice's main loop on this thread until stdin closes (then exits the process). Never
 * returns.
 */
export function runKitLoop(office: LokOffice, handlers: KitLoopHandlers): never {
  const native = compileWait();
  const STDIN = 0;
  const readBuf = Buffer.alloc(1 << 20);
  let partial = "";
  let started = false;
  let depth = 0;
  /** When the kit's current call first polled from inside (0: it has not). */
  let nestedSince = 0;

  const readLines = (): void => {
    const n = readSync(STDIN, readBuf, 0, readBuf.length, null);
    if (n === 0) process.exit(0); // the editing server closed our stdin: it is gone or done with us
    const text = partial + readBuf.toString("utf8", 0, n);
    const lines = text.split("\n");
    partial = lines.pop() ?? "";
    // Each request's reply goes out before the next request starts (a tile paint is synchronous).
    for (const line of lines) {
      if (!line.trim()) continue;
      handlers.line(line);
      drainMicrotasks();
    }
  };

  /** Resolves the waits for idleness that are over; true when one was. */
  const settleIdle = (idle: boolean): boolean => {
    if (!idleWaiters.length) return false;
    const now = performance.now();
    let settled = false;
    for (let i = idleWaiters.length - 1; i >= 0; i--) {
      const w = idleWaiters[i]!;
      if (idle || now >= w.deadline) {
        idleWaiters.splice(i, 1);
        w.resolve();
        settled = true;
      }
    }
    return settled;
  };

  const poll = new JSCallback(
    (_closure: Pointer, timeoutUs: number): number => {
      // LibreOffice can poll again from inside a call the kit makes (a load, a save): the kit's
      // own work waits for the outer poll; only sleep briefly so a nested wait does not spin.
      if (depth > 0) {
        const now = performance.now();
        nestedSince ||= now;
        try {
          handlers.nested?.(now - nestedSince);
        } catch (err) {
          try {
            process.stderr.write(`kit loop (nested): ${String((err as Error)?.stack ?? err)}\n`);
          } catch {
            // nothing else to do
          }
        }
        native.wait(-1, timeoutUs === 0 ? 0 : 1);
        return 0;
      }
      nestedSince = 0;
      depth++;
      turn++;
      try {
        if (!started) {
          started = true;
          handlers.start();
        }
        // The office asks to sleep (timeout not 0) only when it has no event left to work through.
        handlers.poll();
        let worked = settleIdle(timeoutUs !== 0);
        if (native.wait(STDIN, 0)) {
          readLines();
          worked = true;
        }
        drainMicrotasks();
        handlers.poll();
        // What ran may have posted events: the office is asked to poll again at once.
        if (worked) return 1;
        if (timeoutUs === 0) return 0;
        // Asleep until the office's next timer, a wake from its threads (a posted event wakes it
        // too), or a request.
        if (native.wait(STDIN, timeoutUs < 0 ? -1 : Math.ceil(timeoutUs / 1000))) {
          readLines();
          drainMicrotasks();
          return 1;
        }
        return 0;
      } catch (err) {
        try {
          process.stderr.write(`kit loop: ${String((err as Error)?.stack ?? err)}\n`);
        } catch {
          // nothing else to do
        }
        return 0;
      } finally {
        depth--;
      }
    },
    { args: ["ptr", "i32"], returns: "i32" },
  );
  // LibreOffice calls the poll callback only when its closure pointer is not NULL.
  const closure = new Uint8Array(8);
  office.runLoop(poll.ptr!, native.wakePtr, ptr(closure));
  // The loop ends only when a poll asks it to quit, which the kit never does.
  process.exit(0);
}
