// The build thread (app/docbuilder/build-thread.ts): svcscript builds and template fills off the event loop.
import { serveThreadCalls } from "../thread-calls";
import { BUILD_THREAD_CALLS } from "./build-thread";

serveThreadCalls(BUILD_THREAD_CALLS);
