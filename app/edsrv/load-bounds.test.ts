// What one document may cost the editing server (issue 21 item 2), with real kits and a loopback
// WOPI host (the file-sync flow: the host's bytes go to a kit with no gate in between). A load
// never hangs the page and never takes the machine: a file the zip guard refuses is not loaded,
// a load has SVC_EDSRV_LOAD_TIMEOUT_SECONDS, a kit has SVC_ENGINE_MEMORY_LIMIT_MB; each ends in
// `error: cmd=load kind=faileddocloading` on the page and a fresh kit for the next document.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { FIXTURES } from "../testing/harness";
import { plausibleHeavyDocx, smallDocxHugeXml } from "../testing/zip-bomb";
import { createEdsrv, type Edsrv } from "./server";
import { startWopiHost } from "./testing/wopi-host";
import { TestSocket, docWsUrl } from "./testing/ws-client";
import { waitFor, scaled } from "../testing/until";

const FAILED = "error: cmd=load kind=faileddocloading";


function setup(env: Record<string, string>) {
  const ctx = { ed: null as unknown as Edsrv, host: null as unknown as ReturnType<typeof startWopiHost>, logger: memoryLogger("debug"), origin: "", seq: 0 };
  beforeAll(async () => {
    ctx.host = startWopiHost();
    const config = parseConfig({
      SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-bounds-")),
      SVC_ONLINE_ALIASGROUP1: ctx.host.origin,
      SVC_EDSRV_ADMIN_PASSWORD: "admin-pw",
      ...env,
    });
    ctx.ed = await createEdsrv({ config, logger: ctx.logger, listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 1, autosaveSeconds: 0 });
    ctx.origin = `http://${new URL(ctx.ed.url).host}`;
    ctx.host.addToken("tok", "u1", true, "Lan");
  }, scaled(120_000));
  afterAll(async () => {
    await ctx.ed?.close();
    ctx.host?.stop();
  });
  /** Opens a document of these bytes; resolves with the socket once the first answer to `load` came. */
  const open = async (name: string, bytes: Uint8Array) => {
    const src = ctx.host.addFile(`f${++ctx.seq}`, name, bytes);
    const s = new TestSocket(docWsUrl(ctx.ed.url, src, "tok"), ctx.origin);
    await s.opened;
    s.send(`load url=${encodeURIComponent(src)}`);
    await s.wait((f) => typeof f === "string" && (f.startsWith("status:") || f.startsWith("error:")));
    return s;
  };
  const logged = (event: string) => ctx.logger.lines.some((l) => l.includes(`"${event}"`));
  return { ctx, open, logged };
}

describe("load bounds (SVC_EDSRV_LOAD_TIMEOUT_SECONDS=3)", () => {
  const { ctx, open, logged } = setup({ SVC_EDSRV_LOAD_TIMEOUT_SECONDS: "3" });

  test("a file the zip guard refuses is never loaded: the page gets faileddocloading at once", async () => {
    const s = await open("minutes.docx", smallDocxHugeXml());
    expect(s.texts()).toContain(FAILED);
    expect(logged("kit_load_refused")).toBe(true);
    s.close();
  });

  test("a load past SVC_EDSRV_LOAD_TIMEOUT_SECONDS answers the page with faileddocloading instead of hanging, and the kit is replaced", async () => {
    await waitFor(() => ctx.ed.pool.hasReadyKit, "a ready kit in the pool");
    // Every kit frozen (SIGSTOP): a load that never returns, as a stuck engine looks from outside.
    const frozen = ctx.ed.pool.pids();
    for (const pid of frozen) process.kill(pid, "SIGSTOP");
    try {
      const t0 = performance.now();
      const s = await open("hello.docx", new Uint8Array(readFileSync(path.join(FIXTURES, "hello.docx"))));
      const ms = performance.now() - t0;
      expect(s.texts()).toContain(FAILED);
      // Not before the setting's 3 s; that it was the time-out that ended it, not a hang, says the log.
      expect(ms).toBeGreaterThan(2500);
      expect(logged("kit_load_timeout")).toBe(true);
      s.close();
    } finally {
      for (const pid of frozen) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {}
      }
    }
    await waitFor(() => frozen.every((pid) => !ctx.ed.pool.pids().includes(pid)) || ctx.ed.pool.hasReadyKit, "the frozen kits gone or a ready kit");
    // The next document opens on a fresh kit.
    await waitFor(() => ctx.ed.pool.hasReadyKit, "a ready kit in the pool");
    const next = await open("hello.docx", new Uint8Array(readFileSync(path.join(FIXTURES, "hello.docx"))));
    expect(next.texts().some((t) => t.startsWith("status:"))).toBe(true);
    next.close();
  }, scaled(60_000));
});

describe("kit memory ceiling (SVC_ENGINE_MEMORY_LIMIT_MB=512)", () => {
  const { ctx, open, logged } = setup({ SVC_ENGINE_MEMORY_LIMIT_MB: "512" });

  test("a kit past SVC_ENGINE_MEMORY_LIMIT_MB while loading is killed and the page gets faileddocloading", async () => {
    await waitFor(() => ctx.ed.pool.hasReadyKit, "a ready kit in the pool");
    // 400,000 paragraphs of random text: a kit grows past 800 MB loading it (measured).
    const s = await open("heavy.docx", plausibleHeavyDocx(400_000));
    expect(s.texts()).toContain(FAILED);
    expect(logged("kit_memory_exceeded")).toBe(true);
    // Killed as a failed load, not counted as a crash.
    expect(ctx.ed.pool.crashes).toBe(0);
    s.close();
    await waitFor(() => ctx.ed.pool.hasReadyKit, "a ready kit in the pool");
    const next = await open("hello.docx", new Uint8Array(readFileSync(path.join(FIXTURES, "hello.docx"))));
    expect(next.texts().some((t) => t.startsWith("status:"))).toBe(true);
    next.close();
  }, scaled(90_000));
});
