// api.js as served: the TypeScript source (browser/api.ts) bundled into one small script with
// Bun.build, once per process, with its version in the ETag; and its declarations (api.d.ts).

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { SERVICE_VERSION } from "../version";

const SOURCE = path.join(import.meta.dir, "browser", "api.ts");
const DECLARATIONS = path.join(import.meta.dir, "browser", "svc-api.d.ts");

export interface ServedScript {
  body: string;
  etag: string;
}

async function build(): Promise<ServedScript> {
  const out = await Bun.build({
    entrypoints: [SOURCE],
    target: "browser",
    format: "iife",
    minify: true,
    define: { __SVC_API_VERSION__: JSON.stringify(SERVICE_VERSION) },
  });
  if (!out.success) throw new Error(`api.js did not build: ${out.logs.map((l) => l.message).join("; ")}`);
  const body = `/*! svc api.js ${SERVICE_VERSION} */\n${await out.outputs[0]!.text()}`;
  return { body, etag: etagOf(body) };
}

const etagOf = (body: string) => `"${SERVICE_VERSION}-${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;

let script: Promise<ServedScript> | null = null;
let declarations: ServedScript | null = null;

/** The built api.js (built on first use, then kept). */
export function apiScript(): Promise<ServedScript> {
  script ??= build().catch((e) => {
    script = null;
    throw e;
  });
  return script;
}

export function apiDeclarations(): ServedScript {
  if (!declarations) {
    const body = readFileSync(DECLARATIONS, "utf8");
    declarations = { body, etag: etagOf(body) };
  }
  return declarations;
}
