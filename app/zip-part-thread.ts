// The zip guard's thread (app/zip-part-check.ts): large parts inflated and read off the event loop.
import { serveThreadCalls } from "./thread-calls";
import { GUARD_THREAD_CALLS } from "./zip-part-check";

serveThreadCalls(GUARD_THREAD_CALLS);
