// What a person typed survives the editing server itself dying. The editing server runs as its own
// process (bun app/edsrv/main.ts) with its real kits; the WOPI host is a loopback stand-in. Typing
// that was never saved, then SIGKILL of the editing server: the next start finds the document's
// journal, replays it into a kit and stores the result as a new version (an autosave), and the
// page that reconnects takes its view back with the caret where it was.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { docxText } from "../testing/office-files";
import type { Subprocess } from "bun";
import { freePort } from "../../caddy/testing";
import { startWopiHost } from "./testing/wopi-host";
import { TestSocket, openDocument } from "./testing/ws-client";
import { until, scaled } from "../testing/until";

const ROOT = path.resolve(import.meta.dir, "../..");
const HELLO = readFileSync(path.join(ROOT, "fixtures/hello.docx"));
let host: ReturnType<typeof startWopiHost>;
let dataDir: string;
let port: number;
let ed: Subprocess | null = null;
let output = "";


async function startEdsrv() {
  ed = Bun.spawn([process.execPath, path.join(ROOT, "app/edsrv/main.ts")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      SVC_DATA_DIR: dataDir,
      SVC_EDSRV_LISTEN: `127.0.0.1:${port}`,
      SVC_ONLINE_ALIASGROUP1: host.origin,
      SVC_EDSRV_ADMIN_PASSWORD: "pw",
      SVC_EDSRV_IDLE_KITS: "1",
      SVC_EDSRV_AUTOSAVE_SECONDS: "0",
      // Nothing stored behind the tests' backs: what is unsaved stays unsaved until the fault.
      SVC_EDSRV_IDLE_SAVE_SECONDS: "0",
      SVC_LOG_LEVEL: "info",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) output += new TextDecoder().decode(c);
  };
  void pump(ed.stdout as ReadableStream<Uint8Array>);
  void pump(ed.stderr as ReadableStream<Uint8Array>);
  const answers = async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/hosting/capabilities`)).status;
    } catch (err) {
      return String(err);
    }
  };
  await until(answers, (st) => st === 200, "the editing server answering /hosting/capabilities", 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\nits output:\n${output}`);
  });
}

const open = (src: string, token: string): Promise<TestSocket> => openDocument(`http://127.0.0.1:${port}`, src, token);

beforeAll(async () => {
  host = startWopiHost();
  host.addToken("tok_lan", "u1", true, "Lan");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-edsrv-recovery-"));
  port = await freePort();
  await startEdsrv();
}, scaled(60_000));

afterAll(async () => {
  ed?.kill("SIGKILL");
  await ed?.exited;
  host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the editing server killed (SIGKILL) with unsaved typing: the next start replays the journal and stores it as a version; the page that reconnects goes on where its caret was", async () => {
  const src = host.addFile("lost", "lost.docx", HELLO);
  const page = await open(src, "tok_lan");
  const n = page.frames.length;
  page.send(`textinput text=${encodeURIComponent("Typed before the server died ")}`);
  await page.waitText("statechanged: .uno:ModifiedStatus=true", n);
  // The typing is in the journal's file (written before the kit got it; its fsync, FLUSH_MS later,
  // is for a machine that dies, which a SIGKILL of the process is not): waited for as it is seen.
  const journals = path.join(dataDir, "edsrv", "journal");
  const journalled = () => (existsSync(journals) ? readdirSync(journals).map((d) => {
    const f = path.join(journals, d, "journal.ndjson");
    return existsSync(f) ? readFileSync(f, "utf8") : "";
  }).join("") : "");
  await until(journalled, (t) => t.includes(encodeURIComponent("Typed before the server died")) || t.includes("Typed before the server died"), "the typing in the journal's file");
  expect(host.puts.filter((p) => p.fileId === "lost")).toHaveLength(0);

  ed!.kill("SIGKILL");
  await ed!.exited;
  await page.whenClosed();
  expect(readdirSync(journals)).toHaveLength(1);

  const t0 = Date.now();
  await startEdsrv();
  const stored = await host.waitPut((p) => p.fileId === "lost");
  const recoveredMs = Date.now() - t0;
  expect(docxText(stored.bytes)).toContain("Typed before the server died");
  expect(stored.headers["x-cool-wopi-isautosave"]).toBe("true");
  expect(output).toContain('"event":"document_recovered"');

  // The page reconnects: its own view, the caret after what it typed.
  const back = await open(src, "tok_lan");
  expect(back.texts()).toContain("perm: edit");
  back.send(`textinput text=${encodeURIComponent("and after it.")}`);
  const m = back.frames.length;
  back.send("save dontTerminateEdit=1 notify=1");
  expect(JSON.parse((await back.waitText("saveresult:", m)).slice(12))).toMatchObject({ success: true });
  const last = host.puts.filter((p) => p.fileId === "lost").at(-1)!;
  expect(docxText(last.bytes)).toContain("Typed before the server died and after it.");
  back.close();
  // Everything stored and nobody left: the journal is gone.
  await until(() => (existsSync(journals) ? readdirSync(journals) : []), (left) => left.length === 0, "the journal removed once everything is stored", 10_000);
  expect(readdirSync(journals)).toHaveLength(0);
  console.log(`recovered and stored ${recoveredMs} ms after the restart began`);
}, scaled(120_000));

test("a graceful stop (SIGTERM) with 20 modified documents open stores every one through its WOPI host before the process exits", async () => {
  if (ed && ed.exitCode === null) {
    ed.kill("SIGTERM");
    await ed.exited;
  }
  output = "";
  await startEdsrv();
  const pages: TestSocket[] = [];
  const ids = Array.from({ length: 20 }, (_, i) => `stop${i}`);
  for (const id of ids) {
    const page = await open(host.addFile(id, `${id}.docx`, HELLO), "tok_lan");
    page.send(`textinput text=${encodeURIComponent(`Unsaved in ${id} `)}`);
    pages.push(page);
  }
  await Promise.all(pages.map((p) => p.waitText("statechanged: .uno:ModifiedStatus=true")));
  const t0 = Date.now();
  ed!.kill("SIGTERM");
  expect(await ed!.exited).toBe(0);
  const stopMs = Date.now() - t0;
  for (const id of ids) {
    const last = host.puts.filter((p) => p.fileId === id).at(-1);
    expect(last && docxText(last.bytes)).toContain(`Unsaved in ${id}`);
  }
  expect(output).toMatch(/"event":"documents_stored_at_stop".*"documents":20,"stored":20/);
  console.log(`20 modified documents stored and the process gone in ${stopMs} ms`);
}, scaled(180_000));

test("a stop (SIGTERM) that comes while the editing server is still starting its kits is a graceful stop, not the end of the process", async () => {
  if (ed && ed.exitCode === null) {
    ed.kill("SIGTERM");
    await ed.exited;
  }
  output = "";
  // It listens (and pages may open documents and type) before its idle kits are warm: the stop
  // comes in that window, as the launcher's stop can after a restart.
  await startEdsrv();
  ed!.kill("SIGTERM");
  expect(await ed!.exited).toBe(0);
  expect(ed!.signalCode).toBeNull();
  expect(output).toContain('"event":"edsrv_stopping"');
}, scaled(60_000));
