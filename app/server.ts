// Builds every long-lived part of the service from a Config, once, and serves the app.
// Used by the entry file, by end-to-end tests (on a free loopback port) and by benchmarks.

import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { systemClock, type Clock } from "./clock";
import { namedSecrets, type Config } from "./config";
import { WorkerPool } from "./docbuilder/pool";
import { startBuildThread } from "./docbuilder/build-thread";
import { JobStore } from "./docbuilder/jobs";
import { DocBuilderService, type SourceFetcher } from "./docbuilder/service";
import { docbuilderLimits, type EntitlementSource } from "./editions/limits";
import { LicenseSource, resolveInstanceId } from "./editions/license-source";
import { BUILD_DATE } from "./editions/build-info";
import { createAuthenticator } from "./http/auth";
import { createApp } from "./http/app";
import { createMetrics } from "./metrics";
import type { Logger } from "./log";
import { safeFetch } from "./net/safe-fetch";
import { fetchErrorToService } from "./net/fetch-errors";
import { RateLimiter } from "./docbuilder/rate-limit";
import { CallbackSender } from "./callbacks/sender";
import { parseAllowList, type AllowList } from "./net/ssrf";
import { ownListeners } from "./net/own-listeners";
import { connectionCap } from "./editions/license";
import { ConnectionCounter } from "./gate/counting";
import { EdsrvSampler } from "./gate/sampler";
import { EditorLoad } from "./gate/editor-load";
import { Admission, checkFileInfoFetcher, wopiAllowedHostNames } from "./gate/admission";
import { documentKeyer } from "./editing-uri";
import { parseAliasGroups } from "./alias-groups";
import { UsageWriter } from "./gate/usage-csv";
import { createEmbedGate, type EmbedGate } from "./embed/embed-gate";
import type { SourceDownload } from "./embed/documents";
import { demoTargets } from "./demo/local-targets";
import { DemoReceiver } from "./demo/receiver";

export interface RunningService {
  url: string;
  license: LicenseSource;
  pool: WorkerPool;
  docbuilder: DocBuilderService;
  counter: ConnectionCounter;
  sampler: EdsrvSampler;
  admission: Admission;
  usage: UsageWriter;
  embed: EmbedGate;
  /** Every route the app serves (method and pattern): the API reference is checked against them. */
  routes: { method: string; path: string }[];
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  entitlements?: EntitlementSource;
  /** Port 0 picks a free one (tests). */
  port?: number;
  hostname?: string;
  /** Replaces the worker command (fault tests use a worker that misbehaves on purpose). */
  workerCommand?: string[];
  /** How long a worker may take to close a document after its answer (the job's run time by default; tests go faster). */
  workerCloseTimeoutMs?: number;
  /** Sample period of the editing server's admin channel (10 s by the spec; tests go faster). */
  sampleIntervalMs?: number;
  /** How long a new editing session's seat is held (the spec's 60 s unless a test shortens it). */
  pendingTtlMs?: number;
  /** No view for this long closes an embedded document (30 s by the spec; tests go faster). */
  embedClosedAfterMs?: number;
  /** Waits between callback attempts (10 s and 60 s by the spec; tests go faster). */
  callbackRetryDelaysMs?: number[];
  /** Replaces the embed gate's source download (benchmarks). */
  embedDownload?: SourceDownload;
}

const SOURCE_DOWNLOAD_TIMEOUT_MS = 60_000;

export function sourceFetcher(allow: AllowList): SourceFetcher {
  return async (url, toFile, maxBytes) => {
    try {
      await safeFetch(url, { toFile, maxBytes, timeoutMs: SOURCE_DOWNLOAD_TIMEOUT_MS, allow, followRedirects: 5, requireOk: true });
      return { filename: path.basename(new URL(url).pathname) };
    } catch (e) {
      throw fetchErrorToService(e, maxBytes);
    }
  };
}

