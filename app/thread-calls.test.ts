// Calls to a table of functions on a thread of its own (thread-calls.ts): values and ServiceErrors
// cross as themselves, and what the thread cannot do runs on this thread instead.

import { describe, expect, test } from "bun:test";
import path from "node:path";
import { ServiceError } from "./errors";
import { threadCalls } from "./thread-calls";
import { TEST_THREAD_CALLS } from "./testing/thread-calls-table";

const entry = path.join(import.meta.dir, "testing/thread-calls-entry.ts");

describe("thread calls", () => {
  test("a call runs on the thread and answers with its function's value; a refusal is thrown here as the same ServiceError", async () => {
    const call = threadCalls(entry, TEST_THREAD_CALLS);
    expect(await call("double", 21)).toEqual({ onMainThread: false, value: 42 });
    const e = await call("refuse", "thử").then(() => null, (x) => x as ServiceError);
    expect(e).toBeInstanceOf(ServiceError);
    expect({ code: e!.code, status: e!.status, message: e!.message, detail: e!.detail }).toEqual({ code: "bad_request", status: 400, message: "Từ chối để thử.", detail: { reason: "thử" } });
  });

  test("an argument the thread cannot be handed (a function) is run on this thread instead", async () => {
    const call = threadCalls(entry, TEST_THREAD_CALLS);
    expect(await call("where", () => 1)).toEqual({ onMainThread: true });
    expect(await call("where", 1)).toEqual({ onMainThread: false });
  });

  test("a thread that cannot start hands its calls back: they run on this thread", async () => {
    const call = threadCalls(path.join(import.meta.dir, "testing/no-such-entry.ts"), TEST_THREAD_CALLS);
    expect(await call("double", 2)).toEqual({ onMainThread: true, value: 4 });
  });
});
