// The editing server: HTTP routes (Hono) and WebSocket handlers (Bun.serve) over the kit pool,
// the document brokers and the admin hub. createEdsrv() builds and starts it; main.ts is thin.

import { Hono } from "hono";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Server, ServerWebSocket } from "bun";
import type { Config } from "../config";
import type { Logger } from "../log";
import { AdminHub, type AdminSocket } from "./admin";
import { InputLagMeter, isTyping } from "./input-lag";
import { buildBrowserClient } from "./browser-bundle";
import { capabilities, discoveryXml, EDSRV_VERSION } from "./discovery";
import { DocumentBroker, PRELOAD_WAIT_MS, type ClientSession } from "./documents";
import { Journal, journalRoot } from "./journal";
import type { IdleSaveTimers } from "./document-state";
import { docKeyOf, matchGroup, parseAliasGroups, type AliasGroup } from "../alias-groups";
import { parseHttpUrl } from "../net/http-url";
import { attachment, Downloads } from "./exports";
import { KitPool } from "./kits";
import { metricsText } from "./metrics";
import { renderPage } from "./page";
import { WopiClient, wopiAuthFrom } from "./wopi-client";
import { parseWsUri, requestsReadOnly, type EditTarget } from "../editing-uri";
import { MAX_FRAME_BYTES, parseArgs } from "./view-commands";
import { COLIBRE_SVG_ZIP, IconTheme, type IconSize } from "./icons";

export interface EdsrvDeps {
  config: Config;
  logger: Logger;
  /** Where kit profiles and open documents live (default <dataDir>/edsrv). */
  workRoot?: string;
  /** Overrides config.edsrv.listen (tests use port 0). */
  listen?: { hostname: string; port: number };
  idleKits?: number;
  /** The icon theme's zip (default: Debian's Colibre SVG theme). */
  iconTheme?: string;
  saveRetryMs?: number;
  autosaveSeconds?: number;
  /** Seconds after the last input a modified document is stored; default: the setting, or 0 when autosaveSeconds is 0 (tests that switch autosave off). */
  idleSaveSeconds?: number;
  /** The idle save's timer (default setTimeout): a test arms and fires it itself. */
  idleSaveTimers?: IdleSaveTimers;
  /** How long a document loaded ahead of its session waits for it (default PRELOAD_WAIT_MS). */
  preloadWaitMs?: number;
  /** How long a view made again by a recovery waits for its page (default 60 s). */
  orphanWaitMs?: number;
}

/** `load`: the arguments of a `load` frame given in the socket's URL (our editor page: loading starts at the upgrade). */
type DocWsData = { kind: "doc"; session: ClientSession; wopiSrc: string; load: string | null; broker?: DocumentBroker; closed?: boolean };
type AdminWsData = { kind: "admin"; sock: AdminSocket };
type WsData = DocWsData | AdminWsData;

/** Documents loaded ahead of their session (DocumentBroker.preload) at one time. */
const MAX_PRELOADS = 2;
const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect x="6" y="3" width="20" height="26" rx="2" fill="#fff" stroke="#555"/></svg>';

/** The document, token and permission of a document WebSocket: the gate's own reader (one parser for both). */
export function parseDocWsUrl(rawUrl: string): EditTarget | null {
  return parseWsUri(rawUrl);
}

