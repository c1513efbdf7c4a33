// `svc doctor`: every check on one configuration, in order, and the report (text or JSON).
// Exit code 0 only when no check failed (warnings do not fail it).

import { existsSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config";
import { ownListeners } from "../net/own-listeners";
import { parseAllowList } from "../net/ssrf";
import { checkCallback } from "./callback-test";
import { checkClock } from "./clock";
import { checkDataDir, DEFAULT_MIN_FREE_MB } from "./data-dir";
import { checkDocument } from "./document-test";
import { checkEngine, checkHost, DEFAULT_HOST_PATHS, type HostPaths } from "./host";
import { checkLicense } from "./license";
import { checkReachability, endpointsOf } from "./reachability";
import { checkAliasGroups, checkAllowedOrigins, checkDevMode, checkPublicUrl, checkSecrets } from "./settings";
import type { Finding } from "./types";

export interface DoctorOptions {
  callbackUrl?: string;
  documentUrl?: string;
  clockUrl?: string;
  /** Free space below which the data directory counts as full. */
  minFreeMb?: number;
  /** Skip the checks that need the running processes (a configuration check only). */
  offline?: boolean;
  /** Running inside the container image (development mode there is a mistake). */
  inImage?: boolean;
  host?: HostPaths;
  timeoutMs?: number;
}

export interface DoctorReport {
  ok: boolean;
  findings: Finding[];
}

/** The image is recognised by the marker its Containerfile writes next to the code. */
export const inContainerImage = () => existsSync(path.resolve(import.meta.dir, "../../.svc-image"));

export async function runDoctor(c: Config, o: DoctorOptions = {}): Promise<DoctorReport> {
  const findings: Finding[] = [];
  findings.push(checkPublicUrl(c), checkAliasGroups(c), checkAllowedOrigins(c), ...checkSecrets(c), checkDevMode(c, o.inImage ?? inContainerImage()));
  const ends = endpointsOf(c);
  if (!o.offline) findings.push(...(await checkReachability(c, ends, o.timeoutMs)));
  const host = o.host ?? { ...DEFAULT_HOST_PATHS, libreoffice: c.engineProgramDir };
  findings.push(...checkHost(host), await checkEngine(host.libreoffice));
  findings.push(...checkDataDir(c.dataDir, o.minFreeMb ?? DEFAULT_MIN_FREE_MB));
  const refs = [...(o.offline ? [] : [{ name: "the gate", url: `${ends.gate}/svc/healthz` }]), ...(o.clockUrl ? [{ name: o.clockUrl, url: o.clockUrl }] : [])];
  findings.push(await checkClock(refs, Date.now, o.timeoutMs));
  findings.push(checkLicense(c));
  // The same SSRF rules as the service, own listeners included.
  const allow = parseAllowList(c.fetchAllowHosts, ownListeners(c.ownPorts));
  if (o.callbackUrl) findings.push(await checkCallback(o.callbackUrl, { secret: c.embed.callbackSecret, allow, timeoutMs: o.timeoutMs }));
  if (o.documentUrl) findings.push(await checkDocument(o.documentUrl, { allow, maxBytes: c.embed.maxFileMb * 1048576, timeoutMs: o.timeoutMs }));
  return { ok: !findings.some((f) => f.status === "fail"), findings };
}

const MARK = { ok: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" } as const;

export function formatReport(r: DoctorReport): string {
  const lines = r.findings.map((f) => `${MARK[f.status]} ${f.id}: ${f.summary}${f.fix ? `\n       fix: ${f.fix}` : ""}`);
  const failed = r.findings.filter((f) => f.status === "fail").length;
  const warned = r.findings.filter((f) => f.status === "warn").length;
  lines.push("", r.ok ? `All checks hold${warned ? ` (${warned} warning${warned > 1 ? "s" : ""})` : ""}.` : `${failed} check${failed > 1 ? "s" : ""} failed${warned ? `, ${warned} warning${warned > 1 ? "s" : ""}` : ""}.`);
  return lines.join("\n");
}
