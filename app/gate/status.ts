// Bodies of GET /svc/status and GET /svc/limits: what an operator sees of the edition, the
// license and the connection cap. No secrets, file names or user names.

import type { Config } from "../config";
import { allowedEndpoints, docbuilderLimits } from "../editions/limits";
import { connectionCap, licenseStatusView } from "../editions/license";
import type { LicenseSource } from "../editions/license-source";
import { MIN_CONNECTIONS_PER_ORDER } from "../editions/pricing";
import { API_VERSION, SERVICE_VERSION } from "../version";
import { sampleTime, type ConnectionCounter } from "./counting";
import type { EdsrvState } from "./sampler";

/** Constants of the spec's counting rules, published in /svc/limits. */
export const COUNTING = { sample_interval_seconds: 10, peak_window_seconds: 300, reconnect_grace_seconds: 120 } as const;

export interface GateStatusDeps {
  config: Config;
  license: LicenseSource;
  instanceId: string;
  workers: number;
  now: () => number;
  /** Connection counting; absent (tests of other parts): no sample, the gate fails open. */
  counter?: ConnectionCounter;
  /** The admin-channel sampler's view of the editing server. */
  edsrv?: { state: EdsrvState; version: string; refresh?(timeoutMs: number): Promise<EdsrvState> };
  /** Open embedded documents and live embed sessions. */
  embed?: { counts(): { open_documents: number; sessions: number } };
}

export function gateLimits(d: GateStatusDeps) {
  const status = d.license.status();
  const gate = d.license.gate();
  const db = d.license.docbuilder();
  const cap = connectionCap(status, d.config.gate.connectionCap ?? null);
  const l = docbuilderLimits(db, d.workers, { maxFileMbCap: d.config.docbuilder.maxFileMbCap, jobTimeoutSecondsCap: d.config.docbuilder.jobTimeoutSecondsCap });
  return {
    edition: gate.edition,
    connections: { limit: cap.limit, plan_limit: cap.plan_limit, cap: cap.cap, min_per_order: MIN_CONNECTIONS_PER_ORDER },
    whitelabel: gate.features.includes("whitelabel"),
    features: gate.features,
    editor_embed: {
      enabled: d.config.embed.enabled,
      save_callback: true,
      max_file_mb: d.config.embed.maxFileMb,
      session_ttl_minutes: d.config.embed.sessionTtlMinutes,
    },
    docbuilder: {
      allowed_endpoints: allowedEndpoints(db.edition),
      ...l,
      // The spec: enterprise publishes null here; the real figure (the worker count) is in /v1/limits.
      parallel_jobs: db.edition === "enterprise" ? null : l.parallel_jobs,
    },
    counting: COUNTING,
  };
}

/** `startedAt`: when the gate started, what connections.sampled_at shows while nothing was sampled. */
export function gateStatus(d: GateStatusDeps, startedAt: number) {
  const status = d.license.status();
  const gate = d.license.gate();
  const cap = connectionCap(status, d.config.gate.connectionCap ?? null);
  const now = d.now();
  return {
    service: "svc-gate",
    version: SERVICE_VERSION,
    api: API_VERSION,
    time: new Date(now).toISOString(),
    instance_id: d.instanceId,
    edition: gate.edition,
    dev_mode: d.config.devMode,
    // Our editing server is built from release sources, never an internal-test image.
    dev_image: false,
    dev_image_note: "",
    license: licenseStatusView(status),
    // Counting reads the editing server's admin channel; without a fresh sample the gate fails open.
    connections: d.counter
      ? d.counter.snapshot(now)
      : {
          limit: cap.limit,
          current: 0,
          pending: 0,
          peak_5m: 0,
          readonly: 0,
          views_total: 0,
          documents: 0,
          limit_reached: cap.limit <= 0,
          source: "none",
          ...sampleTime(startedAt, now),
          enforcing: false,
        },
    upstream: { edsrv: d.edsrv?.state ?? "down", edsrv_version: d.edsrv?.version ?? "" },
    embed: {
      enabled: d.config.embed.enabled,
      jwt_required: d.config.embed.jwtSecret !== "",
      callback_signing: d.config.embed.callbackSecret !== "",
      ...(d.embed?.counts() ?? { open_documents: 0, sessions: 0 }),
    },
  };
}
