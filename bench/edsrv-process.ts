// The editing server as production runs it (app/launcher.ts): its own process, `bun app/edsrv/main.ts`,
// configured by environment. A benchmark that drives Chromium with Playwright from its own process
// must not host the server there too: Playwright's DevTools traffic then shares the server's event
// loop and delays the very WebSocket messages being timed (1-10 ms a keystroke, measured).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");

export interface EdsrvProcess {
  url: string;
  /** The /browser/<hash>/ segment of the editor page's URL. */
  hash: string;
  /** The editing server's process id (its kits are its children). */
  pid: number;
  close(): Promise<void>;
}

/** Starts the editing server on a free loopback port; resolves once its discovery answers. */
export async function startEdsrvProcess(env: Record<string, string>): Promise<EdsrvProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "edsrv-bench-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, path.join(ROOT, "app/edsrv/main.ts")], {
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_EDSRV_LISTEN: `127.0.0.1:${port}`, SVC_EDSRV_URL: url, SVC_LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  // Ready once its idle kits are warm: the `edsrv_started` log line (one JSON object a line).
  const reader = proc.stdout.getReader();
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  let text = "";
  while (!text.includes('"edsrv_started"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the editing server exited before it was ready (${await proc.exited})`);
    text = (text + new TextDecoder().decode(value)).slice(-65536);
  }
  clearTimeout(timer);
  reader.releaseLock();
  void proc.stdout.pipeTo(new WritableStream()); // later log lines are not read
  const xml = await fetch(`${url}/hosting/discovery`).then((r) => r.text());
  const hash = /\/browser\/([^/]+)\//.exec(xml)?.[1];
  if (!hash) throw new Error("no editor URL in the discovery");
  return {
    url,
    hash,
    pid: proc.pid,
    async close() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port;
  s.stop(true);
  return port!;
}
