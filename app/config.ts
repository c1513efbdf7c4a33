// Every setting of the service, parsed once at start-up from the environment and passed in.
// Nothing else reads process.env: handlers get a Config. A wrong value stops start-up with a
// message naming the variable and what it allows.

import { z } from "zod";
import os, { hostname } from "node:os";
import { parseAllowList } from "./net/ssrf";

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ["1", "0", "true", "false", "yes", "no", "on", "off", ""].includes(v), {
    message: "must be one of 1, 0, true, false, yes, no, on, off",
  })
  .transform((v) => ["1", "true", "yes", "on"].includes(v))
  .describe("1 or 0 (also true/false, yes/no, on/off)");

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, { message: `must be a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().int().min(min, { message: `must be at least ${min}` }).max(max, { message: `must be at most ${max}` }))
    .describe(`a whole number from ${min} to ${max}`);

/** An optional whole number: empty means "not set" (used by settings that can only lower a limit). */
const optionalInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === "") return undefined;
      const parsed = int(min, max).safeParse(v);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: parsed.error.issues[0]!.message });
        return z.NEVER;
      }
      return parsed.data;
    })
    .describe(`empty (not set) or a whole number from ${min} to ${max}`);

const list = z
  .string()
  .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
  .describe("a comma-separated list");

const API_KEY_PATTERN = /^[A-Za-z0-9_-]{24,128}$/;

const apiKeys = z.string().transform((v, ctx) => {
  const keys: { name: string; key: string }[] = [];
  v.split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .forEach((item, i) => {
      // `name:key` or just `key`; a key never contains ':', so the last ':' splits.
      const at = item.lastIndexOf(":");
      const name = at > 0 ? item.slice(0, at) : `key${i + 1}`;
      const key = at > 0 ? item.slice(at + 1) : item;
      if (!API_KEY_PATTERN.test(key)) {
        ctx.addIssue({
          code: "custom",
          message: `item ${i + 1} ("${name}") is not a valid key: keys are 24 to 128 characters of A-Z a-z 0-9 _ -`,
        });
        return;
      }
      keys.push({ name, key });
    });
  return keys;
});

const secret = (minLength: number) =>
  z
    .string()
    .refine((v) => v === "" || v.length >= minLength, { message: `must be empty or at least ${minLength} characters` });

const logLevel = z.enum(["debug", "info", "warn", "error"]);

const hostPort = z
  .string()
  .trim()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: "must be host:port, for example 127.0.0.1:8080" })
  .transform((v) => {
    const at = v.lastIndexOf(":");
    return { hostname: v.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(v.slice(at + 1)) };
  });

const defaultWorkers = String(Math.min(os.availableParallelism?.() ?? os.cpus().length, 4));

/** Each entry: the variable, its default (as the environment would give it), and its parser (docs/operations.md lists them, generated). */
export const CONFIG_SCHEMA = z.object({
  // Shared
  SVC_LOG_LEVEL: logLevel.prefault("info"),
  SVC_DEV_MODE: bool.prefault("0"),
  SVC_DATA_DIR: z.string().trim().min(1).prefault("/data"),
  SVC_FETCH_ALLOW_HOSTS: list
    .refine(
      (entries) => {
        try {
          parseAllowList(entries);
          return true;
        } catch {
          return false;
        }
      },
      { message: "each entry must be a host name, an IP address or a CIDR block such as 10.0.0.0/8" },
    )
    .prefault(""),
  SVC_LICENSE_PUBKEY: z.string().trim().prefault(""),
  SVC_LICENSE_TOKEN: z.string().prefault(""),
  SVC_LICENSE_FILE: z.string().trim().prefault("/etc/svc/license.token"),
  // Listen addresses of our own processes. The proxy's is read by the launcher for Caddy, and here
  // for its port: the SSRF rules never let an outside URL point at one of our own listeners.
  SVC_APP_LISTEN: hostPort.prefault("127.0.0.1:8081"),
  SVC_PROXY_ADDRESS: z
    .string()
    .trim()
    .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)?:\d{1,5}$/, { message: "must be [host]:port, for example :8080 or 0.0.0.0:8080" })
    .transform((v) => Number(v.slice(v.lastIndexOf(":") + 1)))
    .prefault(":8080"),
  SVC_PUBLIC_URL: z.string().trim().prefault("http://127.0.0.1:8080"),

  /**
   * What this process is: the whole service (the gate, DocBuilder, and beside them the editing
   * server and the proxy), or DocBuilder alone (/v1 only: one of several DocBuilder instances
   * behind the proxy, docs/operations.md "More than one machine").
   */
  SVC_ROLE: z.enum(["all", "docbuilder"]).prefault("all"),

  // DocBuilder
  /**
   * This DocBuilder instance's number among several (0-99), written into every job and file id it
   * makes, so that the proxy sends a job's polls and a file's downloads to the instance holding
   * them. "from-hostname": the number that ends the host name (a Kubernetes StatefulSet's
   * docbuilder-3 is 3).
   */
  SVC_DOCBUILDER_INSTANCE: z
    .string()
    .trim()
    .regex(/^(\d{1,2}|from-hostname)$/, { message: "must be a number from 0 to 99, or from-hostname (the number that ends the host name, such as docbuilder-3)" })
    .prefault("0"),
  SVC_DOCBUILDER_WORKERS: int(1, 32).prefault(defaultWorkers),
  SVC_DOCBUILDER_WORKER_MAX_JOBS: int(1, 100_000).prefault("200"),
  SVC_DOCBUILDER_WORKER_MAX_AGE_MINUTES: int(1, 10_080).prefault("60"),
  SVC_DOCBUILDER_API_KEYS: apiKeys.prefault(""),
  SVC_DOCBUILDER_JWT_SECRET: secret(32).prefault(""),
  SVC_DOCBUILDER_CALLBACK_SECRET: z.string().prefault(""),
  SVC_DOCBUILDER_MAX_FILE_MB: optionalInt(1, 300).prefault(""),
  SVC_DOCBUILDER_JOB_TIMEOUT_SECONDS: optionalInt(1, 600).prefault(""),
  /**
   * Resident memory one office-engine process (a DocBuilder worker, an editing kit) may use, in
   * MB; past it the process is killed and the document refused. The heaviest corpus files
   * measured peak at 477 MB in a worker; an idle kit uses about 270 MB.
   */
  SVC_ENGINE_MEMORY_LIMIT_MB: int(512, 65_536).prefault("2048"),
  /**
   * The LibreOffice every engine runs: the folder holding libmergedlo.so. Debian's package by
   * default; another build (a Collabora core, a newer LibreOffice) for an operator who wants it.
   * Checked at start by the launcher (app/engine-program.ts): its version and the LibreOfficeKit
   * slots svc calls.
   */
  SVC_ENGINE_PROGRAM_DIR: z.string().trim().regex(/^\//, { message: "must be an absolute path such as /usr/lib/libreoffice/program" }).describe("an absolute path: the folder holding libmergedlo.so; checked at start (LibreOffice 7.4 or newer, the LibreOfficeKit slots svc calls, the UI descriptions)").prefault("/usr/lib/libreoffice/program"),

  // Gate and embedding
  SVC_EMBED_ENABLED: bool.prefault("1"),
  SVC_EMBED_ALLOWED_ORIGINS: list.prefault(""),
  SVC_EMBED_JWT_SECRET: secret(32).prefault(""),
  SVC_EMBED_ALLOW_UNSIGNED: bool.prefault("0"),
  SVC_EMBED_CALLBACK_SECRET: z.string().prefault(""),
  SVC_EMBED_MAX_FILE_MB: int(1, 1024).prefault("100"),
  SVC_EMBED_SESSION_TTL_MINUTES: int(1, 10_080).prefault("720"),
  SVC_EMBED_RETAIN_HOURS: int(1, 8760).prefault("72"),
  SVC_WOPI_ALLOWED_HOSTS: list.prefault(""),
  SVC_GATE_INSTANCE_ID: z
    .string()
    .trim()
    .regex(/^(inst_[0-9a-f]{8,64})?$/, { message: "must be inst_ followed by 8 to 64 lowercase hex characters" })
    .prefault(""),
  SVC_GATE_CONNECTION_CAP: optionalInt(1, 1_000_000).prefault(""),
  /**
   * Outside v1, off by default: while our editing server's typing lag is past its target, refuse
   * new editing sessions below the cap (spec counting rule 3 admits them). Reported limits stay the cap.
   */
  SVC_GATE_REFUSE_WHEN_SATURATED: bool.prefault("0"),

  // Editing server
  SVC_ONLINE_SERVER_NAME: z.string().trim().prefault(""),
  SVC_ONLINE_SSL_TERMINATION: bool.prefault("0"),
  SVC_ONLINE_FRAME_ANCESTORS: z.string().trim().prefault(""),
  SVC_ONLINE_ALIASGROUP1: z.string().trim().prefault(""),
  SVC_EDSRV_ADMIN_PASSWORD: z.string().prefault(""),
  SVC_EDSRV_LISTEN: hostPort.prefault("127.0.0.1:9980"),
  /**
   * Where the gate reaches the editing server's admin channel (ours or a real Collabora); empty:
   * our own editing server at SVC_EDSRV_LISTEN, so moving its port moves what the gate samples.
   */
  SVC_EDSRV_URL: z
    .string()
    .trim()
    .regex(/^(https?:\/\/[^/?#\s]+\/?)?$/, { message: "must be an http(s) origin such as http://127.0.0.1:9980" })
    .prefault(""),
  /** Admin user name (any name works with our editing server; Collabora wants its admin_console.username). */
  SVC_EDSRV_ADMIN_USER: z.string().trim().min(1).prefault("admin"),
  /** Path of the admin WebSocket: /ed/adminws here, /cool/adminws on a real Collabora. */
  SVC_EDSRV_ADMIN_WS_PATH: z.string().trim().regex(/^\/[A-Za-z0-9._~\/-]*$/, { message: "must be a path such as /ed/adminws" }).prefault("/ed/adminws"),
  /** Seconds between autosaves of a modified document; 0 switches autosave off. */
  SVC_EDSRV_AUTOSAVE_SECONDS: int(0, 86_400).prefault("60"),
  /** Seconds after the last input a modified document is stored (Collabora's idle save); 0 switches it off. */
  SVC_EDSRV_IDLE_SAVE_SECONDS: int(0, 3_600).prefault("10"),
  /** Seconds a kit may take to load a document before the page is told the load failed. */
  SVC_EDSRV_LOAD_TIMEOUT_SECONDS: int(1, 600).prefault("60"),
  /** Idle kit processes kept started, so a document opens without engine start-up. */
  SVC_EDSRV_IDLE_KITS: int(0, 16).prefault("2"),
});

export type RawConfig = z.output<typeof CONFIG_SCHEMA>;

export interface Config {
  logLevel: RawConfig["SVC_LOG_LEVEL"];
  devMode: boolean;
  dataDir: string;
  publicUrl: string;
  appListen: { hostname: string; port: number };
  fetchAllowHosts: string[];
  /** Ports of the service's own listeners (gate, editing server, proxy): never a fetch target on this machine. */
  ownPorts: number[];
  license: { pubkey: string; token: string; file: string };
  /** all: the gate and DocBuilder in this process (and the launcher starts the rest); docbuilder: /v1 alone. */
  role: RawConfig["SVC_ROLE"];
  docbuilder: {
    /** This instance's number (0-99), the first two digits of its job and file ids. */
    instance: number;
    workers: number;
    workerMaxJobs: number;
    workerMaxAgeMinutes: number;
    apiKeys: { name: string; key: string }[];
    jwtSecret: string;
    callbackSecret: string;
    /** Lower-only overrides of the plan limits; undefined when unset. */
    maxFileMbCap?: number;
    jobTimeoutSecondsCap?: number;
  };
  /** Resident memory one engine process (worker or kit) may use, in MB. */
  engineMemoryLimitMb: number;
  /** SVC_ENGINE_PROGRAM_DIR: the LibreOffice program folder every engine loads. */
  engineProgramDir: string;
  embed: {
    enabled: boolean;
    allowedOrigins: string[];
    jwtSecret: string;
    allowUnsigned: boolean;
    callbackSecret: string;
    maxFileMb: number;
    sessionTtlMinutes: number;
    retainHours: number;
  };
  gate: {
    instanceId: string;
    connectionCap?: number;
    /** SVC_GATE_REFUSE_WHEN_SATURATED: refuse new editors below the cap while typing lags (outside v1). */
    refuseWhenSaturated: boolean;
    wopiAllowedHosts: string[];
    /**
     * The gate's own address as the editing server reaches it, the base of every WOPISrc of an
     * embedded document: the first entry of SVC_ONLINE_ALIASGROUP1 (the spec: group 1 is always
     * the gate), which defaults to the gate's listen address.
     */
    wopiBase: string;
  };
  online: {
    serverName: string;
    sslTermination: boolean;
    frameAncestors: string;
    /** SVC_ONLINE_ALIASGROUP1, 2, … in order, stopping at the first gap (as Collabora does). */
    aliasGroups: string[];
    adminPassword: string;
    /** The gate's view of the editing server: its admin channel. */
    adminUser: string;
    adminWsPath: string;
    url: string;
  };
  edsrv: {
    listen: { hostname: string; port: number };
    /** 0 = autosave off. */
    autosaveSeconds: number;
    idleSaveSeconds: number;
    /** How long a kit may take to load a document. */
    loadTimeoutSeconds: number;
    idleKits: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Cấu hình không hợp lệ / invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** http://host:port where a listener of this machine is reached (a wildcard bind, on loopback). */
function reachableOrigin(listen: { hostname: string; port: number }): string {
  const host = ["0.0.0.0", "::", ""].includes(listen.hostname) ? "127.0.0.1" : listen.hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${listen.port}`;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(CONFIG_SCHEMA.shape)) {
    const v = env[key];
    if (v !== undefined) input[key] = v;
  }
  const parsed = CONFIG_SCHEMA.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  }
  const c = parsed.data;
  const aliasGroups: string[] = [];
  for (let n = 1; env[`SVC_ONLINE_ALIASGROUP${n}`]; n++) aliasGroups.push(env[`SVC_ONLINE_ALIASGROUP${n}`]!.trim());
  // Group 1 is always the gate: without it, the gate's listen address.
  if (!aliasGroups.length) aliasGroups.push(reachableOrigin(c.SVC_APP_LISTEN));
  const wopiBase = gateOrigin(aliasGroups[0]!);
  if (!wopiBase) throw new ConfigError([`SVC_ONLINE_ALIASGROUP1: its first entry must be the gate's address, such as http://127.0.0.1:8081`]);
  return {
    logLevel: c.SVC_LOG_LEVEL,
    devMode: c.SVC_DEV_MODE,
    dataDir: c.SVC_DATA_DIR,
    publicUrl: c.SVC_PUBLIC_URL.replace(/\/+$/, ""),
    appListen: c.SVC_APP_LISTEN,
    fetchAllowHosts: c.SVC_FETCH_ALLOW_HOSTS,
    ownPorts: [c.SVC_APP_LISTEN.port, c.SVC_EDSRV_LISTEN.port, c.SVC_PROXY_ADDRESS],
    license: { pubkey: c.SVC_LICENSE_PUBKEY, token: c.SVC_LICENSE_TOKEN.trim(), file: c.SVC_LICENSE_FILE },
    role: c.SVC_ROLE,
    docbuilder: {
      instance: docbuilderInstance(c.SVC_DOCBUILDER_INSTANCE, hostname()),
      workers: c.SVC_DOCBUILDER_WORKERS,
      workerMaxJobs: c.SVC_DOCBUILDER_WORKER_MAX_JOBS,
      workerMaxAgeMinutes: c.SVC_DOCBUILDER_WORKER_MAX_AGE_MINUTES,
      apiKeys: c.SVC_DOCBUILDER_API_KEYS,
      jwtSecret: c.SVC_DOCBUILDER_JWT_SECRET,
      callbackSecret: c.SVC_DOCBUILDER_CALLBACK_SECRET,
      maxFileMbCap: c.SVC_DOCBUILDER_MAX_FILE_MB,
      jobTimeoutSecondsCap: c.SVC_DOCBUILDER_JOB_TIMEOUT_SECONDS,
    },
    engineMemoryLimitMb: c.SVC_ENGINE_MEMORY_LIMIT_MB,
    engineProgramDir: c.SVC_ENGINE_PROGRAM_DIR.replace(/\/+$/, ""),
    embed: {
      enabled: c.SVC_EMBED_ENABLED,
      allowedOrigins: c.SVC_EMBED_ALLOWED_ORIGINS,
      jwtSecret: c.SVC_EMBED_JWT_SECRET,
      allowUnsigned: c.SVC_EMBED_ALLOW_UNSIGNED,
      callbackSecret: c.SVC_EMBED_CALLBACK_SECRET,
      maxFileMb: c.SVC_EMBED_MAX_FILE_MB,
      sessionTtlMinutes: c.SVC_EMBED_SESSION_TTL_MINUTES,
      retainHours: c.SVC_EMBED_RETAIN_HOURS,
    },
    gate: {
      instanceId: c.SVC_GATE_INSTANCE_ID,
      connectionCap: c.SVC_GATE_CONNECTION_CAP,
      refuseWhenSaturated: c.SVC_GATE_REFUSE_WHEN_SATURATED,
      wopiAllowedHosts: c.SVC_WOPI_ALLOWED_HOSTS,
      wopiBase,
    },
    online: {
      serverName: c.SVC_ONLINE_SERVER_NAME,
      sslTermination: c.SVC_ONLINE_SSL_TERMINATION,
      frameAncestors: c.SVC_ONLINE_FRAME_ANCESTORS,
      aliasGroups,
      adminPassword: c.SVC_EDSRV_ADMIN_PASSWORD,
      adminUser: c.SVC_EDSRV_ADMIN_USER,
      adminWsPath: c.SVC_EDSRV_ADMIN_WS_PATH,
      url: c.SVC_EDSRV_URL ? c.SVC_EDSRV_URL.replace(/\/+$/, "") : reachableOrigin(c.SVC_EDSRV_LISTEN),
    },
    edsrv: {
      listen: c.SVC_EDSRV_LISTEN,
      autosaveSeconds: c.SVC_EDSRV_AUTOSAVE_SECONDS,
      idleSaveSeconds: c.SVC_EDSRV_IDLE_SAVE_SECONDS,
      loadTimeoutSeconds: c.SVC_EDSRV_LOAD_TIMEOUT_SECONDS,
      idleKits: c.SVC_EDSRV_IDLE_KITS,
    },
  };
}

