// The service's metrics in Prometheus' text format (prom-client), one registry per service so
// that tests can run several. Counters and histograms are fed where the event happens (HTTP
// requests, DocBuilder jobs, callback deliveries); gauges read their source when scraped.
// Served at /svc/metrics and /v1/metrics on the internal listener only (the proxy answers 404).
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What the gauges read when scraped; each is optional (absent parts report nothing). */
export interface MetricSources {
  pool?: () => { idle: number; busy: number; restarts: number; queued: number };
  connections?: () => { current: number; documents: number };
  embed?: () => { open_documents: number; sessions: number };
}

const SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics() {
  const registry = new Registry();
  const sources: MetricSources = {};
  const requests = new Counter({ name: "svc_http_requests_total", help: "HTTP requests answered, by route pattern, method and status.", labelNames: ["route", "method", "status"], registers: [registry] });
  const requestSeconds = new Histogram({ name: "svc_http_request_duration_seconds", help: "Time to answer an HTTP request, by route pattern.", labelNames: ["route"], buckets: SECONDS, registers: [registry] });
  const jobSeconds = new Histogram({ name: "svc_docbuilder_job_duration_seconds", help: "DocBuilder jobs from queued to finished, by kind, document family and outcome.", labelNames: ["kind", "family", "outcome"], buckets: SECONDS, registers: [registry] });
  const callbacks = new Counter({ name: "svc_callback_deliveries_total", help: "Signed callback deliveries, by kind (job, document) and outcome (delivered, failed).", labelNames: ["kind", "outcome"], registers: [registry] });
  const gauge = (name: string, help: string, read: () => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const v = read();
        if (v !== undefined) this.set(v);
      },
    });
  gauge("svc_docbuilder_queue_length", "DocBuilder requests waiting for a worker.", () => sources.pool?.().queued);
  gauge("svc_docbuilder_workers_busy", "DocBuilder workers running a request.", () => sources.pool?.().busy);
  gauge("svc_docbuilder_workers_idle", "DocBuilder workers waiting for work.", () => sources.pool?.().idle);
  gauge("svc_docbuilder_worker_restarts", "DocBuilder workers replaced since start (recycled, timed out, crashed).", () => sources.pool?.().restarts);
  gauge("svc_editing_connections", "Editing connections counted by the gate (the licensed quantity).", () => sources.connections?.().current);
  gauge("svc_editing_documents", "Documents open on the editing server, as the gate last sampled.", () => sources.connections?.().documents);
  gauge("svc_embed_open_documents", "Embedded documents with a live session.", () => sources.embed?.().open_documents);
  gauge("svc_embed_sessions", "Live embed sessions.", () => sources.embed?.().sessions);
  return {
    registry,
    /** Connects the gauges to what they read (parts built after the metrics). */
    watch(more: MetricSources) {
      Object.assign(sources, more);
    },
    request(route: string, method: string, status: number, seconds: number) {
      requests.inc({ route, method, status: String(status) });
      requestSeconds.observe({ route }, seconds);
    },
    job(kind: string, family: string, outcome: "done" | "failed", seconds: number) {
      jobSeconds.observe({ kind, family, outcome }, seconds);
    },
    callback(kind: string, outcome: "delivered" | "failed") {
      callbacks.inc({ kind, outcome });
    },
    /** The exposition, and its content type. */
    async expose(): Promise<{ body: string; contentType: string }> {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
