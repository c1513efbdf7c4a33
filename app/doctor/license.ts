// The license: its state and expiry, read exactly as the service reads it (app/editions).

import type { Config } from "../config";
import { BUILD_DATE } from "../editions/build-info";
import { LicenseSource, readTextFileIfExists } from "../editions/license-source";
import { memoryLogger } from "../log";
import path from "node:path";
import { fail, ok, warn, type Finding } from "./types";

/** Warn this many days before an annual token's exp. */
export const EXPIRY_WARNING_DAYS = 30;

export function checkLicense(c: Config, now: number = Date.now()): Finding {
  // The instance id as the service has it, without making one (doctor writes nothing).
  const instanceId = c.gate.instanceId || readTextFileIfExists(path.join(c.dataDir, "instance-id"))?.trim() || "";
  const src = new LicenseSource({
    envToken: c.license.token,
    file: c.license.file,
    publicKey: c.license.pubkey,
    instanceId,
    devMode: c.devMode,
    clock: { now: () => now },
    logger: memoryLogger("error"),
    buildDate: BUILD_DATE,
  });
  const s = src.status();
  const facts = { state: s.state, kind: s.kind, plan: s.plan, exp: s.exp, upd: s.upd, key_hint: s.key_hint, source: src.tokenOrigin };
  switch (s.state) {
    case "none":
      return ok("license", "No license token: the community edition runs (50 editing connections).", facts);
    case "valid": {
      if (s.exp) {
        const days = Math.floor((Date.parse(`${s.exp}T23:59:59+07:00`) - now) / 86_400_000);
        if (days <= EXPIRY_WARNING_DAYS) return warn("license", `The license (${s.kind}, …${s.key_hint}) expires on ${s.exp}, in ${days} days.`, "Renew it and put the new token in SVC_LICENSE_FILE (read again within 60 s).", facts);
      }
      return ok("license", `License valid (${s.kind}, ${s.conns} connections${s.exp ? `, until ${s.exp}` : ""}).`, facts);
    }
    case "grace":
      return warn("license", `The license expired on ${s.exp}; ${s.grace_days_left} grace days are left, then the community edition.`, "Renew it and put the new token in SVC_LICENSE_FILE.", facts);
    default:
      return fail(
        "license",
        `The license is ${s.state}: ${s.message}`,
        s.state === "instance_mismatch"
          ? "Set SVC_GATE_INSTANCE_ID to the id the token is bound to (mid), or ask for a token bound to this instance."
          : s.state === "wrong_product"
            ? "Use a token made for svc-online."
            : s.state === "update_expired"
              ? "Run an image built before the token's upd date, or renew the update rights."
              : "Replace the token (SVC_LICENSE_TOKEN or the file SVC_LICENSE_FILE) with the one you were sent, whole, and check SVC_LICENSE_PUBKEY.",
        facts,
      );
  }
}
