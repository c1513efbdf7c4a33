// Development pages (SVC_DEV_MODE=1; not mounted otherwise, so 404): the demo page that opens a
// sample through api.js, the samples, the demo's "backend" that makes (and signs) a config, and
// the demo's callback receiver with what it received.

import { Hono } from "hono";
import { readFileSync } from "node:fs";
import path from "node:path";
import { demoConfig } from "../demo/demo-config";
import type { DemoReceiver } from "../demo/receiver";
import { DEMO_SAMPLES } from "../demo/samples";
import { checkToken, parseCheckInput, type TokenCheckSettings } from "../demo/token-check";
import { ServiceError } from "../errors";
import { CONTENT_TYPES } from "../embed/downloads";
import { fileAnswer, route, type AppEnv } from "./common";
import { TEXTS } from "../i18n";

const PAGE_DIR = path.resolve(import.meta.dir, "../demo/page");
const page = (file: string) => readFileSync(path.join(PAGE_DIR, file), "utf8");

export interface DemoDeps {
  receiver: DemoReceiver;
  publicUrl: string;
  jwtSecret: string;
  now: () => number;
  /** What else the demo's build depends on: api.js as the gate serves it (its ETag, from its content). */
  apiBuild?: () => Promise<string> | string;
  /** The token checker's view of the service: its embed auth, its secrets by name, its SSRF rules. */
  tokenCheck?: Omit<TokenCheckSettings, "now">;
}

export function demoRoutes(deps: DemoDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const noStore = { "Cache-Control": "no-store" };
  route(app, "/", { GET: (c) => c.html(page("demo.html"), 200, noStore) });
  route(app, "/demo.js", { GET: (c) => c.body(page("demo.js"), 200, { "Content-Type": "text/javascript; charset=utf-8", ...noStore }) });
  // The demo's texts in every language, from the one language table (app/i18n).
  route(app, "/i18n.js", {
    GET: (c) => c.body(`window.SVC_DEMO_TEXTS = ${JSON.stringify({ en: TEXTS.en.demo, vi: TEXTS.vi.demo })};\n`, 200, { "Content-Type": "text/javascript; charset=utf-8", ...noStore }),
  });
  route(app, "/token", { GET: (c) => c.html(page("token.html"), 200, noStore) });
  route(app, "/token.js", { GET: (c) => c.body(page("token.js"), 200, { "Content-Type": "text/javascript; charset=utf-8", ...noStore }) });
  route(app, "/demo.css", { GET: (c) => c.body(page("demo.css"), 200, { "Content-Type": "text/css; charset=utf-8", ...noStore }) });
  route(app, "/samples", { GET: (c) => c.json(DEMO_SAMPLES.map(({ id, label, file, fileType }) => ({ id, label, file, fileType }))) });
  for (const s of DEMO_SAMPLES) {
    route(app, `/${s.file}`, {
      GET: () => fileAnswer(s.source, { "Content-Type": CONTENT_TYPES[s.fileType], "Content-Disposition": "inline", ...noStore }),
    });
  }
  route(app, "/config", {
    GET: async (c) => c.json(await demoConfig({ sample: c.req.query("sample") ?? "docx", key: c.req.query("key"), user: c.req.query("user"), name: c.req.query("name"), mode: c.req.query("mode"), lang: c.req.query("lang") }, deps), 200, noStore),
  });
  route(app, "/callback", {
    POST: async (c) => {
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const r = deps.receiver.receive(c.req.raw.headers, raw);
      // A refusal is a gate error like any other (the spec's error body), naming what was wrong.
      if (!r.check.ok) throw new ServiceError("unauthorized", `Callback bị từ chối (${r.check.reason}): hãy ký bằng SVC_EMBED_CALLBACK_SECRET và gửi X-SVC-Timestamp trong vòng 300 giây.`, { reason: r.check.reason });
      return c.json({ ok: true }, 200);
    },
  });
  // What the demo page is built from now (its files, read on every request, and api.js): the page
  // polls this and reloads when it changes (`bun run dev`).
  route(app, "/build", {
    GET: async (c) => {
      const h = new Bun.CryptoHasher("sha256");
      for (const f of ["demo.html", "demo.js", "demo.css", "token.html", "token.js"]) h.update(page(f));
      h.update((await deps.apiBuild?.()) ?? "");
      return c.json({ build: h.digest("hex").slice(0, 16) }, 200, noStore);
    },
  });
  // The token checker: a pasted signed config (the bare token, or the JSON body with `token`).
  route(app, "/token-check", {
    POST: async (c) => {
      const input = parseCheckInput(await c.req.text());
      if (!input || !deps.tokenCheck) {
        throw new ServiceError("bad_request", "Hãy dán một token (JWT) hoặc thân JSON có trường token.", { reason: "no_token" });
      }
      return c.json(await checkToken(input, { ...deps.tokenCheck, now: deps.now() }), 200, noStore);
    },
  });
  // The spec: "JSON list of the last 20 received callbacks with their signature check result".
  route(app, "/callbacks", { GET: (c) => c.json(deps.receiver.list(), 200, noStore) });
  return app;
}
