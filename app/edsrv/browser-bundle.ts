// The editor page's scripts as served: the TypeScript sources of browser/ (connect.ts, ed.ts,
// ui.ts and what they import, the protocol's frames included) bundled with Bun.build once, when
// the editing server starts, and kept in memory with the stylesheet and the libraries the page
// loads. Minified, or with source maps in development mode (SVC_DEV_MODE). Their hash names
// /browser/<hash>/: it changes with every byte the browser gets.
//
// Bundling takes about 10-15 ms, so nothing is cached on disk.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

const BROWSER_DIR = path.join(import.meta.dir, "browser");

/** The page's scripts, by the name it asks for (connect.js is inlined in its <head>). */
const ENTRY_POINTS = ["connect", "ed", "ui"] as const;

/** Files served as they are. */
const STATIC_FILES: Record<string, string> = {
  "ed.css": path.join(BROWSER_DIR, "ed.css"),
  // The interface's styles (ui.js): the tabbed toolbar, its menus and compact mode.
  "ui.css": path.join(BROWSER_DIR, "ui.css"),
  // fflate's inflate decodes tiles on the page's own thread while the user types (editor/png-decode.ts).
  // The browser build its package names for CDNs ("unpkg"); the package does not export the path.
  "fflate.js": path.join(path.dirname(Bun.resolveSync("fflate/package.json", import.meta.dir)), "umd/index.js"),
};

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json; charset=utf-8",
};

export interface BrowserAsset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

export interface BrowserClient {
  /** 10 hex characters that change with the server version and every served byte. */
  hash: string;
  /** connect.js, inlined in the page's <head>. */
  connectScript: string;
  /** Its CSP source: `'sha256-…'`. */
  connectCspSource: string;
  /** What /browser/<hash>/<file> serves: ed.js, ui.js, ed.css, fflate.js (and the source maps in development mode). */
  asset(file: string): BrowserAsset | null;
}

async function bundle(entry: string, dev: boolean): Promise<Map<string, string>> {
  const out = await Bun.build({
    entrypoints: [path.join(BROWSER_DIR, `${entry}.ts`)],
    target: "browser",
    format: "iife",
    minify: !dev,
    sourcemap: dev ? "linked" : "none",
    naming: "[name].[ext]",
  });
  if (!out.success) throw new Error(`the editor page's ${entry}.ts did not build: ${out.logs.map((l) => l.message).join("; ")}`);
  const files = new Map<string, string>();
  for (const o of out.outputs) files.set(path.basename(o.path), await o.text());
  return files;
}

/** Bundles the page's scripts (each entry alone: the script inlined in <head> carries nothing it does not use). */
export async function buildBrowserClient(opts: { dev: boolean; version: string }): Promise<BrowserClient> {
  const built = await Promise.all(ENTRY_POINTS.map((e) => bundle(e, opts.dev)));
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const m of built) for (const [name, text] of m) files.set(name, new TextEncoder().encode(text));
  for (const [name, file] of Object.entries(STATIC_FILES)) files.set(name, new Uint8Array(readFileSync(file)));

  const h = createHash("sha256").update(opts.version);
  for (const name of [...files.keys()].sort()) h.update(name).update(files.get(name)!);
  const connectScript = built[0]!.get("connect.js")!;
  // Inlined in the page, not served: the page holds it (and its hash allows it in the CSP).
  files.delete("connect.js");
  return {
    hash: h.digest("hex").slice(0, 10),
    connectScript,
    connectCspSource: `'sha256-${createHash("sha256").update(connectScript).digest("base64")}'`,
    asset(file) {
      const body = files.get(file);
      return body ? { body, contentType: CONTENT_TYPES[file.split(".").pop()!]! } : null;
    },
  };
}