/** The parts of DocBuilder: every role runs them. */
interface DocBuilderParts {
  clock: Clock;
  dataDir: string;
  instanceId: string;
  license: LicenseSource;
  jobs: JobStore;
  pool: WorkerPool;
  docbuilder: DocBuilderService;
  callbacks: CallbackSender;
  metrics: ReturnType<typeof createMetrics>;
  fetchAllow: AllowList;
  own: ReturnType<typeof ownListeners>;
}

async function startDocBuilderParts(config: Config, logger: Logger, opts: StartOptions, demo: ReturnType<typeof demoTargets> | null): Promise<DocBuilderParts> {
  const clock = opts.clock ?? systemClock;
  const dataDir = config.dataDir;
  mkdirSync(dataDir, { recursive: true });
  const scratchRoot = path.join(dataDir, "scratch");
  mkdirSync(scratchRoot, { recursive: true });

  const instanceId = resolveInstanceId(config.gate.instanceId, dataDir);
  const license = new LicenseSource({
    envToken: config.license.token,
    file: config.license.file,
    publicKey: config.license.pubkey,
    instanceId,
    devMode: config.devMode,
    clock,
    logger,
    buildDate: BUILD_DATE,
  });
  license.start();

  const jobs = new JobStore(path.join(dataDir, "jobs"), clock, `${config.publicUrl}/v1/files/`, config.docbuilder.instance);

  const docbuilderEntitlements = opts.entitlements ?? license.docbuilderSource();
  const lowerOnly = { maxFileMbCap: config.docbuilder.maxFileMbCap, jobTimeoutSecondsCap: config.docbuilder.jobTimeoutSecondsCap };
  const enginesRoot = path.join(dataDir, "engines");
  mkdirSync(enginesRoot, { recursive: true });
  for (const name of readdirSync(enginesRoot)) if (!name.startsWith(`worker-${process.pid}-`)) rmSync(path.join(enginesRoot, name), { recursive: true, force: true });
  const pool = new WorkerPool({
    size: config.docbuilder.workers,
    parallelJobs: () => docbuilderLimits(docbuilderEntitlements.current(), config.docbuilder.workers, lowerOnly).parallel_jobs,
    memoryLimitBytes: config.engineMemoryLimitMb * 1024 * 1024,
    programDir: config.engineProgramDir,
    maxJobs: config.docbuilder.workerMaxJobs,
    maxAgeMs: config.docbuilder.workerMaxAgeMinutes * 60_000,
    profileRoot: path.join(dataDir, "profiles"),
    documentRoot: enginesRoot,
    logger,
    logLevel: config.logLevel,
    clock,
    workerCommand: opts.workerCommand,
    closeTimeoutMs: opts.workerCloseTimeoutMs,
  });
  // The build thread loads its modules while the workers start: the first build does not wait for that.
  await Promise.all([pool.start(), startBuildThread()]);
  jobs.startSweeping();

  const own = ownListeners(config.ownPorts);
  const fetchAllow = parseAllowList(config.fetchAllowHosts, own);
  const metrics = createMetrics();
  const callbacks = new CallbackSender({
    allow: fetchAllow,
    logger,
    onOutcome: (kind, outcome) => metrics.callback(kind, outcome),
    clock,
    retryDelaysMs: opts.callbackRetryDelaysMs,
    fetchImpl: demo ? demo.callbackFetch((url, o) => safeFetch(url, o)) : undefined,
  });

  const docbuilder = new DocBuilderService({
    pool,
    jobs,
    clock,
    logger,
    entitlements: docbuilderEntitlements,
    lowerOnly,
    workers: config.docbuilder.workers,
    fetchSource: sourceFetcher(fetchAllow),
    fetchAllow,
    scratchRoot,
    rate: new RateLimiter(clock),
    metrics,
    sendJobCallback: (job, url, onState) => {
      const finished = job();
      const event = finished.status === "done" ? "job.done" : "job.failed";
      void callbacks.send({
        kind: "job",
        event,
        url,
        // Made at each attempt: the job as GET /v1/jobs/{id} answers it then.
        body: () => ({ event, job: job() }),
        secret: config.docbuilder.callbackSecret,
        requestId: finished.request_id,
        onState: (s) => onState({ delivery_id: s.delivery_id, state: s.state, attempts: s.attempts, last_status: s.last_status, last_attempt_at: s.last_attempt_at, last_error: s.last_error }),
      });
    },
  });
  return { clock, dataDir, instanceId, license, jobs, pool, docbuilder, callbacks, metrics, fetchAllow, own };
}

