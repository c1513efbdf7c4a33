// Where the license token comes from, and the entitlements it gives at this moment.
// Lookup order (spec, Editions): SVC_LICENSE_TOKEN when not empty, else the file SVC_LICENSE_FILE
// when it exists, else no token. The file is re-read every 60 seconds, so a replaced file takes
// effect at the next refresh; the variable is only read at start. The expensive checks (format,
// signature, fields) are cached per token text; the state itself (valid → grace → expired) is
// re-evaluated against the clock on every read. A line is logged when the state changes; the
// token itself is never logged.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Clock } from "../clock";
import { newInstanceId } from "../ids";
import type { Logger } from "../log";
import type { Entitlement, EntitlementSource } from "./limits";
import { decodeLicense, entitlementOf, evaluateLicense, type DecodedLicense, type LicenseStatus } from "./license";

export const LICENSE_REFRESH_MS = 60_000;

/** Returns the file's text, or null when it does not exist; throws on other read errors. */
export type ReadTextFile = (file: string) => string | null;

export const readTextFileIfExists: ReadTextFile = (file) => {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
};

export interface LicenseSourceOptions {
  /** SVC_LICENSE_TOKEN (read once at start); empty means "use the file". */
  envToken: string;
  /** SVC_LICENSE_FILE. */
  file: string;
  /** SVC_LICENSE_PUBKEY: standard Base64 of the 32-byte Ed25519 public key. */
  publicKey: string;
  instanceId: string;
  devMode: boolean;
  clock: Clock;
  logger: Logger;
  /** BUILD_DATE of app/editions/build-info.ts in production. */
  buildDate: string;
  readFile?: ReadTextFile;
}

export type TokenOrigin = "env" | "file" | "none";

export class LicenseSource {
  private readonly readFile: ReadTextFile;
  private token: string | null = null;
  private origin: TokenOrigin = "none";
  private readError: string | null = null;
  private cache: { token: string | null; decoded: DecodedLicense } | null = null;
  private lastState: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly opts: LicenseSourceOptions) {
    this.readFile = opts.readFile ?? readTextFileIfExists;
    this.refresh();
  }

  /** Where the current token came from. */
  get tokenOrigin(): TokenOrigin {
    return this.origin;
  }

  /** Reads the token again (the file; the variable never changes) and logs a state change. */
  refresh(): LicenseStatus {
    const env = this.opts.envToken.trim();
    this.readError = null;
    if (env !== "") {
      this.token = env;
      this.origin = "env";
    } else {
      let text: string | null = null;
      try {
        text = this.readFile(this.opts.file);
      } catch (e) {
        this.readError = (e as NodeJS.ErrnoException).code ?? "read_error";
      }
      this.token = text === null ? null : text.trim();
      this.origin = this.readError !== null || (this.token !== null && this.token !== "") ? "file" : "none";
      if (this.token === "") this.token = null;
    }
    return this.status();
  }

  status(): LicenseStatus {
    return this.evaluated().status;
  }

  /**
   * The token's status and entitlements, evaluated at most once a second of the clock: every
   * request asks for them several times (limits, the rate, the parallel slots), and each
   * evaluation walks the token's dates (0.1–0.3 ms a request, issue 47's profile). What can change
   * within a second (a new token read) starts a new evaluation at once.
   */
  private evaluated(): { status: LicenseStatus; entitlement: ReturnType<typeof entitlementOf> } {
    const second = Math.floor(this.opts.clock.now() / 1000);
    const memo = this.memo;
    if (memo && memo.second === second && memo.token === this.token && memo.readError === this.readError) return memo;
    const status = this.evaluate();
    this.memo = { second, token: this.token, readError: this.readError, status, entitlement: entitlementOf(status) };
    return this.memo;
  }

  private memo: { second: number; token: string | null; readError: string | null; status: LicenseStatus; entitlement: ReturnType<typeof entitlementOf> } | null = null;

  private evaluate(): LicenseStatus {
    let status: LicenseStatus;
    if (this.readError !== null) {
      status = {
        ...evaluateLicense({ kind: "none" }, this.evalOpts()),
        state: "invalid",
        reason: "file_unreadable",
        message: `Không đọc được tệp giấy phép ${this.opts.file} (${this.readError}).`,
      };
    } else {
      if (!this.cache || this.cache.token !== this.token) {
        this.cache = { token: this.token, decoded: decodeLicense(this.token, this.opts.publicKey) };
      }
      status = evaluateLicense(this.cache.decoded, this.evalOpts());
    }
    this.noteState(status);
    return status;
  }

  gate(): Entitlement {
    return this.evaluated().entitlement.gate;
  }

  docbuilder(): Entitlement {
    return this.evaluated().entitlement.docbuilder;
  }

  gateSource(): EntitlementSource {
    return { current: () => this.gate() };
  }

  docbuilderSource(): EntitlementSource {
    return { current: () => this.docbuilder() };
  }

  /** Re-reads every 60 s of real time; the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.refresh();
      } catch (e) {
        this.opts.logger.error("license_refresh_failed", { error: e as Error });
      }
    }, LICENSE_REFRESH_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private evalOpts() {
    return {
      now: this.opts.clock.now(),
      buildDate: this.opts.buildDate,
      instanceId: this.opts.instanceId,
      devMode: this.opts.devMode,
    };
  }

  private noteState(s: LicenseStatus) {
    const state = s.reason ? `${s.state}:${s.reason}` : s.state;
    if (state === this.lastState) return;
    const from = this.lastState;
    this.lastState = state;
    const fields = {
      from: from === null ? null : from.split(":")[0],
      state: s.state,
      reason: s.reason,
      origin: this.origin,
      kind: s.kind,
      plan: s.plan,
      conns: s.conns,
      exp: s.exp,
      key_hint: s.key_hint,
      grace_days_left: s.grace_days_left,
    };
    const bad = s.state !== "valid" && s.state !== "none";
    if (bad) this.opts.logger.warn("license_state", fields);
    else this.opts.logger.info("license_state", fields);
  }
}

const INSTANCE_ID = /^inst_[0-9a-f]{8,64}$/;

/**
 * The instance id: the configured one (SVC_GATE_INSTANCE_ID) when set; else the one kept in
 * `<dataDir>/instance-id`; else a new one, written there (atomically) and reused from then on.
 * A file holding something that is not an instance id stops start-up rather than being replaced,
 * because a token may be bound to the id it held.
 */
export function resolveInstanceId(configured: string, dataDir: string): string {
  const set = configured.trim();
  if (set !== "") return set;
  const file = path.join(dataDir, "instance-id");
  const kept = readTextFileIfExists(file)?.trim() ?? "";
  if (kept !== "") {
    if (!INSTANCE_ID.test(kept)) {
      throw new Error(`${file} does not hold an instance id (inst_ + 8 to 64 hex); fix or remove it, or set SVC_GATE_INSTANCE_ID`);
    }
    return kept;
  }
  const id = newInstanceId();
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, id + "\n", { mode: 0o644 });
  renameSync(tmp, file);
  return id;
}
