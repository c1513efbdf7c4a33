// DocBuilder on several instances behind the inner proxy (issue 36): two DocBuilder-only processes
// (SVC_ROLE=docbuilder, instances 1 and 2) and the gate, behind real Caddy with the repository's
// Caddyfile, on one machine. Synchronous calls are shared; a job's polls and a file's downloads go
// to the instance that holds them (the id's first two digits); an instance killed mid-run fails
// only what it was running, and the proxy's health check takes it out.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { startCaddy, type RunningCaddy } from "../../caddy/testing";
import { startDocBuilderInstance, instancePorts, type DocBuilderInstance } from "../testing/docbuilder-instance";
import { AUTH, enterpriseEnv, FIXTURES, form, startTestService, type Harness } from "../testing/harness";
import { scaled, until, waitFor } from "../testing/until";
import { instanceOf } from "../ids";

let gate: Harness;
let caddy: RunningCaddy;
let one: DocBuilderInstance, two: DocBuilderInstance;

beforeAll(async () => {
  const { prefix, ports } = await instancePorts(2);
  [gate, one, two] = await Promise.all([startTestService({ SVC_DOCBUILDER_WORKERS: "1", ...enterpriseEnv() }), startDocBuilderInstance(1, ports[0]!), startDocBuilderInstance(2, ports[1]!)]);
  caddy = await startCaddy({
    app: new URL(gate.url).host,
    edsrv: "127.0.0.1:9",
    docbuilders: ports.map((p) => `127.0.0.1:${p}`).join(" "),
    docbuilderOwner: `127.0.0.1:${prefix}{re.owner.tag}`,
  });
}, scaled(180_000));

afterAll(async () => {
  await caddy?.stop();
  await Promise.all([one?.stop(), two?.stop()]);
  await gate?.close();
});

const convert = (file: string, fields: Record<string, string> = {}) =>
  fetch(`${caddy.url}/v1/convert`, { method: "POST", headers: AUTH, body: form({ path: path.join(FIXTURES, file), name: file }, { to: "pdf", ...fields }) });

describe("DocBuilder on several instances behind the proxy", () => {
  test("synchronous conversions are shared: both instances take some, every answer is the PDF", async () => {
    const before = [one.taken(), two.taken()];
    const answers = await Promise.all(Array.from({ length: 8 }, () => convert("hello.docx").then(async (r) => [r.status, (await r.bytes()).subarray(0, 4)] as const)));
    for (const [status, head] of answers) {
      expect(status).toBe(200);
      expect(new TextDecoder().decode(head)).toBe("%PDF");
    }
    expect(one.taken() - before[0]!).toBeGreaterThan(0);
    expect(two.taken() - before[1]!).toBeGreaterThan(0);
    expect(one.taken() - before[0]! + two.taken() - before[1]!).toBe(8);
  }, scaled(120_000));

  test("an async job is polled and its file downloaded through the proxy from the instance that holds it", async () => {
    const jobs = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const r = await convert("hello.docx", { async: "true" });
        expect(r.status).toBe(202);
        return (await r.json()) as { id: string };
      }),
    );
    // Both instances made jobs: each id names its own (the proxy knows no more than that).
    expect(new Set(jobs.map((j) => instanceOf(j.id)))).toEqual(new Set([1, 2]));
    for (const { id } of jobs) {
      // A poll that reaches another instance is answered 404 at once: only the owner knows the job.
      const done = await until(
        async () => {
          const r = await fetch(`${caddy.url}/v1/jobs/${id}`, { headers: AUTH });
          return { http: r.status, ...((await r.json()) as { status: string; outputs: { file_id: string }[] }) };
        },
        (j) => j.http !== 200 || j.status === "done" || j.status === "failed",
        `job ${id} finished, polled through the proxy`,
        60_000,
        100,
      );
      expect(done.http).toBe(200);
      expect(done.status).toBe("done");
      const fileId = done.outputs[0]!.file_id;
      expect(instanceOf(fileId)).toBe(instanceOf(id));
      const file = await fetch(`${caddy.url}/v1/files/${fileId}`, { headers: AUTH });
      expect(file.status).toBe(200);
      expect(new TextDecoder().decode((await file.bytes()).subarray(0, 4))).toBe("%PDF");
    }
    // An id of an instance the proxy has no address for is not found on the others: no answer but a refusal.
    const nowhere = await fetch(`${caddy.url}/v1/jobs/job_07${"0".repeat(22)}`, { headers: AUTH });
    expect(nowhere.status).toBe(502);
  }, scaled(120_000));

  test("an instance killed mid-run: only its in-flight requests fail, cleanly; the other keeps serving; the health check takes the dead one out", async () => {
    const before = two.taken(), oneBefore = one.taken();
    // Slow enough to be caught running (a deck with 24 layouts: about a second each on one worker).
    const inFlight = Array.from({ length: 6 }, () => convert("hello.pptx").then((r) => r.status, () => -1));
    await waitFor(() => two.taken() > before, "instance 2 took a conversion", 60_000);
    two.proc.kill("SIGKILL");
    await two.proc.exited;
    const statuses = await Promise.all(inFlight);
    // Every request got an answer: the PDF, or the proxy's 502 for what the dead instance was running.
    expect(statuses.every((s) => s === 200 || s === 502)).toBe(true);
    expect(statuses.filter((s) => s === 502).length).toBeGreaterThan(0);
    // Everything the live instance took was answered (a request on its way to the dead one when it
    // died fails too, before that one logged it).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(one.taken() - oneBefore);
    // The proxy's active health check finds the dead instance gone…
    const dead = `127.0.0.1:${two.port}`;
    const caddyLines = () => caddy.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { logger?: string; host?: string; msg?: string });
    await waitFor(() => caddyLines().some((l) => l.logger?.endsWith("health_checker.active") && l.host === dead), "the proxy's health check noticed instance 2 gone", 30_000);
    const checked = caddyLines().length;
    // …and everything after goes to the live one, without trying the dead one first.
    const after = await Promise.all(Array.from({ length: 4 }, () => convert("hello.docx").then((r) => r.status)));
    expect(after).toEqual([200, 200, 200, 200]);
    expect((await fetch(`${caddy.url}/v1/status`)).status).toBe(200);
    expect(caddyLines().slice(checked).filter((l) => l.logger === "http.log.error" && (l.msg ?? "").includes(dead))).toEqual([]);
  }, scaled(180_000));
});
