// The native fronts of LibreOfficeKit's callbacks, compiled at run time with Bun's TinyCC
// (workers/native-c.ts): the office callback's trampoline and the queue of document callbacks.

import { ptr, type Pointer } from "bun:ffi";
import { compileC } from "./native-c";

export type CallbackFn = (type: number, payload: string | null) => void;

/**
 * Native front for the office callback, compiled at run time with Bun's built-in TinyCC.
 *
 * LibreOffice calls the office callback on whatever thread it is on. The password request comes
 * synchronously on the thread that called documentLoad (the JS thread, blocked inside FFI) and
 * must be answered before documentLoad can return: only a non-threadsafe JSCallback, run
 * re-entrantly, can do that (a threadsafe one is queued to the blocked event loop: deadlock).
 * But LibreOffice also calls back from its own worker threads (progress of the threaded XLSX
 * import, for instance), and a non-threadsafe JSCallback entered from a foreign thread blocks
 * forever. This trampoline forwards only calls made on the JS thread and drops (counts) the rest.
 */
const TRAMPOLINE_C = `
#include <pthread.h>
typedef void (*lok_cb)(int, const char*, void*);
static lok_cb js_cb = 0;
static pthread_t js_thread;
static volatile int dropped = 0;
void lok_tramp_set(lok_cb f) { js_cb = f; js_thread = pthread_self(); }
int lok_tramp_dropped(void) { return dropped; }
static void lok_tramp(int type, const char* payload, void* data) {
  if (js_cb && pthread_equal(pthread_self(), js_thread)) js_cb(type, payload, data);
  else dropped++; /* a statistic only: races are harmless */
}
void* lok_tramp_ptr(void) { return (void*)&lok_tramp; }
`;

export interface Trampoline {
  set(js: Pointer): void;
  dropped(): number;
  fn: Pointer;
  keep: unknown;
}

export function compileTrampoline(): Trampoline {
  const lib = compileC("lok-trampoline", TRAMPOLINE_C, {
    lok_tramp_set: { args: ["ptr"], returns: "void" },
    lok_tramp_dropped: { args: [], returns: "i32" },
    lok_tramp_ptr: { args: [], returns: "ptr" },
  });
  return {
    set: (js) => lib.symbols.lok_tramp_set(js),
    dropped: () => lib.symbols.lok_tramp_dropped() as number,
    fn: lib.symbols.lok_tramp_ptr() as Pointer,
    keep: lib,
  };
}

export interface QueuedCallback {
  tag: number;
  type: number;
  payload: string;
}

const QUEUE_C = `
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
typedef struct ev { struct ev* next; int tag; int type; int len; char* payload; } ev;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static ev* head = 0;
static ev* tail = 0;
static volatile int pending = 0;
static void lok_q_cb(int type, const char* payload, void* data) {
  ev* e = (ev*)malloc(sizeof(ev));
  if (!e) return;
  int len = payload ? (int)strlen(payload) : 0;
  e->next = 0; e->tag = (int)(long)data; e->type = type; e->len = len;
  e->payload = (char*)malloc(len + 1);
  if (!e->payload) { free(e); return; }
  if (len) memcpy(e->payload, payload, len);
  e->payload[len] = 0;
  pthread_mutex_lock(&mu);
  if (tail) tail->next = e; else head = e;
  tail = e;
  pending++;
  pthread_mutex_unlock(&mu);
}
void* lok_q_ptr(void) { return (void*)&lok_q_cb; }
int lok_q_pending(void) { return pending; }
/* Moves queued events into buf as [i32 tag][i32 type][i32 len][len bytes]...; returns bytes used.
   An event larger than the whole buffer is dropped (its payload replaced by nothing). */
int lok_q_drain(char* buf, int cap) {
  int used = 0;
  pthread_mutex_lock(&mu);
  while (head) {
    ev* e = head;
    int len = e->len;
    if (12 + len > cap) len = 0;
    if (used + 12 + len > cap) break;
    memcpy(buf + used, &e->tag, 4); memcpy(buf + used + 4, &e->type, 4); memcpy(buf + used + 8, &len, 4);
    if (len) memcpy(buf + used + 12, e->payload, len);
    used += 12 + len;
    head = e->next;
    if (!head) tail = 0;
    pending--;
    free(e->payload); free(e);
  }
  pthread_mutex_unlock(&mu);
  return used;
}
`;

interface CallbackQueue {
  fn: Pointer;
  pending(): number;
  drain(buf: Uint8Array): number;
  keep: unknown;
}

let queueSingleton: CallbackQueue | null = null;

export function callbackQueue(): CallbackQueue {
  if (queueSingleton) return queueSingleton;
  const lib = compileC("lok-queue", QUEUE_C, {
    lok_q_ptr: { args: [], returns: "ptr" },
    lok_q_pending: { args: [], returns: "i32" },
    lok_q_drain: { args: ["ptr", "i32"], returns: "i32" },
  });
  queueSingleton = {
    fn: lib.symbols.lok_q_ptr() as Pointer,
    pending: () => lib.symbols.lok_q_pending() as number,
    drain: (buf) => lib.symbols.lok_q_drain(ptr(buf), buf.byteLength) as number,
    keep: lib,
  };
  return queueSingleton;
}

const drainBuffer = new Uint8Array(4 << 20);

/** Takes every queued document callback event (in arrival order). */
export function drainCallbacks(): QueuedCallback[] {
  if (!queueSingleton) return [];
  const out: QueuedCallback[] = [];
  const dec = new TextDecoder();
  for (;;) {
    const n = queueSingleton.drain(drainBuffer);
    if (n <= 0) break;
    const dv = new DataView(drainBuffer.buffer, 0, n);
    let o = 0;
    while (o < n) {
      const tag = dv.getInt32(o, true), type = dv.getInt32(o + 4, true), len = dv.getInt32(o + 8, true);
      out.push({ tag, type, payload: dec.decode(drainBuffer.subarray(o + 12, o + 12 + len)) });
      o += 12 + len;
    }
  }
  return out;
}