/** What the HTTP app needs of DocBuilder, whatever the role. */
function docbuilderAppDeps(config: Config, logger: Logger, parts: DocBuilderParts) {
  const { clock, metrics, docbuilder, pool } = parts;
  return {
    logger,
    metrics,
    metricsPassword: config.online.adminPassword,
    docbuilder,
    pool,
    authenticate: createAuthenticator({ apiKeys: config.docbuilder.apiKeys, jwtSecret: config.docbuilder.jwtSecret, clock }),
    devMode: config.devMode,
    now: () => clock.now(),
  };
}

function serve(config: Config, opts: StartOptions, fetch: (req: Request) => Response | Promise<Response>) {
  const server = Bun.serve({
    hostname: opts.hostname ?? config.appListen.hostname,
    port: opts.port ?? config.appListen.port,
    fetch,
    // Conversions of large files take minutes; the request must not be cut by an idle timer.
    idleTimeout: 0,
    maxRequestBodySize: 1024 * 1024 * 1024,
  });
  const host = server.hostname ?? "127.0.0.1";
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  const reachable = `http://${["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host}:${server.port}`;
  return { server, url, reachable };
}

/** A DocBuilder instance alone (SVC_ROLE=docbuilder): /v1/ only; no gate, no embedding, no editing server. */
export interface RunningDocBuilder {
  url: string;
  license: LicenseSource;
  pool: WorkerPool;
  docbuilder: DocBuilderService;
  routes: { method: string; path: string }[];
  stop(graceMs?: number): Promise<void>;
}

export async function startDocBuilderOnly(config: Config, logger: Logger, opts: StartOptions = {}): Promise<RunningDocBuilder> {
  const parts = await startDocBuilderParts(config, logger, opts, null);
  const { license, jobs, pool, docbuilder, callbacks, metrics } = parts;
  metrics.watch({ pool: () => ({ ...pool.status(), queued: pool.queueStats().queued }) });
  const app = createApp(docbuilderAppDeps(config, logger, parts));
  const { server, url } = serve(config, opts, app.fetch);
  logger.info("service_listening", { url, role: "docbuilder", instance: config.docbuilder.instance, workers: config.docbuilder.workers, core: pool.core() });
  return {
    url,
    license,
    pool,
    docbuilder,
    routes: app.routes.map((r) => ({ method: r.method, path: r.path })),
    async stop(graceMs = 10_000) {
      server.stop(false);
      await pool.shutdown(graceMs);
      await callbacks.close();
      license.stop();
      jobs.stop();
      server.stop(true);
      logger.info("service_stopped");
    },
  };
}

