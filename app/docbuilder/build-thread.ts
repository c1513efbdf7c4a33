// Builds and template fills, the DocBuilder work done in this process rather than by an engine, on
// a thread of their own (app/thread-calls.ts; its entry: build-thread-main.ts). On the event loop a
// 1,000-row template filled in 70–95 ms and a 10-page report built in 48–95 ms, each holding every
// other request of the process meanwhile (the gate's WOPI answers and embed sessions included).

import { buildNative } from "../svcscript";
import type { Script } from "../svcscript/types";
import { renderTemplate, type RenderOptions } from "../templates/render";
import { threadCalls } from "../thread-calls";

/** What the build thread serves. */
export const BUILD_THREAD_CALLS = {
  build: (script: Script) => buildNative(script),
  render: (a: { bytes: Uint8Array; data: unknown; options: RenderOptions }) => renderTemplate(a.bytes, a.data, a.options),
  /** Nothing: started and its modules loaded, so that the first build does not wait for that. */
  ready: () => true,
};

const onBuildThread = threadCalls(new URL("./build-thread-main.ts", import.meta.url).pathname, BUILD_THREAD_CALLS);

/** buildNative on the build thread: the same bytes, the same refusals (script_run_failed). */
export const buildOffThread = (script: Script): Promise<Uint8Array> => onBuildThread("build", script);

/** renderTemplate on the build thread: the same bytes, the same refusals (template_error). */
export const renderOffThread = (bytes: Uint8Array, data: unknown, options: RenderOptions): Promise<Uint8Array> => onBuildThread("render", { bytes, data, options });

/** Starts the build thread and loads its modules (at the service's start). */
export const startBuildThread = (): Promise<boolean> => onBuildThread("ready", undefined);
