// createEdsrvApp(deps): the editing server's HTTP surface (Hono), with nothing started: discovery
// and capabilities, the editor page, its scripts and icons, the admin page, readiness, metrics,
// downloads and conversion. Each route checks its request, calls one thing and answers; what the
// routes use is built once by createEdsrv (server.ts). The WebSockets are websocket.ts's.

import { Hono, type Context } from "hono";
import type { AliasGroup } from "../alias-groups";
import type { Config } from "../config";
import { requestLogLevel, type Logger } from "../log";
import type { AdminHub } from "./admin";
import type { BrowserClient } from "./browser-bundle";
import { convertWithKit } from "./convert";
import { capabilities, discoveryXml } from "./discovery";
import type { DocumentBroker } from "./documents";
import { attachment, type Downloads } from "./exports";
import type { IconSize, IconTheme } from "./icons";
import type { KitPool } from "./kits";
import { metricsText } from "./metrics";
import { renderPage } from "./page";

export interface EdsrvAppDeps {
  config: Config;
  log: Logger;
  startedAt: number;
  serverId: string;
  /** The page's scripts, bundled once; their hash names /browser/<hash>/. */
  client: BrowserClient;
  icons: IconTheme;
  groups: AliasGroup[];
  pool: KitPool;
  admin: AdminHub;
  downloads: Downloads;
  /** The open documents. */
  docs: () => DocumentBroker[];
  /** Saves stored and failed since the start (the metrics). */
  saves: { ok: number; failed: number };
  /** Where conversions work, a folder each. */
  convertRoot: string;
  /** Whether the idle kits have started and warmed. */
  kitsWarm: () => boolean;
  /** An editor page served with a token: its document starts loading ahead of its socket. */
  preload: (wopiSrc: string, form: Record<string, string>) => void;
}

const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect x="6" y="3" width="20" height="26" rx="2" fill="#fff" stroke="#555"/></svg>';

