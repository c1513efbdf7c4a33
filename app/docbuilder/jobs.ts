// Jobs and result files, in memory, as the spec says: a restart loses them. Each job owns a
// directory under <dataDir>/jobs/ holding its input and outputs; the directory goes when the job
// expires. Expired ids are remembered so that reads answer 410 gone rather than 404.

import { mkdirSync, rmSync } from "node:fs";
import { makeDir } from "../engine-files";
import path from "node:path";
import { iso, type Clock } from "../clock";
import { ServiceError, type ErrorCode } from "../errors";
import { newFileId, newJobId } from "../ids";

export type JobKind = "convert" | "build" | "template/render";
export type JobStatus = "queued" | "running" | "done" | "failed";

export interface JobOutput {
  file_id: string;
  url: string;
  filename: string;
  format: string;
  content_type: string;
  size: number;
  sha256: string;
  /** Spec: an integer. Pages as the engine lays the document out (sheets, slides), for every output. */
  pages: number;
  expires_at: string;
}

export interface JobError {
  code: ErrorCode;
  message: string;
  detail: Record<string, unknown>;
}

/** Delivery of the job's callback, as GET /v1/jobs/{id} shows it. */
export interface CallbackState {
  /** Host of callback_url: enough to recognise it, without a path or query that may hold secrets. */
  url_host: string;
  delivery_id: string | null;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  last_status: number | null;
  last_attempt_at: string | null;
  last_error: string | null;
}

/** The spec's job object, plus request_id so a caller can quote it to support. */
export interface JobView {
  id: string;
  kind: JobKind;
  status: JobStatus;
  request_id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string;
  outputs: JobOutput[];
  error: JobError | null;
  callback?: CallbackState;
}

interface JobRecord {
  view: JobView;
  dir: string;
  expiresAtMs: number;
}

interface FileRecord {
  jobId: string;
  path: string;
  output: JobOutput;
  expiresAtMs: number;
}

/** How many expired ids are remembered for 410 answers before the oldest are forgotten (then 404). */
const TOMBSTONE_LIMIT = 100_000;

export class JobStore {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly files = new Map<string, FileRecord>();
  private readonly expired = new Set<string>();
  private sweeper?: Timer;

  constructor(
    readonly root: string,
    private readonly clock: Clock,
    /** Base of result URLs, e.g. "http://host/v1/files/". */
    private readonly filesUrlBase: string,
    /** This DocBuilder instance's number, written into every id (ids.ts). */
    private readonly instance = 0,
  ) {
    // Leftovers of a previous run belong to jobs that no longer exist.
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
  }

  startSweeping(intervalMs = 30_000) {
    this.sweeper = setInterval(() => this.sweep(), intervalMs);
    this.sweeper.unref();
  }

  stop() {
    clearInterval(this.sweeper);
  }

  create(kind: JobKind, requestId: string, ttlMinutes: number): { id: string; dir: string } {
    const id = newJobId(this.instance);
    const now = this.clock.now();
    const dir = path.join(this.root, id);
    makeDir(dir);
    const expiresAtMs = now + ttlMinutes * 60_000;
    const view: JobView = {
      id,
      kind,
      status: "queued",
      request_id: requestId,
      created_at: iso(now),
      started_at: null,
      finished_at: null,
      expires_at: iso(expiresAtMs),
      outputs: [],
      error: null,
    };
    this.jobs.set(id, { view, dir, expiresAtMs });
    return { id, dir };
  }

  markRunning(id: string) {
    const rec = this.jobs.get(id);
    if (!rec) return;
    rec.view.status = "running";
    rec.view.started_at = iso(this.clock.now());
  }

  addOutput(
    id: string,
    ttlMinutes: number,
    out: { path: string; filename: string; format: string; contentType: string; size: number; sha256: string; pages: number },
  ): JobOutput {
    const rec = this.require(id);
    const fileId = newFileId(this.instance);
    const expiresAtMs = this.clock.now() + ttlMinutes * 60_000;
    const output: JobOutput = {
      file_id: fileId,
      url: this.filesUrlBase + fileId,
      filename: out.filename,
      format: out.format,
      content_type: out.contentType,
      size: out.size,
      sha256: out.sha256,
      pages: out.pages,
      expires_at: iso(expiresAtMs),
    };
    rec.view.outputs.push(output);
    this.files.set(fileId, { jobId: id, path: out.path, output, expiresAtMs });
    return output;
  }

