// DocBuilder's domain: conversion, builds, template filling and extraction on the worker pool,
// jobs and result files. It takes web-standard Requests and returns plain data; it knows no Hono.

import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Clock } from "../clock";
import { ServiceError } from "../errors";
import type { Logger } from "../log";
import { docbuilderLimits, type DocBuilderLimits, type EntitlementSource, type LowerOnlySettings } from "../editions/limits";
import { contentTypeOf, exportFilterFor, extensionOf, formatOf, type Family } from "../../workers/formats";
import type { ConvertResult, MetaResult, PagesResult, TextResult, ThumbnailResult, WorkerRequest } from "../../workers/protocol";
import { readWorkRequest, sanitizeName, tooLarge, type Intake, type Source } from "./intake";
import type { CallbackState, JobKind, JobStore, JobView } from "./jobs";
import type { WorkerPool } from "./pool";
import { requestTimeLimits } from "./time-limits";
import { zodErrors } from "../validation";
import type { RateLimiter, RateTicket } from "./rate-limit";
import { precheckUrl } from "../net/fetch-errors";
import { checkMacros } from "../templates/macros";
import { CHART_WORKBOOK_FORMATS, keepChartWorkbooks, originalHasChartWorkbooks } from "../ooxml/chart-workbooks";
import { checkInflatedSizes, checkZipContainer } from "../zip-guard";
import { budgeted, type DocumentSize } from "./document-budget";
import { countUnits, familyOf, nativeFormat, prepareScript, requestedOutputs, scriptInvalid, validateScript } from "../svcscript";
import { buildOffThread, renderOffThread } from "./build-thread";
import type { AllowList } from "../net/ssrf";
import type { Metrics } from "../metrics";
import { BuildParams as buildParams, ConvertParams as convertParams, ExtractParams as extractParams, TemplateParams as templateParams } from "../../schemas/docbuilder";

/** Downloads an outside URL to a file under the SSRF rules; throws ServiceError. */
export type SourceFetcher = (url: string, toFile: string, maxBytes: number) => Promise<{ filename: string }>;

/**
 * Sends the signed job callback; reports each delivery state change back to the job. `job` reads
 * the job as GET /v1/jobs/{id} answers it now: each attempt sends what it reads when it is made.
 */
export type JobCallbackHook = (job: () => JobView, callbackUrl: string, onState: (state: Omit<CallbackState, "url_host">) => void) => void;

export interface DocBuilderDeps {
  pool: WorkerPool;
  jobs: JobStore;
  clock: Clock;
  logger: Logger;
  entitlements: EntitlementSource;
  lowerOnly: LowerOnlySettings;
  workers: number;
  fetchSource: SourceFetcher;
  /** SVC_FETCH_ALLOW_HOSTS, parsed: internal hosts outside URLs may still reach. */
  fetchAllow: AllowList;
  scratchRoot: string;
  rate: RateLimiter;
  sendJobCallback?: JobCallbackHook;
  /** Job durations by kind, family and outcome (app/metrics.ts). */
  metrics?: Pick<Metrics, "job">;
}

/** One engine request of a job; the job runner adds the ids. */
type EngineStep = DistributiveOmit<WorkerRequest, "id" | "requestId">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface JobContext {
  /** Runs one engine request on the pool under the job's time limits. */
  run<T>(request: EngineStep): Promise<T>;
  /** Records a result file; one over max_file_mb fails the job with file_too_large. */
  output(file: string, filename: string, format: string, pages: number): Promise<void>;
  /**
   * Pages of a file made outside the engine (a native build output, a filled template), counted
   * the way a conversion counts its source: loaded by the engine on the pool, pages of a text as
   * laid out, sheets of a spreadsheet, slides of a presentation. Spec: `pages` is an integer.
   */
  pagesOf(file: string): Promise<number>;
}

interface PreparedJob {
  async: boolean;
  callbackUrl?: string;
  /** The conversion pair, for unsupported_format details. */
  pair?: { from: string | undefined; to: string };
  logFields: Record<string, unknown>;
  /** The source a caller sent, when its size bounds the engine time (document-budget.ts). */
  size?: DocumentSize;
  work: (ctx: JobContext) => Promise<void>;
}

export type JobOutcome =
  | { mode: "sync"; job: JobView; file: string }
  | { mode: "async"; job: JobView };

export type ExtractOutcome =
  | { what: "text"; result: TextResult }
  | { what: "meta"; result: MetaResult }
  | { what: "thumbnail"; result: ThumbnailResult; png: Uint8Array };

