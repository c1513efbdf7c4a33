// The start command in the DocBuilder-only role (SVC_ROLE=docbuilder, what a DocBuilder pod runs):
// one process serving /v1/ alone, on SVC_APP_LISTEN, with ids of its instance number; no editing
// server, no proxy, no gate; SIGTERM stops it.

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../caddy/testing";
import { AUTH, FIXTURES, form, TEST_API_KEY } from "./testing/harness";
import { scaled, until, waitFor, within } from "./testing/until";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-launch-docbuilder-"));
let proc: ReturnType<typeof Bun.spawn> | undefined;

afterAll(() => {
  proc?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

test("SVC_ROLE=docbuilder: the launcher starts DocBuilder alone, its ids carry the instance number, and it stops on SIGTERM", async () => {
  const port = await freePort();
  proc = Bun.spawn([process.execPath, path.resolve(import.meta.dir, "launcher.ts")], {
    env: {
      ...process.env,
      SVC_ROLE: "docbuilder",
      SVC_DOCBUILDER_INSTANCE: "4",
      SVC_DATA_DIR: dataDir,
      SVC_APP_LISTEN: `127.0.0.1:${port}`,
      SVC_DOCBUILDER_WORKERS: "1",
      SVC_DOCBUILDER_API_KEYS: `test:${TEST_API_KEY}`,
      SVC_LOG_LEVEL: "info",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const read = Promise.all(
    [proc.stdout, proc.stderr].map(async (stream) => {
      for await (const chunk of stream as ReadableStream<Uint8Array>) output += new TextDecoder().decode(chunk);
    }),
  );
  await waitFor(() => output.includes('"event":"service_ready"') || proc!.exitCode !== null, "the launcher said it is ready", 120_000);
  const events = output.split("\n").filter((l) => l.startsWith("{") && l.includes('"service":"launcher"')).map((l) => JSON.parse(l) as { event: string; process?: string });
  // One process: no editing server, no proxy.
  expect(events.filter((e) => e.event === "process_starting").map((e) => e.process)).toEqual(["gate+docbuilder"]);
  expect(events.some((e) => e.event === "service_ready")).toBe(true);
  const base = `http://127.0.0.1:${port}`;
  expect((await fetch(`${base}/v1/status`)).status).toBe(200);
  // The gate's routes are not there.
  expect((await fetch(`${base}/svc/healthz`)).status).toBe(404);
  const job = (await (await fetch(`${base}/v1/convert`, { method: "POST", headers: AUTH, body: form({ path: path.join(FIXTURES, "hello.docx"), name: "hello.docx" }, { to: "pdf", async: "true" }) })).json()) as { id: string };
  expect(job.id.slice(4, 6)).toBe("04");
  const done = await until(async () => (await (await fetch(`${base}/v1/jobs/${job.id}`, { headers: AUTH })).json()) as { status: string; outputs: { file_id: string }[] }, (j) => j.status === "done" || j.status === "failed", "the job finished", 60_000);
  expect(done.status).toBe("done");
  expect(done.outputs[0]!.file_id.slice(5, 7)).toBe("04");
  proc.kill("SIGTERM");
  expect(await within(proc.exited, scaled(30_000), "the launcher stops on SIGTERM")).toBe(0);
  await read;
}, scaled(300_000));
