// Starts the whole service on one machine: the gate + DocBuilder process, the editing server and
// the inner proxy (Caddy) in front of them, on an embedded default configuration (the demo on in
// development mode). Every setting can still be given in the environment; the launcher only fills
// what is unset. The processes are supervised (app/supervisor.ts): one that dies is started again,
// and SIGTERM/SIGINT stops them in order, proxy → editing server → gate, so what people typed is
// stored through a gate that is still up.

import path from "node:path";
import { watchSources } from "./dev-watch";
import { childEnvironment } from "./child-env";
import { describeEngine, probeEngine } from "./engine-program";
import { launcherEnvironment } from "./launcher-env";
import { createLogger, flushStdout, type LogLevel } from "./log";
import { Supervisor } from "./supervisor";
import { DEFAULT_PROGRAM_DIR } from "../workers/lok";
import { MINIMUM_VERSION } from "../workers/engine-identity";

const root = path.resolve(import.meta.dir, "..");

// `bun run dev` (--watch): development mode, and each process restarted when its code changes (dev-watch.ts).
const watchMode = process.argv.includes("--watch");
const { env, devMode, proxyAddress, publicPort, unsignedEmbed, demoKeyFile } = launcherEnvironment(watchMode ? { ...process.env, SVC_DEV_MODE: "1" } : process.env, root);

const logLevel = (["debug", "info", "warn", "error"].includes(env.SVC_LOG_LEVEL ?? "") ? env.SVC_LOG_LEVEL : "info") as LogLevel;
const log = createLogger(logLevel, { service: "launcher" });
let stopping = false;
const supervisor = new Supervisor({
  log: (event, fields) => (/crash_loop|timeout|not_ready/.test(event) ? log.error(event, fields) : /exited/.test(event) ? log.warn(event, fields) : log.info(event, fields)),
  onGiveUp: () => void stopAll(1),
});

