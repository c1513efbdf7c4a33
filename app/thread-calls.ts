// Calls to a table of functions on a thread of its own (a Bun Worker): work that would otherwise
// hold the event loop of the process it runs in, and with it every other request of that process
// (the gate's WOPI answers and embed sessions share the DocBuilder's). The thread's entry module
// calls serveThreadCalls(table); this process calls through threadCalls(entry, table): the same
// functions, their arguments and results copied across (structured clone), their ServiceErrors
// thrown here as themselves. A thread that fails hands what it was asked back to this thread,
// which then runs the table itself.

import { ServiceError, type ErrorCode } from "./errors";

// `any`: each function takes its own argument type, which `call` reads back from the table.
type Table = Record<string, (arg: any) => unknown>;
type Ask = { id: number; op: string; arg: unknown };
type Reply =
  | { id: number; value: unknown }
  | { id: number; refusal: { code: ErrorCode; message: string; detail: Record<string, unknown> } }
  | { id: number; failure: string };

/** In a thread's entry module: answers every call with its function's result or refusal. */
export function serveThreadCalls(table: Table): void {
  self.onmessage = async (e: MessageEvent<Ask>) => {
    const { id, op, arg } = e.data;
    let reply: Reply;
    try {
      reply = { id, value: await table[op]!(arg) };
    } catch (err) {
      reply = err instanceof ServiceError
        ? { id, refusal: { code: err.code, message: err.message, detail: err.detail } }
        : { id, failure: String((err as Error)?.message ?? err) };
    }
    postMessage(reply);
  };
}

/** A caller of `table`'s functions on the thread started (on first use) from `entry`, which serves the same table. */
export function threadCalls<T extends Table>(entry: string, table: T) {
  let thread: Worker | undefined;
  let asked = 0;
  const waiting = new Map<number, { settle: (r: Reply) => void; here: () => void }>();

  const started = (): Worker => {
    if (thread) return thread;
    const t = new Worker(entry);
    // Bun's Worker: the thread does not keep the process alive (lib.dom's type lacks the method).
    (t as Worker & { unref(): void }).unref();
    t.onmessage = (e: MessageEvent<Reply>) => {
      const asker = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      asker?.settle(e.data);
    };
    const failed = () => {
      if (thread !== t) return;
      thread = undefined;
      t.terminate(); // an uncaught error need not end a worker: this one is done with either way
      for (const [id, asker] of waiting) {
        waiting.delete(id);
        asker.here();
      }
    };
    t.addEventListener("error", failed);
    t.addEventListener("close", failed);
    return (thread = t);
  };

  return function call<K extends keyof T & string>(op: K, arg: Parameters<T[K]>[0]): Promise<Awaited<ReturnType<T[K]>>> {
    type Result = Awaited<ReturnType<T[K]>>;
    return new Promise<Result>((resolve, reject) => {
      const id = ++asked;
      waiting.set(id, {
        settle: (r) => {
          if ("value" in r) resolve(r.value as Result);
          else if ("refusal" in r) reject(new ServiceError(r.refusal.code, r.refusal.message, r.refusal.detail));
          else reject(new Error(r.failure));
        },
        here: () => {
          try {
            Promise.resolve(table[op]!(arg) as Result).then(resolve, reject);
          } catch (e) {
            reject(e);
          }
        },
      });
      try {
        started().postMessage({ id, op, arg } satisfies Ask);
      } catch {
        // An argument the thread cannot be handed (not cloneable): this thread runs the call.
        waiting.get(id)?.here();
        waiting.delete(id);
      }
    });
  };
}
