// What the editor's browser tests share: the real editing server with real kits, a loopback WOPI
// host, Debian's Chromium, and helpers to open a document in a host page and read what was stored.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { parseConfig } from "../../config";
import { memoryLogger } from "../../log";
import { createEdsrv } from "../server";
import { editorFrame, hostPageHtml, startChromium } from "./chromium";
import { startWopiHost } from "./wopi-host";

export const FIXTURES = path.resolve(import.meta.dir, "../../../fixtures");

/** `env`: more of the editing server's settings (a test's SVC_FETCH_ALLOW_HOSTS). */
export async function startEditorEnv(opts: { idleKits?: number; env?: Record<string, string> } = {}) {
  const host = startWopiHost();
  // SVC_ENGINE_PROGRAM_DIR passes through: the editor's tests can run against another LibreOffice (docs/benchmarks-history.md compares 7.4 and 25.2 so).
  const config = parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-env-")), SVC_ONLINE_ALIASGROUP1: host.origin, SVC_ENGINE_PROGRAM_DIR: process.env.SVC_ENGINE_PROGRAM_DIR, ...opts.env });
  const [ed, chrome] = await Promise.all([
    createEdsrv({ config, logger: memoryLogger("warn"), listen: { hostname: "127.0.0.1", port: 0 }, idleKits: opts.idleKits ?? 2, autosaveSeconds: 0 }),
    startChromium(),
  ]);
  host.addToken("tok_alice", "u1", true, "Alice");
  host.addToken("tok_bob", "u2", true, "Bob");
  host.addToken("tok_carol", "u3", false, "Carol");
  let seq = 0;
  return {
    ed,
    host,
    browser: chrome.browser,
    /** A file on the WOPI host, from a fixture or given bytes. */
    newFile(fixture: string, bytes: Uint8Array = readFileSync(path.join(FIXTURES, fixture))): { id: string; src: string } {
      const id = `t${++seq}`;
      return { id, src: host.addFile(id, fixture, bytes) };
    },
    /** A host page that frames the editor with a form POST, once the first screen is painted. */
    async openEditor(ctx: BrowserContext, src: string, token = "tok_alice", query = ""): Promise<{ page: Page; frame: Frame }> {
      const pageId = `p${++seq}`;
      host.pages.set(pageId, hostPageHtml(ed.url, ed.hash, src, token, query));
      const page = await ctx.newPage();
      await page.goto(`${host.origin}/page/${pageId}`);
      return { page, frame: await editorFrame(page) };
    },
    /** The bytes of the last file the host stored for this id. */
    lastStored(id: string): Uint8Array {
      const put = host.puts.filter((p) => p.fileId === id && p.status === 200).pop();
      if (!put) throw new Error(`nothing stored for ${id}`);
      return put.bytes;
    },
    async close() {
      await chrome.close();
      await ed.close();
      host.stop();
    },
  };
}

export type EditorEnv = Awaited<ReturnType<typeof startEditorEnv>>;

export interface Run {
  text: string;
  bold: boolean;
  italic: boolean;
  underline: boolean;
}

const on = (props: string, tag: string) => {
  const m = new RegExp(`<w:${tag}(?: w:val="([^"]*)")?/>`).exec(props);
  return !!m && m[1] !== "false" && m[1] !== "0" && m[1] !== "none";
};

/** The paragraphs of a stored docx as runs of text with their bold, italic and underline; equal neighbours merged. */
export function docxParagraphRuns(bytes: Uint8Array): Run[][] {
  const xml = strFromU8(unzipSync(bytes)["word/document.xml"]!);
  const paragraphs = [...xml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>|<w:p\/>/g)].map((m) => m[0]);
  return paragraphs.map((p) => {
    const runs: Run[] = [];
    for (const r of p.matchAll(/<w:r[ >]([\s\S]*?)<\/w:r>/g)) {
      const body = r[1]!;
      const props = /<w:rPr>([\s\S]*?)<\/w:rPr>/.exec(body)?.[1] ?? "";
      const text = [...body.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:tab\/>/g)].map((t) => (t[1] === undefined ? "\t" : t[1])).join("");
      if (!text) continue;
      const run = { text, bold: on(props, "b"), italic: on(props, "i"), underline: on(props, "u") };
      const last = runs[runs.length - 1];
      if (last && last.bold === run.bold && last.italic === run.italic && last.underline === run.underline) last.text += run.text;
      else runs.push(run);
    }
    return runs;
  });
}

/**
 * The editor's world for one test file: started before its tests and closed after them. The
 * object stands for that world once started, so a file writes `env.…` as with a world of its own.
 */
export function editorEnvPerFile(): EditorEnv {
  let started: EditorEnv | undefined;
  beforeAll(async () => {
    started = await startEditorEnv();
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as EditorEnv, {
    get(_, key) {
      if (!started) throw new Error("the editor's world is used before its file's tests started it");
      const value = Reflect.get(started, key);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}
