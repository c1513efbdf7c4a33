// A thread for app/thread-calls.test.ts: the table it serves is TEST_THREAD_CALLS.
import { serveThreadCalls } from "../thread-calls";
import { TEST_THREAD_CALLS } from "./thread-calls-table";

serveThreadCalls(TEST_THREAD_CALLS);
