// DocBuilder limits per edition, exactly as the spec's table, resolved after the settings that
// can only lower a limit. The edition itself is decided elsewhere (license verification); this
// module only turns "which edition, which features, how many connections" into figures.

export type EditionName = "community" | "enterprise";

/** What the license decides, and the only input that varies between editions. */
export interface Entitlement {
  edition: EditionName;
  /** Features from the token (`api_full`, `callback`, `whitelabel`); empty without a token. */
  features: string[];
  /** Purchased connections of an enterprise token. */
  conns?: number;
}

/** The seam where the edition is decided: a license-backed source replaces the community one. */
export interface EntitlementSource {
  current(): Entitlement;
}

export const communityOnly: EntitlementSource = { current: () => ({ edition: "community", features: [] }) };

export interface DocBuilderLimits {
  rate_per_minute: number;
  /** null means unlimited. */
  rate_per_day: number | null;
  parallel_jobs: number;
  max_queued_jobs: number;
  max_file_mb: number;
  result_ttl_minutes: number;
  sync_timeout_seconds: number;
  job_timeout_seconds: number;
  async: boolean;
  callback: boolean;
  max_script_units: number;
  max_outputs_per_build: number;
}

export interface LowerOnlySettings {
  maxFileMbCap?: number;
  jobTimeoutSecondsCap?: number;
}

/** clamp(60 * ceil(conns / 50), 60, 3000) */
export function enterpriseRatePerMinute(conns: number): number {
  return Math.min(3000, Math.max(60, 60 * Math.ceil(conns / 50)));
}

export function docbuilderLimits(ent: Entitlement, workers: number, lower: LowerOnlySettings = {}): DocBuilderLimits {
  const enterprise = ent.edition === "enterprise";
  const base: DocBuilderLimits = enterprise
    ? {
        rate_per_minute: enterpriseRatePerMinute(ent.conns ?? 50),
        rate_per_day: null,
        parallel_jobs: workers,
        max_queued_jobs: 1000,
        max_file_mb: 300,
        result_ttl_minutes: 1440,
        sync_timeout_seconds: 60,
        job_timeout_seconds: 600,
        async: true,
        callback: ent.features.includes("callback"),
        max_script_units: 20_000,
        max_outputs_per_build: 5,
      }
    : {
        rate_per_minute: 10,
        rate_per_day: 200,
        parallel_jobs: 1,
        max_queued_jobs: 10,
        max_file_mb: 10,
        result_ttl_minutes: 15,
        sync_timeout_seconds: 60,
        job_timeout_seconds: 120,
        async: true,
        callback: false,
        max_script_units: 500,
        max_outputs_per_build: 1,
      };
  if (lower.maxFileMbCap !== undefined) base.max_file_mb = Math.min(base.max_file_mb, lower.maxFileMbCap);
  if (lower.jobTimeoutSecondsCap !== undefined) base.job_timeout_seconds = Math.min(base.job_timeout_seconds, lower.jobTimeoutSecondsCap);
  return base;
}

const ALL_ENDPOINTS = [
  "GET /v1/status",
  "GET /v1/limits",
  "GET /v1/formats",
  "POST /v1/convert",
  "POST /v1/build",
  "POST /v1/extract/text",
  "POST /v1/extract/meta",
  "POST /v1/extract/thumbnail",
  "GET /v1/jobs/{id}",
  "GET /v1/files/{id}",
];
const ENTERPRISE_ONLY = ["POST /v1/template/render"];

export function allowedEndpoints(edition: EditionName): string[] {
  return edition === "enterprise" ? [...ALL_ENDPOINTS, ...ENTERPRISE_ONLY] : [...ALL_ENDPOINTS];
}
