// The editing server: createEdsrv() builds the kit pool, the document brokers and the admin hub,
// serves the HTTP routes (routes.ts) and the WebSockets (websocket.ts) with Bun.serve, recovers
// the documents an earlier process left in journals, and stops (storing what is modified).
// main.ts is thin.

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Server } from "bun";
import type { Config } from "../config";
import type { Logger } from "../log";
import { parseAllowList } from "../net/ssrf";
import { ownListeners } from "../net/own-listeners";
import { AdminHub } from "./admin";
import { InputLagMeter } from "./input-lag";
import { buildBrowserClient } from "./browser-bundle";
import { EDSRV_VERSION } from "./discovery";
import { DocumentBroker, PRELOAD_WAIT_MS } from "./documents";
import { Journal, journalRoot } from "./journal";
import type { IdleSaveTimers } from "./document-state";
import { docKeyOf, matchGroup, parseAliasGroups, type AliasGroup } from "../alias-groups";
import { Downloads } from "./exports";
import type { WatchdogBounds } from "./kit-watchdog";
import { KitPool } from "./kits";
import { keyTableSize, loadKeyTable } from "./key-door";
import { createEdsrvApp } from "./routes";
import { wopiAuthFrom, WopiClient } from "./wopi-client";
import { createEdsrvSockets, type WsData } from "./websocket";
import { COLIBRE_SVG_ZIP, IconTheme } from "./icons";

export { parseDocWsUrl } from "./websocket";

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
  /** How long a kit may leave requests unanswered before it is ended and its document recovered (default kit-watchdog.ts). */
  watchdog?: WatchdogBounds;
  /** Handed to every kit's environment as it is (tests: SVC_KIT_TEST_STALL_TEXT, see workers/kit/input.ts). */
  kitEnvironment?: Record<string, string>;
}

/** Documents loaded ahead of their session (DocumentBroker.preload) at one time. */
const MAX_PRELOADS = 2;

/** Work folders of an earlier process (it died): what they held that matters is in the journals. */
function removeEarlierWorkFolders(workRoot: string) {
  for (const name of readdirSync(workRoot)) {
    if (!name.startsWith(`doc-${process.pid}-`) && !name.startsWith(`kit-${process.pid}-`)) rmSync(path.join(workRoot, name), { recursive: true, force: true });
  }
}

/**
 * Documents that were open when the previous process ended, with input only their journal holds:
 * each is replayed into a kit and stored through its WOPI host (DocumentBroker.recoverJournal).
 */
function recoverJournals(root: string, groups: AliasGroup[], log: Logger, brokerFor: (wopiSrc: string, group: AliasGroup) => DocumentBroker) {
  for (const dir of Journal.list(root)) {
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
}

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
  // The key door's table: which command each shortcut key runs, from the engine's own accelerator
  // configuration (key-door.ts); without it, keys with Ctrl or Alt and function keys are refused.
  if (loadKeyTable(config.engineProgramDir)) log.info("key_door_ready", { keys: keyTableSize() });
  else log.warn("key_door_without_table", { program_dir: config.engineProgramDir, refused: "keys with Ctrl or Alt, function keys" });
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
    // No input may stop a document for the others: a kit that stops answering is ended and its document recovered.
    watchdog: deps.watchdog,
    kitEnvironment: deps.kitEnvironment,
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
    // A picture's URL (Action_InsertGraphic) is fetched as every user-supplied URL is: public
    // addresses, and what SVC_FETCH_ALLOW_HOSTS adds; never svc's own listeners.
    fetchAllow: parseAllowList(config.fetchAllowHosts, ownListeners(config.ownPorts)),
  };
  mkdirSync(brokerDeps.workRoot, { recursive: true });
  mkdirSync(brokerDeps.journalRoot, { recursive: true, mode: 0o700 });
  removeEarlierWorkFolders(brokerDeps.workRoot);

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

  const app = createEdsrvApp({
    config,
    log,
    startedAt,
    serverId,
    client,
    icons,
    groups,
    pool,
    admin,
    downloads,
    docs,
    saves,
    convertRoot,
    kitsWarm: () => kitsWarm,
    preload,
  });
  const sockets = createEdsrvSockets({ config, log, groups, admin, inputLag, brokerFor });

  const listen = deps.listen ?? config.edsrv.listen;
  const server: Server<WsData> = Bun.serve<WsData>({
    hostname: listen.hostname,
    port: listen.port,
    idleTimeout: 120,
    fetch(req, srv) {
      const refused = sockets.upgrade(req, srv);
      return refused === null ? app.fetch(req) : refused;
    },
    websocket: sockets.websocket,
  });

  // Registered before anything is awaited: a page reconnecting while the kits start must find its
  // document recovering, not load the stored version and start a new journal over the old one.
  recoverJournals(brokerDeps.journalRoot, groups, log, brokerFor);
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