export class DocBuilderService {
  private readonly startedAt: number;

  constructor(private readonly deps: DocBuilderDeps) {
    this.startedAt = deps.clock.now();
    // Compiles the svcscript schema now (~160 ms) rather than on the first build request.
    validateScript({});
  }

  limits(): DocBuilderLimits {
    return docbuilderLimits(this.deps.entitlements.current(), this.deps.workers, this.deps.lowerOnly);
  }

  edition() {
    return this.deps.entitlements.current().edition;
  }

  features() {
    return this.deps.entitlements.current().features;
  }

  /** Counts one request against the instance's rate limits; throws 429 rate_limited. */
  takeRate(): RateTicket {
    const l = this.limits();
    return this.deps.rate.take({ perMinute: l.rate_per_minute, perDay: l.rate_per_day });
  }

  usage() {
    const l = this.limits();
    const q = this.deps.pool.queueStats();
    return { ...this.deps.rate.usage({ perMinute: l.rate_per_minute, perDay: l.rate_per_day }), running_jobs: q.running, queued_jobs: q.queued };
  }

  uptimeSeconds() {
    return Math.floor((this.deps.clock.now() - this.startedAt) / 1000);
  }

  async convert(req: Request, requestId: string, caller?: string): Promise<JobOutcome> {
    return this.runJob("convert", requestId, caller, async ({ dir, limits }) => {
      const intake = await readWorkRequest(req, dir, limits.max_file_mb);
      const params = parse(convertParams, intake.params);
      this.checkCallback(params, limits);
      const source = this.requireSource(intake);
      const from = params.from ?? sourceExtension(source);
      const family = checkPair(from, params.to);
      const { path: input, size } = await this.materialise(source, dir, from, limits);
      const base = baseName(source);
      return {
        // What the engine may spend on it grows with what was sent (document-budget.ts).
        size,
        async: params.async,
        callbackUrl: params.callback_url,
        pair: { from, to: params.to },
        logFields: { from, to: params.to, family, size: size.bytes },
        work: async (ctx) => {
          const output = path.join(dir, `${base}.${params.to}`);
          const result = await ctx.run<ConvertResult>({ op: "convert", input, output, to: params.to, password: params.options.password });
          await this.keepChartWorkbooks(from, input, params.to, output, requestId);
          await ctx.output(output, `${base}.${params.to}`, params.to, result.pages);
        },
      };
    });
  }

  /**
   * LibreOffice drops the workbooks of an OOXML file's charts (app/ooxml/chart-workbooks.ts): an
   * OOXML output of an OOXML source that had them gets them back, rebuilt from the charts' data.
   */
  private async keepChartWorkbooks(from: string | undefined, input: string, to: string, output: string, requestId: string): Promise<void> {
    if (!from || !CHART_WORKBOOK_FORMATS.has(from) || !CHART_WORKBOOK_FORMATS.has(to)) return;
    const originalHad = originalHasChartWorkbooks(new Uint8Array(await Bun.file(input).arrayBuffer()));
    if (!originalHad) return;
    const saved = new Uint8Array(await Bun.file(output).arrayBuffer());
    const kept = await keepChartWorkbooks(originalHad, saved, this.deps.logger.child({ request_id: requestId }));
    if (kept !== saved) await Bun.write(output, kept);
  }

