// A DocBuilder-only process (SVC_ROLE=docbuilder), as a DocBuilder pod runs it: for the tests and
// the benchmark of DocBuilder on several instances. Its JSON log lines are kept.

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { enterpriseEnv, TEST_API_KEY } from "./harness";
import { until } from "./until";

const ROOT = path.resolve(import.meta.dir, "../..");

export interface DocBuilderInstance {
  number: number;
  port: number;
  proc: ReturnType<typeof Bun.spawn>;
  lines: string[];
  /** Requests this instance has taken (its `job_queued` log lines). */
  taken(): number;
  stop(): Promise<void>;
}

export async function startDocBuilderInstance(number: number, port: number, workers = 1): Promise<DocBuilderInstance> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `svc-docbuilder-${number}-`));
  const proc = Bun.spawn([process.execPath, path.join(ROOT, "app/main.ts")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dataDir,
      SVC_ROLE: "docbuilder",
      SVC_DOCBUILDER_INSTANCE: String(number),
      SVC_APP_LISTEN: `127.0.0.1:${port}`,
      SVC_DATA_DIR: dataDir,
      SVC_DOCBUILDER_WORKERS: String(workers),
      SVC_DOCBUILDER_API_KEYS: `test:${TEST_API_KEY}`,
      SVC_LICENSE_FILE: path.join(dataDir, "license.token"),
      ...(process.env.SVC_ENGINE_PROGRAM_DIR ? { SVC_ENGINE_PROGRAM_DIR: process.env.SVC_ENGINE_PROGRAM_DIR } : {}),
      // Enterprise: the rate limits and one job at a time of the community edition stay out of the figures.
      ...enterpriseEnv(),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  void (async () => {
    let rest = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      rest += new TextDecoder().decode(chunk);
      const parts = rest.split("\n");
      rest = parts.pop()!;
      lines.push(...parts);
    }
  })();
  await until(() => fetch(`http://127.0.0.1:${port}/v1/status`).then((r) => r.status, () => 0), (s) => s === 200, `DocBuilder instance ${number} answering /v1/status`, 120_000, 200);
  return {
    number,
    port,
    proc,
    lines,
    taken: () => lines.filter((l) => l.includes('"job_queued"')).length,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Ports ending in 01, 02, … under one free prefix: the proxy's owner route reaches instance N at <prefix><NN>. */
export async function instancePorts(count: number): Promise<{ prefix: number; ports: number[] }> {
  for (;;) {
    const prefix = 200 + Math.floor(Math.random() * 400);
    const ports = Array.from({ length: count }, (_, i) => prefix * 100 + i + 1);
    const free = await Promise.all(ports.map((p) => fetch(`http://127.0.0.1:${p}/`).then(() => false, () => true)));
    if (free.every(Boolean)) return { prefix, ports };
  }
}
