// The world of the document broker tests (documents*.test.ts): a loopback WOPI host with three
// people's tokens and a real editing server with two spare kits, fast save retries and no
// autosave. Each test file gets its own, started before its tests and closed after them.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../../config";
import { memoryLogger } from "../../log";
import { createEdsrv, type Edsrv, type EdsrvDeps } from "../server";
import { startWopiHost } from "./wopi-host";
import { TestSocket, openDocument } from "./ws-client";

export const FIX = path.resolve(import.meta.dir, "../../../fixtures");

export interface DocumentsEnv {
  ed: Edsrv;
  host: ReturnType<typeof startWopiHost>;
  /** The editing server's own origin, which its sockets accept. */
  origin: string;
  logger: ReturnType<typeof memoryLogger>;
}

/**
 * Registers the start (beforeAll) and close (afterAll) of one editing server and WOPI host for the
 * calling test file; the fields are set once its tests run. `settings`: more of the server's
 * environment (a test's SVC_FETCH_ALLOW_HOSTS).
 */
export function documentsEnv(more: Partial<EdsrvDeps> = {}, settings: Record<string, string> = {}): DocumentsEnv {
  const env = { logger: memoryLogger("debug") } as DocumentsEnv;
  beforeAll(async () => {
    env.host = startWopiHost();
    const config = parseConfig({
      SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-docs-")),
      SVC_ONLINE_ALIASGROUP1: env.host.origin,
      SVC_EDSRV_ADMIN_PASSWORD: "admin-pw",
      ...settings,
    });
    env.ed = await createEdsrv({ config, logger: env.logger, listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 2, saveRetryMs: 50, autosaveSeconds: 0, ...more });
    env.origin = `http://${new URL(env.ed.url).host}`;
    env.host.addToken("tok_edit_1", "u1", true, "Alice");
    env.host.addToken("tok_edit_2", "u2", true, "Bob");
    env.host.addToken("tok_view", "u3", false, "Carol");
  }, 120_000); // two kits start and warm: seconds, more beside busy neighbours
  afterAll(async () => {
    await env.ed?.close();
    env.host?.stop();
  }, 60_000); // a stop stores what is unsaved first, a stuck engine's until its bound
  return env;
}

/** The helpers every documents test uses, bound to its world. */
export function documentsHelpers(env: DocumentsEnv) {
  let fileSeq = 0;
  const brokerOf = (src: string) => [...env.ed.brokers.values()].find((b) => b.wopiSrc === src);
  return {
    open: (wopiSrc: string, token: string, extra = "", loadArgs = "") => openDocument(env.ed.url, wopiSrc, token, { origin: env.origin, extra, loadArgs }),
    brokerOf,
    /** The engine has worked through every input sent to the document's kit (the kit's settle op). */
    async settled(src: string): Promise<void> {
      await brokerOf(src)!.kit!.request("settle", {});
    },
    newDoc(fixture = "hello.docx"): string {
      const id = `f${++fileSeq}`;
      return env.host.addFile(id, fixture, readFileSync(path.join(FIX, fixture)));
    },
    fileId: (src: string) => src.split("/").pop()!,
  };
}

/** Where two long one-line XML texts part, with some context, so a failure says what changed. */
export function whereTheyDiffer(a: string, b: string): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 160);
  return `at ${i}:\n  got:      …${a.slice(from, i + 240)}\n  expected: …${b.slice(from, i + 240)}`;
}

/** Types `text`, waits for the document to be modified, saves and answers the save's result. */
export async function typeAndSave(s: TestSocket, text: string) {
  const before = s.frames.length;
  s.send(`textinput text=${encodeURIComponent(text)}`);
  await s.waitText("statechanged: .uno:ModifiedStatus=true", before);
  const n = s.frames.length;
  s.send("save dontTerminateEdit=1 notify=1");
  return JSON.parse((await s.waitText("saveresult:", n)).slice(12));
}