function originAllowed(req: Request, config: Config): boolean {
  const origin = req.headers.get("origin");
  const o = origin ? parseHttpUrl(origin) : null;
  if (!o) return false;
  const allowed = new Set<string>();
  const host = req.headers.get("host");
  if (host) allowed.add(host.toLowerCase());
  if (config.online.serverName) allowed.add(config.online.serverName.replace(/^https?:\/\//, "").replace(/\/.*$/, "").toLowerCase());
  return allowed.has(o.host.toLowerCase());
}

let sessionCounter = 0;
const newSessionId = () => (++sessionCounter).toString(16).padStart(3, "0");

export async function createEdsrv(deps: EdsrvDeps) {
  const { config } = deps;
  const log = deps.logger.child({ component: "edsrv" });
  const startedAt = Date.now();
  const serverId = randomBytes(4).toString("hex");
  // Before anything listens: the page's scripts are bundled once (their hash names /browser/<hash>/,
  // with the icon theme's stamp: a LibreOffice upgrade with new pictures is a new hash).
  const icons = await IconTheme.open(deps.iconTheme ?? COLIBRE_SVG_ZIP);
  const client = await buildBrowserClient({ dev: config.devMode, version: `${EDSRV_VERSION}+${icons.stamp}` });
  const hash = client.hash;
  const workRoot = deps.workRoot ?? path.join(config.dataDir, "edsrv");
  mkdirSync(workRoot, { recursive: true });
  const docsRoot = path.join(workRoot, "docs"), convertRoot = path.join(workRoot, "convert");
  const groups = parseAliasGroups(config.online.aliasGroups, (item) => log.warn("alias_group_invalid", { item }));
  if (!groups.length) log.warn("alias_groups_empty", { hint: "set SVC_ONLINE_ALIASGROUP1; no document can open" });

  /** The idle kits have started and warmed (GET /ed/ready). */
  let kitsWarm = false;
  const pool = new KitPool({
    idle: deps.idleKits ?? config.edsrv.idleKits,
    profileRoot: path.join(workRoot, "kits"),
    // Each kit reads only its own folder there: what it loads is handed in, what it saves moved out.
    documentRoot: docsRoot,
    logger: deps.logger,
    // What one document may cost a kit (issue 21 item 2): load time and resident memory.
    loadTimeoutMs: config.edsrv.loadTimeoutSeconds * 1000,
    memoryLimitBytes: config.engineMemoryLimitMb * 1024 * 1024,
    programDir: config.engineProgramDir,
  });
  const wopi = new WopiClient(serverId);
  const brokers = new Map<string, DocumentBroker>();
  const saves = { ok: 0, failed: 0 };
  const docs = () => [...brokers.values()];
  /** Documents closed in the last minute, and when their host last took a version. */
  const recentlyClosed: { closedAt: number; storedAt: number }[] = [];
  const inputLag = new InputLagMeter();
  const admin = new AdminHub(
    config.online.adminPassword,
    docs,
    { serverId, version: EDSRV_VERSION, hash, kitVersion: () => pool.version(), startedAt, inputLag: () => inputLag.summary() },
    deps.logger,
    (pid) => {
      const d = docs().find((x) => x.pid === pid);
      if (!d?.kit) return false;
      process.kill(pid, "SIGKILL");
      return true;
    },
  );
  const adminEvents = {
    addView: admin.addView.bind(admin),
    removeView: admin.removeView.bind(admin),
    modified: admin.modified.bind(admin),
    uploaded: (d: DocumentBroker, ok: boolean) => {
      if (ok) saves.ok++;
      else saves.failed++;
      admin.uploaded(d, ok);
    },
  };
  const downloads = new Downloads();
  const brokerDeps = {
    pool,
    wopi,
    downloads,
    logger: deps.logger,
    workRoot: docsRoot,
    autosaveSeconds: deps.autosaveSeconds ?? config.edsrv.autosaveSeconds,
    idleSaveSeconds: deps.idleSaveSeconds ?? (deps.autosaveSeconds === 0 ? 0 : config.edsrv.idleSaveSeconds),
    idleSaveTimers: deps.idleSaveTimers,
    saveRetryMs: deps.saveRetryMs ?? 2000,
    preloadWaitMs: deps.preloadWaitMs ?? PRELOAD_WAIT_MS,
    admin: adminEvents,
    onClosed: (d: DocumentBroker) => {
      if (brokers.get(d.docKey) === d) brokers.delete(d.docKey);
      // A stop counts what was stored since it began, also documents closed before it got to them.
      const now = Date.now();
      recentlyClosed.push({ closedAt: now, storedAt: d.lastStoredAt });
      while (recentlyClosed.length && recentlyClosed[0]!.closedAt < now - 60_000) recentlyClosed.shift();
    },
    journalRoot: journalRoot(workRoot),
    orphanWaitMs: deps.orphanWaitMs,
  };
  mkdirSync(brokerDeps.workRoot, { recursive: true });
  mkdirSync(brokerDeps.journalRoot, { recursive: true, mode: 0o700 });
  // Work folders of an earlier process (it died): what they held that matters is in the journals.
  for (const name of readdirSync(brokerDeps.workRoot)) {
    if (!name.startsWith(`doc-${process.pid}-`) && !name.startsWith(`kit-${process.pid}-`)) rmSync(path.join(brokerDeps.workRoot, name), { recursive: true, force: true });
  }

  const app = new Hono();
  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    const p = new URL(c.req.url).pathname;
    log.info("http_request", { method: c.req.method, path: p.startsWith("/ed/") && p.split("/").length > 3 ? "/ed/[document]" : p, status: c.res.status, ms: Math.round(performance.now() - t0) });
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

  const page = async (c: any) => {
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
    else preload(url.searchParams.get("WOPISrc") ?? "", form);
    return c.body(r.body, r.status, r.headers);
  };
  app.get("/browser/:hash/ed.html", page);
  app.post("/browser/:hash/ed.html", page);

  const adminPage = (c: any) => {
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
  app.get("/ed/ready", (c) => (kitsWarm ? c.json({ ready: true }) : c.json({ ready: false }, 503)));

  app.get("/ed/getMetrics", (c) => {
    if (!admin.authorised(c.req.raw.headers)) return c.text("Unauthorized", 401, { "WWW-Authenticate": 'Basic realm="online"' });
    const k = pool.counts();
    return c.body(metricsText({ docs: docs(), kits: { ...k, spawned: pool.spawned, crashes: pool.crashes }, startedAt, saves }), 200, {
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
  const convert = async (c: any) => {
    const body = await c.req.parseBody().catch(() => ({}));
    const file = body.data ?? body.file;
    const format = String(c.req.param("format") ?? body.format ?? "").toLowerCase();
    if (!(file instanceof File) || !/^[a-z0-9]{1,8}$/.test(format)) return c.text("Bad request", 400);
    const dir = path.join(convertRoot, randomBytes(8).toString("hex"));
    mkdirSync(dir, { recursive: true });
    const ext = (path.extname(file.name).slice(1) || "bin").toLowerCase().replace(/[^a-z0-9]/g, "");
    const input = path.join(dir, `in.${ext}`), output = path.join(dir, `out.${format}`);
    writeFileSync(input, new Uint8Array(await file.arrayBuffer()));
    let kit;
    try {
      kit = await pool.acquire();
      await kit.request("load", { path: input });
      await kit.request("save", { path: output, format });
      return c.body(readFileSync(output), 200, { "Content-Type": "application/octet-stream" });
    } catch (err) {
      log.warn("convert_failed", { error: err as Error });
      return c.text("Conversion failed", 400);
    } finally {
      if (kit) pool.release(kit);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  app.post("/ed/convert-to", convert);
  app.post("/ed/convert-to/:format", convert);
  app.post("/led/convert-to", convert);
  app.post("/led/convert-to/:format", convert);

  app.notFound((c) => c.text("Not found", 404));

  // ------------------------------------------------------------------ WebSockets

  function openDocSession(ws: ServerWebSocket<WsData>, data: DocWsData) {
    const s = data.session;
    s.send = (frame) => {
      if (data.closed) return;
      if (typeof frame === "string" && frame.startsWith("invalidatecursor:")) inputLag.answered(s);
      try {
        ws.send(frame);
      } catch {
        // socket gone
      }
    };
    s.close = () => {
      if (data.closed) return;
      data.closed = true;
      try {
        ws.close(1000);
      } catch {
        // already closed
      }
    };
  }

  function brokerFor(wopiSrc: string, group: AliasGroup): DocumentBroker {
    const key = docKeyOf(wopiSrc, group);
    let broker = brokers.get(key);
    if (!broker || broker.state === "closed") {
      broker = new DocumentBroker(wopiSrc, group, brokerDeps);
      brokers.set(key, broker);
    }
    return broker;
  }

  /**
   * The editor page was served with a token: start loading its document now (see
   * DocumentBroker.preload). At most MAX_PRELOADS documents wait for their session at a time, so
   * page requests alone cannot take the kits.
   */
  function preload(wopiSrc: string, form: Record<string, string>) {
    const auth = wopiAuthFrom((k) => form[k]);
    const group = wopiSrc ? matchGroup(groups, wopiSrc) : null;
    if (!auth.token || !group || !pool.hasReadyKit) return;
    if (docs().filter((d) => d.preloading).length >= MAX_PRELOADS) return;
    brokerFor(wopiSrc, group).preload(auth);
  }

  function onDocMessage(data: DocWsData, text: string) {
    const s = data.session;
    if (text.startsWith("load ") || text === "load") {
      if (data.broker) return;
      const args = parseArgs(text.slice(5));
      s.tileDeltas = args.tiledeltas === "1";
      if (args.firstscreen === "1") s.firstScreenArea = args.clientvisiblearea;
      const group = matchGroup(groups, data.wopiSrc);
      if (!group) {
        log.warn("ws_refused", { reason: "unauthorized_wopi_host" });
        s.send("error: cmd=internal kind=unauthorized");
        s.close();
        return;
      }
      // A document whose last view left just before this one came closes first; the view then
      // opens it again in a new broker (once), rather than being told the document is unloading.
      const attachTo = (b: DocumentBroker, again: boolean) => {
        data.broker = b;
        void b.addSession(s).then((ok) => {
          if (ok === "closed" && again && !data.closed) return attachTo(brokerFor(data.wopiSrc, group), false);
          if (ok === "closed") {
            s.send("error: cmd=internal kind=docunloading");
            s.close();
          } else if (ok && data.closed) b.removeSession(s);
        });
      };
      attachTo(brokerFor(data.wopiSrc, group), true);
      return;
    }
    if (!data.broker) return;
    if (isTyping(text)) inputLag.typed(s);
    void data.broker.handleMessage(s, text);
  }

  const listen = deps.listen ?? config.edsrv.listen;
  const server: Server<WsData> = Bun.serve<WsData>({
    hostname: listen.hostname,
    port: listen.port,
    idleTimeout: 120,
    fetch(req, srv) {
      const url = new URL(req.url);
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
        if (url.pathname === "/ed/adminws" || url.pathname === "/ed/adminws/") {
          if (!originAllowed(req, config)) return new Response("Forbidden", { status: 403 });
          const sock: AdminSocket = { authed: false, subscriptions: new Set(), send: () => {}, close: () => {} };
          if (srv.upgrade(req, { data: { kind: "admin", sock } })) return undefined;
          return new Response("Upgrade failed", { status: 400 });
        }
        const parsed = parseDocWsUrl(req.url);
        if (parsed) {
          if (!originAllowed(req, config)) {
            log.warn("ws_refused", { reason: "origin" });
            return new Response("Forbidden", { status: 403 });
          }
          const p = parsed.docParams;
          const session: ClientSession = {
            id: newSessionId(),
            send: () => {},
            close: () => {},
            auth: wopiAuthFrom((k) => p.get(k)),
            requestedReadOnly: requestsReadOnly(parsed),
            // The page's language, from the `load` arguments its URL carries (else the load frame's default).
            lang: (parsed.load && /(?:^| )lang=([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)(?: |$)/.exec(parsed.load)?.[1]) || "en-US",
            readOnly: true,
            userId: "",
            userName: "",
            joinedAt: Date.now(),
            lastActivity: Date.now(),
          };
          if (srv.upgrade(req, { data: { kind: "doc", session, wopiSrc: parsed.wopiSrcAsGiven, load: parsed.load } })) return undefined;
          return new Response("Upgrade failed", { status: 400 });
        }
        return new Response("Bad request", { status: 400 });
      }
      return app.fetch(req);
    },
    websocket: {
      // A larger frame closes that page's socket (1009) before it is read: nothing of it is kept or echoed.
      maxPayloadLength: MAX_FRAME_BYTES,
      idleTimeout: 960,
      open(ws) {
        const data = ws.data;
        if (data.kind === "admin") {
          data.sock.send = (t) => {
            try {
              ws.send(t);
            } catch {
              // gone
            }
          };
          data.sock.close = () => ws.close(1000);
          admin.sockets.add(data.sock);
        } else {
          openDocSession(ws, data);
          // The page's main thread hears "open" only after it has parsed, laid out and run its
          // scripts: with its `load` in the URL the document's view is made meanwhile.
          if (data.load !== null) onDocMessage(data, `load ${data.load}`);
        }
      },
      message(ws, message) {
        const text = typeof message === "string" ? message : Buffer.from(message).toString("utf8");
        const data = ws.data;
        if (data.kind === "admin") admin.handle(data.sock, text);
        else onDocMessage(data, text);
      },
      close(ws) {
        const data = ws.data;
        if (data.kind === "admin") {
          admin.sockets.delete(data.sock);
          return;
        }
        data.closed = true;
        data.broker?.removeSession(data.session);
      },
    },
  });

  // Documents that were open when the previous process ended, with input only their journal
  // (registered before anything is awaited: a page reconnecting while the kits start must find its
  // document recovering, not load the stored version and start a new journal over the old one)
  // holds: each is replayed into a kit and stored through its WOPI host (DocumentBroker.recoverJournal).
  for (const dir of Journal.list(brokerDeps.journalRoot)) {
    const read = Journal.read(dir);
    const group = read ? matchGroup(groups, read.meta.wopiSrc) : null;
    if (!read || !group) {
      log.warn("journal_discarded", { reason: read ? "wopi_host_not_in_alias_groups" : "incomplete" });
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    log.info("journal_found", { entries: read.entries.length, unstored: (read.entries.at(-1)?.seq ?? 0) > read.meta.storedSeq });
    void brokerFor(read.meta.wopiSrc, group).recoverJournal(dir);
  }
  await pool.start();
  kitsWarm = true;
  log.info("edsrv_started", { address: `${server.hostname}:${server.port}`, hash, idle_kits: deps.idleKits ?? config.edsrv.idleKits });


  return {
    server,
    url: `http://${server.hostname}:${server.port}`,
    hash,
    serverId,
    pool,
    admin,
    brokers,
    /** Stores every modified document through its WOPI host (retrying until `graceMs` after `stopBegan` is spent), then stops. */
    async close(graceMs = 25_000, stopBegan = Date.now()) {
      const deadline = stopBegan + graceMs;
      server.stop(false); // no new page or connection; the open ones stay until their document is stored
      // Closed since the stop began, stored on the way: their last page left when the proxy
      // stopped and their exit save came before this stop reached them.
      const storedOnClose = recentlyClosed.filter((c) => c.closedAt >= stopBegan && c.storedAt >= stopBegan).map(() => "stored" as const);
      const outcomes = [...storedOnClose, ...(await Promise.all(docs().map((d) => d.shutdown(deadline, stopBegan).catch(() => "lost" as const))))];
      const count = (o: string) => outcomes.filter((x) => x === o).length;
      if (outcomes.length) log.info("documents_stored_at_stop", { documents: outcomes.length, stored: count("stored"), unmodified: count("unmodified"), quarantined: count("quarantined"), lost: count("lost") });
      downloads.clear();
      server.stop(true);
      await pool.close();
    },
  };
}

export type Edsrv = Awaited<ReturnType<typeof createEdsrv>>;