/** The instance number: as given, or the number that ends the host name (docbuilder-3 → 3). */
export function docbuilderInstance(setting: string, host: string): number {
  if (setting !== "from-hostname") return Number(setting);
  const m = /-(\d{1,2})$/.exec(host);
  if (!m) throw new ConfigError([`SVC_DOCBUILDER_INSTANCE: from-hostname needs a host name ending in -<number 0-99>, such as docbuilder-3; this host is ${JSON.stringify(host)}`]);
  return Number(m[1]);
}

/** scheme://host[:port] of the first entry of an alias group; null when it is not an http(s) URL. */
function gateOrigin(group: string): string | null {
  const first = group.split(",")[0]!.trim();
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(first) ? first : `http://${first}`);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}

/** The HMAC secrets of a configuration, each known by its setting's name (diagnostics name them, never print them). */
export function namedSecrets(c: Config): { name: string; value: string }[] {
  return [
    { name: "SVC_EMBED_JWT_SECRET", value: c.embed.jwtSecret },
    { name: "SVC_DOCBUILDER_JWT_SECRET", value: c.docbuilder.jwtSecret },
    { name: "SVC_EMBED_CALLBACK_SECRET", value: c.embed.callbackSecret },
    { name: "SVC_DOCBUILDER_CALLBACK_SECRET", value: c.docbuilder.callbackSecret },
  ];
}

/** Every variable this service reads, for documentation and tests. */
export const CONFIG_VARIABLES = Object.keys(CONFIG_SCHEMA.shape);
