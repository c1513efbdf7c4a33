// The launcher's embedded default configuration: what it fills in the environment before starting
// the processes, and the secrets it keeps in the data directory. Separate from the launcher so
// that what development and production get can be checked without starting anything.

import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

function writableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export interface LauncherEnvironment {
  env: Record<string, string>;
  devMode: boolean;
  proxyAddress: string;
  publicPort: string | undefined;
  /** Unsigned embed configurations were switched on (development default). */
  unsignedEmbed: boolean;
  /** Where the development API key is kept, when one was made; the key itself is never printed. */
  demoKeyFile: string | undefined;
}

export function launcherEnvironment(processEnv: Record<string, string | undefined>, root: string): LauncherEnvironment {
  const env: Record<string, string> = { ...(processEnv as Record<string, string>) };
  env.SVC_DATA_DIR ??= writableDir("/data") ? "/data" : path.join(root, ".svc-data");
  mkdirSync(env.SVC_DATA_DIR, { recursive: true });
  env.SVC_DEV_MODE ??= "1";
  env.SVC_APP_LISTEN ??= "127.0.0.1:8081";
  const proxyAddress = env.SVC_PROXY_ADDRESS ?? ":8080";
  const publicPort = proxyAddress.split(":").pop();
  env.SVC_PUBLIC_URL ??= `http://127.0.0.1:${publicPort}`;
  // The gate samples the editing server's admin channel: same address and a shared admin password
  // (made once per start when none is given; it never leaves these processes).
  env.SVC_EDSRV_LISTEN ??= "127.0.0.1:9980";
  env.SVC_EDSRV_URL ??= `http://${env.SVC_EDSRV_LISTEN}`;
  env.SVC_EDSRV_ADMIN_PASSWORD ||= randomBytes(18).toString("base64url");

  // The gate as the editing server reaches it: alias group 1 is always the gate (the WOPISrc of
  // every embedded document starts with its first entry).
  const appHost = env.SVC_APP_LISTEN.replace(/^(0\.0\.0\.0|\[::\]|::)?:/, "127.0.0.1:");
  env.SVC_ONLINE_ALIASGROUP1 ??= `http://${appHost}`;

  const devMode = ["1", "true", "yes", "on"].includes(env.SVC_DEV_MODE.toLowerCase());
  /** A secret made once and kept in the data directory (mode 0600). */
  function keptSecret(name: string, make: () => string): string {
    const file = path.join(env.SVC_DATA_DIR!, name);
    if (!existsSync(file)) writeFileSync(file, `${make()}\n`, { mode: 0o600 });
    return readFileSync(file, "utf8").trim();
  }
  // Embedding out of the box in development: pages of the public origin may create sessions,
  // unsigned configurations are accepted when no embed secret is set, and save callbacks are signed
  // with a key kept in the data directory. Production sets SVC_EMBED_JWT_SECRET instead.
  let unsignedEmbed = false;
  if (devMode) {
    env.SVC_EMBED_ALLOWED_ORIGINS ??= env.SVC_PUBLIC_URL;
    if (!env.SVC_EMBED_JWT_SECRET && env.SVC_EMBED_ALLOW_UNSIGNED === undefined) {
      env.SVC_EMBED_ALLOW_UNSIGNED = "1";
      unsignedEmbed = true;
    }
    env.SVC_EMBED_CALLBACK_SECRET ||= keptSecret("demo-callback-secret", () => randomBytes(24).toString("base64url"));
  }

  // Development only: a demo API key, made once and kept in the data directory (mode 0600), so
  // DocBuilder works out of the box. The key itself is never printed: a log line is no place for a
  // secret. In production without SVC_DOCBUILDER_API_KEYS, /v1 answers 401 no_keys_configured.
  let demoKeyFile: string | undefined;
  if (!env.SVC_DOCBUILDER_API_KEYS && devMode) {
    const key = keptSecret("demo-api-key", () => `svc_demo_${randomBytes(16).toString("hex")}`);
    env.SVC_DOCBUILDER_API_KEYS = `demo:${key}`;
    demoKeyFile = path.join(env.SVC_DATA_DIR, "demo-api-key");
  }

  return { env, devMode, proxyAddress, publicPort, unsignedEmbed, demoKeyFile };
}