async function waitFor(url: string, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await Bun.sleep(200);
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

/** Proxy first (no new connection), then the editing server (stores what is unsaved through the gate), then the gate. */
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  const t0 = Date.now();
  log.info("service_stopping", { order: ["caddy", "edsrv", "gate+docbuilder"] });
  await supervisor.stop(["caddy", "edsrv", "gate+docbuilder"]);
  log.info("service_stopped", { ms: Date.now() - t0 });
  await flushStdout();
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

// Everything the launcher says is a JSON event at its level (the spec: one JSON line per event on
// standard output, SVC_LOG_LEVEL honoured), what an operator reads included.
log.info("service_starting", { data_dir: env.SVC_DATA_DIR, dev_mode: devMode });
if (!env.SVC_DOCBUILDER_API_KEYS) log.warn("docbuilder_no_api_keys", { message: "SVC_DOCBUILDER_API_KEYS is not set: /v1 answers 401 no_keys_configured until keys are given" });
// The engines' LibreOffice, checked once before anything starts: a wrong SVC_ENGINE_PROGRAM_DIR
// stops here with what to fix, not in every engine later.
const programDir = (env.SVC_ENGINE_PROGRAM_DIR ?? "").trim().replace(/\/+$/, "") || DEFAULT_PROGRAM_DIR;
const engine = await probeEngine(programDir, env);
if (engine.unsupported) {
  log.error("engine_unsupported", {
    program_dir: programDir,
    reason: engine.unsupported,
    missing: engine.missing,
    message: `svc cannot run the LibreOffice in ${programDir}: ${engine.unsupported}. Set SVC_ENGINE_PROGRAM_DIR to a LibreOffice ${MINIMUM_VERSION.join(".")} or newer, or unset it for Debian's.`,
  });
  await flushStdout();
  process.exit(1);
}
log.info("engine_checked", { name: engine.name, version: engine.version, source: engine.source, start_ms: engine.startMs, description: describeEngine(engine) });
// A DocBuilder instance alone (one of several behind the proxy of the machine that runs the gate):
// that one process, no editing server, no proxy of its own.
const docbuilderOnly = env.SVC_ROLE === "docbuilder";
log.info("process_starting", { process: "gate+docbuilder", role: docbuilderOnly ? "docbuilder" : "all", listen: env.SVC_APP_LISTEN, note: "office-engine workers warm up first" });
try {
  await supervisor.start({
    name: "gate+docbuilder",
    file: process.execPath,
    args: [path.join(root, "app/main.ts")],
    env,
    ready: () => waitFor(`http://${env.SVC_APP_LISTEN}/v1/status`, 120_000),
    // Running jobs get 10 s; pending callbacks stay in the outbox.
    stopGraceMs: 15_000,
  });

  if (!docbuilderOnly) await startEditingAndProxy();
} catch (err) {
  log.error("service_start_failed", { error: (err as Error).message });
  await stopAll(1);
}

async function startEditingAndProxy() {
  log.info("process_starting", { process: "edsrv", listen: env.SVC_EDSRV_LISTEN, note: "idle kits warm up first" });
  await supervisor.start({
    name: "edsrv",
    file: process.execPath,
    args: [path.join(root, "app/edsrv/main.ts")],
    env,
    // Ready once its idle kits are warm: the first document opened after service_ready does not wait for a kit.
    ready: () => waitFor(`http://${env.SVC_EDSRV_LISTEN}/ed/ready`, 120_000),
    // It stores every modified document through the gate, retrying for up to 25 s.
    stopGraceMs: 30_000,
  });

  log.info("process_starting", { process: "caddy", listen: proxyAddress });
  await supervisor.start({
    name: "caddy",
    file: "caddy",
    args: ["run", "--config", path.join(root, "Caddyfile"), "--adapter", "caddyfile"],
    // What the Caddyfile reads ({$SVC_…}) and where Caddy keeps its state (HOME, XDG_*), never
    // the service's secrets (app/child-env.ts).
    env: childEnvironment(env, {
      home: env.HOME ?? "/root",
      passThrough: ["XDG_DATA_HOME", "XDG_CONFIG_HOME"],
      own: {
        SVC_PROXY_PORT: publicPort ?? "8080",
        // host:port → bind that host; :port → every interface (the Caddyfile's default).
        ...(proxyAddress.lastIndexOf(":") > 0 ? { SVC_PROXY_BIND: proxyAddress.slice(0, proxyAddress.lastIndexOf(":")).replace(/^\[|\]$/g, "") } : {}),
        SVC_APP_UPSTREAM: env.SVC_APP_LISTEN,
        SVC_EDSRV_UPSTREAM: env.SVC_EDSRV_LISTEN,
        // DocBuilder: the gate's own, or several instances (docs/operations.md "More than one machine").
        SVC_PROXY_DOCBUILDER_UPSTREAMS: env.SVC_PROXY_DOCBUILDER_UPSTREAMS || env.SVC_APP_LISTEN,
        SVC_PROXY_DOCBUILDER_OWNER: env.SVC_PROXY_DOCBUILDER_OWNER || env.SVC_APP_LISTEN,
        // Caddy's own lines at the service's level (the Caddyfile's global `log`); checked above.
        SVC_LOG_LEVEL: logLevel,
      },
    }),
    ready: () => waitFor(`${env.SVC_PUBLIC_URL}/v1/status`, 30_000),
    stopGraceMs: 5_000,
  });
}

const base = docbuilderOnly ? `http://${env.SVC_APP_LISTEN}` : env.SVC_PUBLIC_URL;
log.info("service_ready", {
  urls: docbuilderOnly
    ? { docbuilder_status: `${base}/v1/status`, formats: `${base}/v1/formats` }
    : {
        ...(devMode ? { demo: `${base}/svc/demo` } : {}),
        docbuilder_status: `${base}/v1/status`,
        formats: `${base}/v1/formats`,
        healthz: `${base}/svc/healthz`,
        embed_sessions: `${base}/svc/embed/session`,
      },
  // The development key stays in its file; only the file is named (never the key).
  ...(demoKeyFile ? { demo_api_key_file: demoKeyFile, try: `curl -H "Authorization: Bearer $(cat ${demoKeyFile})" -F file=@fixtures/hello.docx -F to=pdf ${base}/v1/convert -o hello.pdf` } : {}),
  ...(unsignedEmbed ? { unsigned_embed: "accepted (development default); set SVC_EMBED_JWT_SECRET in production" } : {}),
  stop: "Ctrl+C (SIGINT) or SIGTERM",
});
if (watchMode) {
  watchSources(root, (name, files) => {
    log.info("sources_changed", { process: name, files: files.slice(0, 3), more: Math.max(0, files.length - 3) });
    void supervisor.restart(name);
  });
  log.info("watching_sources", { folders: ["app/", "workers/", "schemas/", "Caddyfile"], note: "a change restarts the process it belongs to; the demo reloads itself" });
}