  finish(id: string, ttlMinutes: number, error: ServiceError | null) {
    const rec = this.jobs.get(id);
    if (!rec) return;
    const now = this.clock.now();
    rec.view.status = error ? "failed" : "done";
    rec.view.finished_at = iso(now);
    rec.view.error = error ? { code: error.code, message: error.message, detail: error.detail } : null;
    // Retention counts from the end of the job, for the job and its files alike.
    rec.expiresAtMs = now + ttlMinutes * 60_000;
    rec.view.expires_at = iso(rec.expiresAtMs);
    for (const o of rec.view.outputs) {
      o.expires_at = rec.view.expires_at;
      const f = this.files.get(o.file_id);
      if (f) f.expiresAtMs = rec.expiresAtMs;
    }
    this.nextExpiryMs = Math.min(this.nextExpiryMs, rec.expiresAtMs);
  }

  setCallback(id: string, state: CallbackState) {
    const rec = this.jobs.get(id);
    if (rec) rec.view.callback = state;
  }

  /**
   * The finished job as it stands, not copied: for the answer of a synchronous request, written out
   * at once (a copy per conversion was 3 % of the service's own time on a small file, issue 47).
   * Whoever keeps it past that answer takes get()'s snapshot instead.
   */
  current(id: string): JobView {
    const rec = this.jobs.get(id);
    if (!rec) throw new ServiceError("not_found", "Không có công việc nào với mã này.", { id });
    return rec.view;
  }

  /** A snapshot of the job, as GET /v1/jobs/{id} returns it. */
  get(id: string): JobView {
    this.sweepIfDue();
    const rec = this.jobs.get(id);
    if (rec) return structuredClone(rec.view);
    if (this.expired.has(id)) throw new ServiceError("gone", "Công việc này đã quá thời hạn lưu giữ và đã bị xóa.", { id });
    throw new ServiceError("not_found", "Không có công việc nào với mã này.", { id });
  }

  file(id: string): { path: string; output: JobOutput } {
    this.sweepIfDue();
    const rec = this.files.get(id);
    if (rec) return { path: rec.path, output: rec.output };
    if (this.expired.has(id)) throw new ServiceError("gone", "Tệp kết quả này đã quá thời hạn lưu giữ và đã bị xóa.", { id });
    throw new ServiceError("not_found", "Không có tệp kết quả nào với mã này.", { id });
  }

  /** Drops a job that never got anywhere (refused before queueing): no tombstone, nothing to keep. */
  discard(id: string) {
    const rec = this.jobs.get(id);
    if (!rec) return;
    this.jobs.delete(id);
    for (const o of rec.view.outputs) this.files.delete(o.file_id);
    rmSync(rec.dir, { recursive: true, force: true });
  }

  /**
   * When the first finished job's retention ends: a read sweeps only from then (a sweep walks every
   * job kept, thousands at a steady rate, and every GET and every answer of a job reads one).
   */
  private nextExpiryMs = Infinity;

  private sweepIfDue() {
    if (this.clock.now() >= this.nextExpiryMs) this.sweep();
  }

  sweep() {
    const now = this.clock.now();
    let next = Infinity;
    for (const [id, rec] of this.jobs) {
      // Unfinished jobs are never swept: their worker still writes into the directory.
      if (rec.view.finished_at === null) continue;
      if (rec.expiresAtMs > now) {
        next = Math.min(next, rec.expiresAtMs);
        continue;
      }
      this.jobs.delete(id);
      this.remember(id);
      for (const o of rec.view.outputs) {
        this.files.delete(o.file_id);
        this.remember(o.file_id);
      }
      rmSync(rec.dir, { recursive: true, force: true });
    }
    this.nextExpiryMs = next;
  }

  counts() {
    let queued = 0;
    let running = 0;
    for (const r of this.jobs.values()) {
      if (r.view.status === "queued") queued++;
      else if (r.view.status === "running") running++;
    }
    return { queued, running };
  }

  private remember(id: string) {
    this.expired.add(id);
    if (this.expired.size > TOMBSTONE_LIMIT) {
      const oldest = this.expired.values().next().value;
      if (oldest !== undefined) this.expired.delete(oldest);
    }
  }

  private require(id: string): JobRecord {
    const rec = this.jobs.get(id);
    if (!rec) throw new ServiceError("not_found", "Không có công việc nào với mã này.", { id });
    return rec;
  }
}
