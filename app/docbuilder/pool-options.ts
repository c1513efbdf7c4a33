// The settings of the pool of office-engine workers (pool.ts), and what a request asks of it.
import type { Clock } from "../clock";
import type { ServiceError } from "../errors";
import type { LogLevel, Logger } from "../log";

export interface PoolOptions {
  size: number;
  maxJobs: number;
  maxAgeMs: number;
  /** Where each worker slot keeps its engine profile (one directory per slot). */
  profileRoot: string;
  logger: Logger;
  clock: Clock;
  /** How long a starting worker may take to report ready before it counts as failed. */
  startTimeoutMs?: number;
  /** The command that starts one worker; tests can point it at another script. */
  workerCommand?: string[];
  /**
   * How many jobs may run at once (`parallel_jobs` of the current edition), asked at every
   * dispatch. Without it, one job per worker.
   */
  parallelJobs?: () => number;
  /** Resident memory one worker may use (SVC_ENGINE_MEMORY_LIMIT_MB); none when absent. */
  memoryLimitBytes?: number;
  /** How often resident memory is read (MEMORY_CHECK_MS). */
  memoryCheckMs?: number;
  /** How long a worker may take to close a document after its answer; the request's own run time when absent. */
  closeTimeoutMs?: number;
  /** Where each worker gets its own folder, the only one of the data directory it may read (workers/confine.ts); the profile root when absent. */
  documentRoot?: string;
  /** The LibreOffice program folder the workers load (SVC_ENGINE_PROGRAM_DIR); Debian's when absent. */
  programDir?: string;
  /**
   * The least level the service logs (SVC_LOG_LEVEL): a worker leaves out its lines under it, which
   * would each cost a line on the pipe and a parse here only to be dropped. Every level when absent.
   */
  logLevel?: LogLevel;
}

export interface RunOptions {
  /**
   * Running time allowed, counted from when a worker takes the request: time spent waiting behind
   * another request is never counted against this one (it failed with that one's time-out).
   */
  runTimeoutMs: number;
  /**
   * Absolute time (clock ms) by which a worker must have taken the request (a synchronous one,
   * whose answer must reach its client in time: app/docbuilder/time-limits.ts). Still queued by
   * then, it fails with `timeout` (detail.reason "not_started"). Only a job's first request waits
   * for it: a started job's next requests go ahead of the queue.
   */
  startBy?: number;
  /** Called when a worker takes the request (the job moves from queued to running). */
  onStart?: () => void;
  /**
   * The job the request belongs to. Requests of one job share one parallel slot, held from the
   * first one's dispatch until release(job). Without it the request is a job of its own, whose
   * slot is freed when it settles.
   */
  job?: string;
  /**
   * Who asked (the API key's name or the JWT's subject, with its kind): callers' queues are served
   * in turn (fair-queue.ts). Requests without one share one queue.
   */
  caller?: string;
  /** The error of a run that outlives runTimeoutMs, when it is not the plain `timeout` (a document's own budget: document-budget.ts). */
  timeoutError?: () => ServiceError;
}
