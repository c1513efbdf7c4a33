// What `svc doctor` reports: one finding per check, each saying what is wrong and the one change
// that fixes it. A check never throws: whatever goes wrong inside it is its finding.

export type FindingStatus = "ok" | "fail" | "warn" | "skip";

export interface Finding {
  /** Stable id for scripts (`--json`): settings.alias_groups, data_dir.free_space … */
  id: string;
  status: FindingStatus;
  /** What holds, or what is wrong. */
  summary: string;
  /** The one change that fixes it (fail and warn only). */
  fix?: string;
  /** Facts behind the verdict (status, latency, rule …), for `--json`. */
  facts?: Record<string, unknown>;
}

export const ok = (id: string, summary: string, facts?: Record<string, unknown>): Finding => ({ id, status: "ok", summary, ...(facts ? { facts } : {}) });
export const fail = (id: string, summary: string, fix: string, facts?: Record<string, unknown>): Finding => ({ id, status: "fail", summary, fix, ...(facts ? { facts } : {}) });
export const warn = (id: string, summary: string, fix: string, facts?: Record<string, unknown>): Finding => ({ id, status: "warn", summary, fix, ...(facts ? { facts } : {}) });
export const skip = (id: string, summary: string): Finding => ({ id, status: "skip", summary });