export async function startService(config: Config, logger: Logger, opts: StartOptions = {}): Promise<RunningService> {
  let listening = "";
  const demo = config.devMode ? demoTargets(config.publicUrl, () => listening) : null;
  const parts = await startDocBuilderParts(config, logger, opts, demo);
  const { clock, dataDir, instanceId, license, jobs, pool, docbuilder, callbacks, metrics, fetchAllow, own } = parts;

  const connectionLimit = () => connectionCap(license.status(), config.gate.connectionCap ?? null).limit;
  const edition = () => license.gate().edition;
  const counter = new ConnectionCounter({ clock, limit: connectionLimit, intervalMs: opts.sampleIntervalMs, pendingTtlMs: opts.pendingTtlMs });
  // One key per file whatever alias reached it, in /svc/auth and in samples alike (the editing
  // server maps aliases the same way), so pending entries and grace slots meet their document.
  const keyOf = documentKeyer(parseAliasGroups(config.online.aliasGroups, (item) => logger.warn("alias_group_invalid", { item })));
  // The embed gate is built below; admission and the sampler reach it through these closures.
  let embed: EmbedGate | null = null;
  const editorLoad = new EditorLoad(counter.intervalMs);
  const sampler = new EdsrvSampler({
    baseUrl: config.online.url,
    user: config.online.adminUser,
    password: config.online.adminPassword,
    adminWsPath: config.online.adminWsPath,
    counter,
    clock,
    logger,
    intervalMs: opts.sampleIntervalMs,
    keyOf,
    ownDocument: (docKey) => embed?.ownDocument(docKey) ?? false,
    onSample: (docs, at) => embed?.onSample(docs, at),
    // The editing server's typing lag is read only for the operator's setting that uses it.
    onInputLag: config.gate.refuseWhenSaturated ? (lag, at) => editorLoad.record(lag, at) : undefined,
  });
  const admission = new Admission({
    counter,
    clock,
    edition,
    wopiAllowedHosts: config.gate.wopiAllowedHosts,
    keyOf,
    userCanWrite: checkFileInfoFetcher(parseAllowList([...config.fetchAllowHosts, ...wopiAllowedHostNames(config.gate.wopiAllowedHosts)], own), 2000),
    logger,
    ownDocument: (docKey) => embed?.ownDocument(docKey) ?? false,
    embeddedSession: (docKey, token) => embed?.embeddedSession(docKey, token) ?? null,
    downgradeEmbedded: (docKey, token, limit) => embed?.downgradeEmbedded(docKey, token, limit),
    // Off by default (spec rule 3 admits below the cap whatever the load): an operator's choice.
    saturation: config.gate.refuseWhenSaturated ? (now) => editorLoad.saturated(now) : undefined,
  });
  embed = createEmbedGate({
    config,
    clock,
    logger,
    sender: callbacks,
    fetchAllow,
    wopiBase: config.gate.wopiBase,
    keyOf,
    admitEdit: (docKey, token) => admission.admitEmbedded(docKey, token),
    staleAfterMs: counter.staleAfterPeriods * counter.intervalMs,
    sampleIntervalMs: counter.intervalMs,
    closedAfterMs: opts.embedClosedAfterMs,
    download: opts.embedDownload,
    localTargets: demo ?? undefined,
  });
  embed.start();
  const usage = new UsageWriter({ dataDir, counter, clock, edition, logger });
  sampler.start();
  usage.start();
  const pruner = setInterval(() => admission.prune(), 60_000);
  pruner.unref?.();

  metrics.watch({
    pool: () => ({ ...pool.status(), queued: pool.queueStats().queued }),
    connections: () => counter.snapshot(clock.now()),
    embed: () => embed.counts(),
  });
  const app = createApp({
    ...docbuilderAppDeps(config, logger, parts),
    gate: {
      config,
      license,
      instanceId,
      workers: config.docbuilder.workers,
      now: () => clock.now(),
      counter,
      edsrv: sampler,
      admission,
      embed,
      demo: config.devMode
        ? {
            receiver: new DemoReceiver(config.embed.callbackSecret),
            publicUrl: config.publicUrl,
            jwtSecret: config.embed.jwtSecret,
            tokenCheck: {
              auth: { jwtSecret: config.embed.jwtSecret, allowUnsigned: config.embed.allowUnsigned },
              secrets: namedSecrets(config),
              allow: fetchAllow,
              exempt: (url: string) => demo?.local(url) != null,
            },
          }
        : undefined,
    },
  });

  const { server, url, reachable } = serve(config, opts, app.fetch);
  listening = reachable;
  logger.info("service_listening", { url, workers: config.docbuilder.workers, core: pool.core() });

  return {
    url,
    license,
    pool,
    docbuilder,
    counter,
    sampler,
    admission,
    usage,
    embed,
    routes: app.routes.map((r) => ({ method: r.method, path: r.path })),
    async stop(graceMs = 10_000) {
      // Stop accepting, let running work finish (or fail it cleanly), then stop the workers.
      server.stop(false);
      sampler.stop();
      usage.stop();
      clearInterval(pruner);
      await pool.shutdown(graceMs);
      // Retries still waiting end as failed; an attempt under way finishes.
      await callbacks.close();
      embed!.stop();
      license.stop();
      jobs.stop();
      server.stop(true);
      logger.info("service_stopped");
    },
  };
}