  /** POST /v1/build: a document from a svcscript, in every format the script asks for. */
  async build(req: Request, requestId: string, caller?: string): Promise<JobOutcome> {
    return this.runJob("build", requestId, caller, async ({ dir, limits }) => {
      const intake = await readWorkRequest(req, dir, limits.max_file_mb);
      if (intake.source) {
        throw new ServiceError("bad_request", "POST /v1/build nhận một kịch bản JSON trong trường script, không nhận tệp hay url.", { errors: [{ path: "/script", message: "send the script as JSON" }] });
      }
      const params = parse(buildParams, intake.params);
      this.checkCallback(params, limits);
      // Units first, then the schema: both before any work (the spec's script_too_large / script_invalid).
      const script = prepareScript(params.script, limits.max_script_units);
      const outputs = requestedOutputs(script);
      if (outputs.length > limits.max_outputs_per_build) {
        throw scriptInvalid([{ path: "/outputs", message: `at most ${limits.max_outputs_per_build} output(s) per build on the ${this.edition()} edition, ${outputs.length} asked` }]);
      }
      const native = nativeFormat(script);
      const base = fileNameFromTitle(script.properties?.title);
      return {
        async: params.async,
        callbackUrl: params.callback_url,
        logFields: { family: familyOf(script), native, outputs, units: countUnits(script) },
        work: async (ctx) => {
          const nativeFile = path.join(dir, `${base}.${native}`);
          await Bun.write(nativeFile, await buildOffThread(script));
          // Conversions first: each loads the native file and counts its pages, which is then also
          // the native output's count; only a build asking for the native format alone needs the
          // engine for the count. The outputs are recorded in the order asked.
          const pages = new Map<string, number>();
          for (const format of outputs) {
            if (format === native) continue;
            const result = await ctx.run<ConvertResult>({ op: "convert", input: nativeFile, output: path.join(dir, `${base}.${format}`), to: format });
            pages.set(format, result.pages);
            if (!pages.has(native)) pages.set(native, result.pages);
          }
          if (outputs.includes(native) && !pages.has(native)) pages.set(native, await ctx.pagesOf(nativeFile));
          for (const format of outputs) {
            const file = format === native ? nativeFile : path.join(dir, `${base}.${format}`);
            await ctx.output(file, `${base}.${format}`, format, pages.get(format)!);
          }
        },
      };
    });
  }

  /** POST /v1/template/render: fills a Word template (enterprise only); macros refused at once. */
  async renderTemplate(req: Request, requestId: string, caller?: string): Promise<JobOutcome> {
    const edition = this.edition();
    if (edition !== "enterprise") {
      throw new ServiceError("forbidden_feature", "Điền mẫu tài liệu chỉ có trong phiên bản enterprise.", { feature: "template/render", edition });
    }
    return this.runJob("template/render", requestId, caller, async ({ dir, limits }) => {
      const intake = await readWorkRequest(req, dir, limits.max_file_mb);
      const source = this.requireSource(intake);
      const { path: template } = await this.materialise(source, dir, sourceExtension(source), limits);
      // The template is inflated here, in this process, not by the engine: its parts may not
      // inflate past what they declare.
      await checkInflatedSizes(template);
      const bytes = new Uint8Array(await Bun.file(template).arrayBuffer());
      // Before anything else, even with async: a template with macros never goes further.
      checkMacros(bytes, source.type === "upload" ? source.filename : undefined);
      const params = parse(templateParams, { ...intake.params, data: parseJsonField(intake.params.data, "/data") });
      this.checkCallback(params, limits);
      if (params.to !== "docx" && !exportFilterFor("text", params.to)) {
        throw new ServiceError("unsupported_format", `Mẫu Word không thể xuất sang "${params.to}": hãy chọn docx, odt, pdf, rtf, txt, html hoặc doc.`, { from: "docx", to: params.to });
      }
      const base = baseName(source);
      return {
        async: params.async,
        callbackUrl: params.callback_url,
        pair: { from: "docx", to: params.to },
        logFields: { to: params.to, missing: params.options.missing, size: bytes.length },
        work: async (ctx) => {
          const filled = path.join(dir, `${base}.filled.docx`);
          await Bun.write(filled, await renderOffThread(bytes, params.data, { missing: params.options.missing }));
          if (params.to === "docx") return ctx.output(filled, `${base}.docx`, "docx", await ctx.pagesOf(filled));
          const output = path.join(dir, `${base}.${params.to}`);
          const result = await ctx.run<ConvertResult>({ op: "convert", input: filled, output, to: params.to });
          await ctx.output(output, `${base}.${params.to}`, params.to, result.pages);
        },
      };
    });
  }