export function createEdsrvApp(deps: EdsrvAppDeps): Hono {
  const { config, log, startedAt, serverId, client, icons, groups, pool, admin, downloads, docs } = deps;
  const hash = client.hash;
  const app = new Hono();
  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    const p = new URL(c.req.url).pathname;
    log[requestLogLevel(c.req.method, p, c.res.status)]("http_request", { method: c.req.method, path: p.startsWith("/ed/") && p.split("/").length > 3 ? "/ed/[document]" : p, status: c.res.status, ms: Math.round(performance.now() - t0) });
  });

  app.get("/hosting/discovery", (c) =>
    c.body(discoveryXml(config, hash), 200, {
      "Content-Type": "text/xml",
      "Last-Modified": new Date(startedAt).toUTCString(),
      "X-Content-Type-Options": "nosniff",
    }),
  );
  app.get("/hosting/capabilities", (c) => c.json(capabilities({ serverId, hash, kitVersion: pool.version() })));
  app.all("/hosting/*", (c) => c.text("Bad request", 400));

  const page = async (c: Context) => {
    const form: Record<string, string> = {};
    if (c.req.method === "POST") {
      const ct = c.req.header("content-type") ?? "";
      if (ct.includes("application/x-www-form-urlencoded") || ct.includes("multipart/form-data")) {
        const body = await c.req.parseBody();
        for (const [k, v] of Object.entries(body)) if (typeof v === "string") form[k] = v;
      }
    }
    const url = new URL(c.req.url);
    // Query fields count too (Poco HTMLForm reads both), the body wins.
    for (const [k, v] of url.searchParams) if (!(k in form) && k !== "WOPISrc") form[k] = v;
    const r = renderPage(config, groups, client, { form, query: url.searchParams, requestHost: c.req.header("host") ?? "" });
    if (r.status !== 200) log.warn("page_refused", { reason: "unauthorized_wopi_host" });
    else deps.preload(url.searchParams.get("WOPISrc") ?? "", form);
    return c.body(r.body, r.status, r.headers);
  };
  app.get("/browser/:hash/ed.html", page);
  app.post("/browser/:hash/ed.html", page);

  const adminPage = (c: Context) => {
    if (!admin.authorised(c.req.raw.headers)) {
      return c.text("Unauthorized", 401, { "WWW-Authenticate": 'Basic realm="online"' });
    }
    const jwt = admin.issueJwt();
    return c.body(
      `<!doctype html><html><head><meta charset="utf-8"><title>Admin</title></head><body data-jwt="${jwt}"><h1>Editing server admin</h1><p>Connect to /ed/adminws and send: auth jwt=&lt;token&gt;</p></body></html>`,
      200,
      {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Set-Cookie": `jwt=${jwt}; Path=/browser/dist/; HttpOnly; SameSite=Strict${config.online.sslTermination ? "; Secure" : ""}`,
      },
    );
  };
  app.get("/browser/dist/admin/admin.html", adminPage);
  app.get("/browser/:hash/admin/admin.html", adminPage);

  app.get("/browser/:hash/images/:file", (c) => c.body(ICON_SVG, 200, { "Content-Type": "image/svg+xml" }));
  // The toolbars' and menus' pictures: lc_<command>.svg (toolbars) and sc_<command>.svg (menus).
  app.get("/browser/:hash/icons/:file", (c) => {
    const m = /^(lc|sc)_([a-z0-9]{1,64})\.svg$/.exec(c.req.param("file"));
    const icon = m ? icons.icon(m[2]!, m[1] as IconSize) : null;
    if (!icon) return c.text("Not found", 404);
    const cache = c.req.param("hash") === hash ? "public, max-age=31536000, immutable" : "no-cache";
    const headers = { ETag: icon.etag, "Cache-Control": cache, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'", "X-Content-Type-Options": "nosniff" };
    if (c.req.header("If-None-Match") === icon.etag) return c.body(null, 304, headers);
    return c.body(icon.svg as Uint8Array<ArrayBuffer>, 200, { ...headers, "Content-Type": "image/svg+xml" });
  });
  app.get("/browser/:hash/:file", (c) => {
    const asset = client.asset(c.req.param("file"));
    if (!asset) return c.text("Not found", 404);
    // The hash is made from these files' contents: under the current one they never change, and
    // a page opened again does not wait for them (under an old hash: served, but not kept).
    const cache = c.req.param("hash") === hash ? "public, max-age=31536000, immutable" : "no-cache";
    return c.body(asset.body, 200, { "Content-Type": asset.contentType, "Cache-Control": cache });
  });

  // Ready for an editor: the idle kits are warm (the server listens earlier, so that a stop is
  // heard from the start). The launcher logs service_ready only after this answers.
  app.get("/ed/ready", (c) => (deps.kitsWarm() ? c.json({ ready: true }) : c.json({ ready: false }, 503)));

  app.get("/ed/getMetrics", (c) => {
    if (!admin.authorised(c.req.raw.headers)) return c.text("Unauthorized", 401, { "WWW-Authenticate": 'Basic realm="online"' });
    const k = pool.counts();
    return c.body(metricsText({ docs: docs(), kits: { ...k, spawned: pool.spawned, crashes: pool.crashes }, startedAt, saves: deps.saves }), 200, {
      "Content-Type": "text/plain; version=0.0.4",
    });
  });

  // A file the page asked for with `downloadas` (exports.ts): the id is the credential, used once.
  app.get("/ed/:doc/download/:id", (c) => {
    const id = c.req.param("id");
    const d = /^[0-9a-f]{32}$/.test(id) ? downloads.take(id) : null;
    if (!d) return c.text("Not found", 404, { "Cache-Control": "no-store" });
    const inline = c.req.query("inline") === "1" && d.contentType === "application/pdf";
    return c.body(d.body, 200, {
      "Content-Type": d.contentType,
      "Content-Disposition": inline ? attachment(d.name).replace(/^attachment/, "inline") : attachment(d.name),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
  });

  // Conversion for internal callers (the inner proxy answers 404 from outside).
  const convert = async (c: Context) => {
    const body: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    const file = body.data ?? body.file;
    const format = String(c.req.param("format") ?? body.format ?? "").toLowerCase();
    if (!(file instanceof File) || !/^[a-z0-9]{1,8}$/.test(format)) return c.text("Bad request", 400);
    const r = await convertWithKit(pool, deps.convertRoot, file, format);
    if ("error" in r) {
      log.warn("convert_failed", { error: r.error });
      return c.text("Conversion failed", 400);
    }
    return c.body(r.bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/octet-stream" });
  };
  app.post("/ed/convert-to", convert);
  app.post("/ed/convert-to/:format", convert);
  app.post("/led/convert-to", convert);
  app.post("/led/convert-to/:format", convert);

  app.notFound((c) => c.text("Not found", 404));
  return app;
}
