// The table of app/thread-calls.test.ts's thread (thread-calls-entry.ts).
import { isMainThread } from "node:worker_threads";
import { ServiceError } from "../errors";

export const TEST_THREAD_CALLS = {
  /** Where it ran, and twice its number. */
  double: (n: number) => ({ onMainThread: isMainThread, value: 2 * n }),
  /** Refuses, as a domain function does. */
  refuse: (reason: string) => {
    throw new ServiceError("bad_request", "Từ chối để thử.", { reason });
  },
  /** Where it ran, whatever it is given (a function cannot cross to a thread). */
  where: (_: unknown) => ({ onMainThread: isMainThread }),
};