  async extract(req: Request, requestId: string, what: "text" | "meta" | "thumbnail", caller?: string): Promise<ExtractOutcome> {
    const limits = this.limits();
    const dir = await mkdtemp(path.join(this.deps.scratchRoot, "x-"));
    try {
      const intake = await readWorkRequest(req, dir, limits.max_file_mb);
      const params = parse(extractParams, intake.params);
      if (what !== "thumbnail" && params.width !== undefined) {
        throw new ServiceError("bad_request", "Tham số width chỉ dùng cho /v1/extract/thumbnail.", { errors: [{ path: "/width", message: "only for thumbnail" }] });
      }
      const source = this.requireSource(intake);
      const from = params.from ?? sourceExtension(source) ?? "";
      if (from && !formatOf(from)?.source) throw new ServiceError("unsupported_format", `Định dạng nguồn "${from}" không được hỗ trợ.`, { from, to: what });
      const { path: input, size } = await this.materialise(source, dir, from || undefined, limits);
      this.checkQueue(limits);
      const id = `x_${requestId}`;
      const limitsNow = requestTimeLimits(limits, false, this.deps.clock.now());
      const { startBy } = limitsNow;
      // What the engine may spend on it grows with what was sent (document-budget.ts).
      const { runTimeoutMs, timeoutError } = budgeted(limitsNow.runTimeoutMs, size);
      const password = params.password;
      // The engine's 415 (an encryption it cannot read, a document type it has no filter for)
      // names the source format and what was asked, as every 415 does.
      const run = <T>(request: Parameters<typeof this.deps.pool.run>[0]) =>
        this.deps.pool.run<T>(request, { runTimeoutMs, startBy, caller, timeoutError }).catch((err: unknown) => {
          if (err instanceof ServiceError && err.code === "unsupported_format") throw new ServiceError("unsupported_format", err.message, { from: from || null, to: what });
          throw err;
        });
      if (what === "thumbnail") {
        const output = path.join(dir, "thumbnail.png");
        const result = await run<ThumbnailResult>({ op: "thumbnail", id, requestId, input, output, width: params.width ?? 256, password });
        return { what, result, png: new Uint8Array(await Bun.file(output).arrayBuffer()) };
      }
      if (what === "text") return { what, result: await run<TextResult>({ op: "text", id, requestId, input, password }) };
      return { what, result: await run<MetaResult>({ op: "meta", id, requestId, input, password }) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  job(id: string): JobView {
    return this.deps.jobs.get(id);
  }

  file(id: string) {
    return this.deps.jobs.file(id);
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * What every job kind shares: the job record and directory, the queue bound, sync or async,
   * time limits, output checks, the callback. `prepare` reads and checks the request (refusals
   * there discard the job) and returns the work to run on the pool.
   */
  private async runJob(kind: JobKind, requestId: string, caller: string | undefined, prepare: (job: { id: string; dir: string; limits: DocBuilderLimits }) => Promise<PreparedJob>): Promise<JobOutcome> {
    const limits = this.limits();
    const { id: jobId, dir } = this.deps.jobs.create(kind, requestId, limits.result_ttl_minutes);
    const log = this.deps.logger.child({ request_id: requestId, job_id: jobId });
    let prepared: PreparedJob;
    try {
      prepared = await prepare({ id: jobId, dir, limits });
      this.checkQueue(limits);
    } catch (err) {
      this.deps.jobs.discard(jobId);
      throw err;
    }
    log.info("job_queued", { kind, async: prepared.async, ...prepared.logFields });
    if (prepared.callbackUrl) this.deps.jobs.setCallback(jobId, initialCallbackState(prepared.callbackUrl));

    const started = this.deps.clock.now();
    const edition = requestTimeLimits(limits, prepared.async, started);
    const { startBy } = edition;
    const { runTimeoutMs, timeoutError } = prepared.size ? budgeted(edition.runTimeoutMs, prepared.size) : { runTimeoutMs: edition.runTimeoutMs, timeoutError: undefined };
    /** When the job's first request was taken by a worker: its running time counts from there. */
    let runningSince: number | undefined;
    const files: string[] = [];
    // Every engine request of the job runs under the job's one parallel slot (parallel_jobs).
    const run = <T>(request: EngineStep) =>
      this.deps.pool.run<T>({ ...request, id: jobId, requestId } as WorkerRequest, {
        // A later request of the job (a second output) gets what is left of the job's time.
        runTimeoutMs: runningSince === undefined ? runTimeoutMs : Math.max(0, runningSince + runTimeoutMs - this.deps.clock.now()),
        startBy,
        onStart: () => {
          runningSince ??= this.deps.clock.now();
          this.deps.jobs.markRunning(jobId);
        },
        job: jobId,
        timeoutError,
        // Callers take turns for the slots (app/docbuilder/fair-queue.ts).
        caller,
      });
    const ctx: JobContext = {
      run,
      // The engine counts pages exactly as a conversion counts its source, and does nothing else.
      pagesOf: async (file) => (await run<PagesResult>({ op: "pages", input: file })).pages,
      output: async (file, filename, format, pages) => {
        // Synchronous: a file system call on the event loop costs less than a hop to the I/O threads and back.
        const size = statSync(file).size;
        if (size > limits.max_file_mb * 1024 * 1024) throw tooLarge(limits.max_file_mb);
        this.deps.jobs.addOutput(jobId, limits.result_ttl_minutes, { path: file, filename, format, contentType: contentTypeOf(format), size, sha256: await sha256File(file, size), pages });
        files.push(file);
      },
    };
    const finished = prepared.work(ctx).finally(() => this.deps.pool.release(jobId)).then(
      () => null,
      (err) => {
        const e = err instanceof ServiceError ? err : new ServiceError("internal");
        if (!(err instanceof ServiceError)) log.error("job_internal_error", { error: err as Error });
        // The worker knows the pair failed; only here is it known which pair was asked for. A 415
        // always has detail.from and detail.to (the spec), null where a job names none (a build).
        // What the error found itself stands: a template's own sniffed kind (`from`) and its reason.
        return e.code === "unsupported_format" ? unsupportedPair(e, prepared.pair) : e;
      },
    ).then((error) => {
      this.deps.jobs.finish(jobId, limits.result_ttl_minutes, error);
      const ms = this.deps.clock.now() - started;
      if (error) log.warn("job_failed", { code: error.code, ms });
      else log.info("job_done", { ms, outputs: files.length });
      this.deps.metrics?.job(kind, String(prepared.logFields.family ?? "none"), error ? "failed" : "done", ms / 1000);
      return error;
    });

    if (prepared.async) {
      finished.then(() => this.afterAsync(jobId, prepared.callbackUrl));
      return { mode: "async", job: this.deps.jobs.get(jobId) };
    }
    const error = await finished;
    if (error) throw error;
    return { mode: "sync", job: this.deps.jobs.current(jobId), file: files[0]! };
  }

  /** callback_url: only where the edition has it, only with async, and never to a forbidden address. */
  private checkCallback(params: { callback_url?: string; async: boolean }, limits: DocBuilderLimits) {
    if (params.callback_url === undefined) return;
    if (!limits.callback) throw forbiddenFeature("callback", this.edition());
    precheckUrl(params.callback_url, this.deps.fetchAllow);
    if (!params.async) {
      throw new ServiceError("bad_request", "callback_url chỉ dùng được với async=true.", { errors: [{ path: "/callback_url", message: "requires async=true" }] });
    }
  }

  private afterAsync(jobId: string, callbackUrl: string | undefined) {
    if (!callbackUrl || !this.deps.sendJobCallback) return;
    const host = initialCallbackState(callbackUrl).url_host;
    // Each attempt carries the job as GET /v1/jobs/{id} answers it when that attempt is sent (spec:
    // "the same object stands under `job` in job callbacks"), its `callback` delivery state
    // included: the delivery id and the attempts made before it. A job swept meanwhile (its
    // results' time is up) keeps the last state read.
    let last = this.deps.jobs.get(jobId);
    const current = () => {
      try {
        last = this.deps.jobs.get(jobId);
      } catch {
        // gone: the last read stands
      }
      return last;
    };
    this.deps.sendJobCallback(current, callbackUrl, (state) => this.deps.jobs.setCallback(jobId, { url_host: host, ...state }));
  }

  /** Puts the source at `<dir>/source.<from>`: uploads are renamed, URLs downloaded under the SSRF rules. */
  private async materialise(source: Source, dir: string, from: string | undefined, limits: DocBuilderLimits): Promise<{ path: string; size: DocumentSize }> {
    const target = path.join(dir, from ? `source.${from}` : "source");
    if (source.type === "upload") {
      if (source.size === 0) throw new ServiceError("corrupt_source", "Tệp tải lên rỗng (0 byte): hãy gửi một tài liệu có nội dung.");
      if (source.path !== target) await rename(source.path, target);
    } else {
      await this.deps.fetchSource(source.url, target, limits.max_file_mb * 1024 * 1024);
      if ((await stat(target)).size === 0) throw new ServiceError("corrupt_source", "Tệp tải về từ URL rỗng (0 byte).");
    }
    // Here, at intake, so that a zip bomb never reaches the queue, a job or the engine; the check
    // reads the package's directory, which gives the size the engine's budget is reckoned on.
    return { path: target, size: await checkZipContainer(target, undefined, undefined, source.type === "upload" ? source.bytes : undefined) };
  }

  /**
   * The request's source. A URL is judged as a URL first, before its name is used to infer a
   * format: `file:///etc/passwd` is a forbidden URL (422 url_not_allowed), not a document of an
   * unknown format (415).
   */
  private requireSource(intake: Intake): Source {
    const source = requireSource(intake);
    if (source.type === "url") precheckUrl(source.url, this.deps.fetchAllow);
    return source;
  }

  private checkQueue(limits: DocBuilderLimits) {
    if (this.deps.pool.queueStats().queued >= limits.max_queued_jobs) {
      throw new ServiceError("queue_full", undefined, { max_queued_jobs: limits.max_queued_jobs }, { "Retry-After": "5" });
    }
  }
}

/** A 415 with the job's pair filled in where the error named none; the error's own from and reason kept. */
function unsupportedPair(e: ServiceError, pair: { from: string | undefined; to: string } | undefined): ServiceError {
  const own = e.detail as { from?: unknown; to?: unknown };
  return new ServiceError("unsupported_format", e.message, { ...e.detail, from: own.from !== undefined ? own.from : (pair?.from ?? null), to: pair?.to ?? own.to ?? null });
}

function initialCallbackState(url: string): CallbackState {
  let host = "";
  try {
    host = new URL(url).host;
  } catch {}
  return { url_host: host, delivery_id: null, state: "pending", attempts: 0, last_status: null, last_attempt_at: null, last_error: null };
}

function parse<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const r = schema.safeParse(params);
  if (!r.success) {
    const errors = zodErrors(r.error);
    throw new ServiceError("bad_request", `Tham số không hợp lệ: ${errors.map((e) => `${e.path || "/"} ${e.message}`).join("; ")}.`, { errors });
  }
  return r.data;
}

/** A file name from a document title: characters a file name cannot hold become "-". */
function fileNameFromTitle(title: string | undefined): string {
  const name = (title ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .replace(/[\\/:*?"<>|]+/g, "-")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.-]+|[.-]+$/g, "")
    .slice(0, 120);
  return name || "document";
}

/** Multipart sends JSON objects as text fields; JSON bodies send them as they are. */
function parseJsonField(value: unknown, pointer: string): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new ServiceError("bad_request", `Trường ${pointer.slice(1)} phải là JSON hợp lệ.`, { errors: [{ path: pointer, message: "malformed JSON" }] });
  }
}

function requireSource(intake: Intake): Source {
  if (!intake.source) {
    throw new ServiceError("bad_request", 'Thiếu tệp nguồn: hãy gửi phần "file" (multipart) hoặc trường "url" (JSON).', {
      errors: [{ path: "/file", message: "neither file nor url" }],
    });
  }
  return intake.source;
}

function sourceName(source: Source): string {
  if (source.type === "upload") return source.filename;
  try {
    return sanitizeName(decodeURIComponent(new URL(source.url).pathname.split("/").pop() ?? ""));
  } catch {
    return "document";
  }
}

function sourceExtension(source: Source): string | undefined {
  return extensionOf(sourceName(source));
}

function baseName(source: Source): string {
  const name = sourceName(source);
  const ext = path.extname(name);
  return (ext ? name.slice(0, -ext.length) : name) || "document";
}

/** Refuses an impossible pair before any work: unknown source, unknown target, or another family. */
function checkPair(from: string | undefined, to: string): Family {
  if (!from) {
    throw new ServiceError("unsupported_format", 'Không xác định được định dạng nguồn: tên tệp không có phần mở rộng, hãy gửi tham số "from".', { from: null, to });
  }
  const info = formatOf(from);
  if (!info?.source) throw new ServiceError("unsupported_format", `Định dạng nguồn "${from}" không được hỗ trợ.`, { from, to });
  if (!exportFilterFor(info.family, to)) {
    throw new ServiceError("unsupported_format", `Không thể chuyển từ "${from}" sang "${to}": chỉ chuyển được trong cùng nhóm tài liệu (văn bản, bảng tính, trình chiếu) hoặc sang pdf.`, { from, to });
  }
  return info.family;
}

function forbiddenFeature(feature: string, edition: string) {
  return new ServiceError("forbidden_feature", `Tính năng "${feature}" không có trong phiên bản ${edition}.`, { feature, edition });
}

function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new ServiceError("internal");
}

export async function sha256File(file: string, size?: number): Promise<string> {
  // A result of ordinary size is hashed from one read, synchronous (a stream's chunks, or a hop to
  // the I/O threads and back, cost more than the hash of a small PDF); a large one as it is read.
  if (size !== undefined && size <= 8 * 1024 * 1024) return new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex");
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(file).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}
