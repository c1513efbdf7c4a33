// Starts the whole service on one machine: the gate + DocBuilder process and the inner proxy
// (Caddy) in front of it, on an embedded default configuration with the demo switched on.
// Every setting can still be given in the environment; the launcher only fills what is unset.
// If one process dies, everything stops (exit 1) so that a supervisor restarts the whole set.

import { execa, type ResultPromise } from "execa";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
const say = (msg: string) => console.log(`[svc] ${msg}`);

function writableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const env: Record<string, string> = { ...(process.env as Record<string, string>) };
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

// A demo API key, made once and kept in the data directory, so DocBuilder works out of the box.
let demoKey: string | undefined;
if (!env.SVC_DOCBUILDER_API_KEYS) {
  demoKey = keptSecret("demo-api-key", () => `svc_demo_${randomBytes(16).toString("hex")}`);
  env.SVC_DOCBUILDER_API_KEYS = `demo:${demoKey}`;
}

const children: { name: string; proc: ResultPromise }[] = [];
let stopping = false;

function start(name: string, file: string, args: string[], childEnv: Record<string, string>) {
  const proc = execa(file, args, { env: childEnv, extendEnv: false, stdio: ["ignore", "inherit", "inherit"], reject: false, cleanup: true });
  children.push({ name, proc });
  proc.then((r) => {
    if (stopping) return;
    say(`${name} exited (code ${r.exitCode ?? r.signal}); stopping everything`);
    void stopAll(1);
  });
  return proc;
}

async function waitFor(url: string, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await Bun.sleep(200);
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  // The proxy first, so no new request reaches a process that is draining.
  for (const c of [...children].reverse()) c.proc.kill("SIGTERM");
  await Promise.race([Promise.all(children.map((c) => c.proc)), Bun.sleep(15_000)]);
  for (const c of children) c.proc.kill("SIGKILL");
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

say(`data directory: ${env.SVC_DATA_DIR}`);
say(`starting gate + DocBuilder on ${env.SVC_APP_LISTEN} (office-engine workers warm up first)`);
start("gate+docbuilder", process.execPath, [path.join(root, "app/main.ts")], env);
await waitFor(`http://${env.SVC_APP_LISTEN}/v1/status`, 120_000);

say(`starting the editing server on ${env.SVC_EDSRV_LISTEN} (idle kits warm up first)`);
start("edsrv", process.execPath, [path.join(root, "app/edsrv/main.ts")], env);
await waitFor(`http://${env.SVC_EDSRV_LISTEN}/hosting/capabilities`, 120_000);

say(`starting the inner proxy (Caddy) on ${proxyAddress}`);
start("caddy", "caddy", ["run", "--config", path.join(root, "Caddyfile"), "--adapter", "caddyfile"], {
  ...env,
  SVC_PROXY_PORT: publicPort ?? "8080",
  // host:port → bind that host; :port → every interface (the Caddyfile's default).
  ...(proxyAddress.lastIndexOf(":") > 0 ? { SVC_PROXY_BIND: proxyAddress.slice(0, proxyAddress.lastIndexOf(":")).replace(/^\[|\]$/g, "") } : {}),
  SVC_APP_UPSTREAM: env.SVC_APP_LISTEN,
  SVC_EDSRV_UPSTREAM: env.SVC_EDSRV_LISTEN,
  HOME: env.HOME ?? "/root",
});
await waitFor(`${env.SVC_PUBLIC_URL}/v1/status`, 30_000);

const base = env.SVC_PUBLIC_URL;
say("ready:");
if (devMode) say(`  ${base}/svc/demo         the demo: edit a sample document, see every event and signed callback`);
say(`  ${base}/v1/status          DocBuilder status (no authentication)`);
say(`  ${base}/v1/formats         what converts to what`);
say(`  ${base}/svc/healthz        gate liveness`);
if (demoKey) {
  say(`  demo API key: ${demoKey}   (kept in ${path.join(env.SVC_DATA_DIR, "demo-api-key")})`);
  say(`  try: curl -H "Authorization: Bearer ${demoKey}" -F file=@fixtures/hello.docx -F to=pdf ${base}/v1/convert -o hello.pdf`);
}
say(`  ${base}/svc/embed/session  embed sessions (POST a config; docs/embedding.md)`);
if (unsignedEmbed) say("  embedding: unsigned configs accepted (development default); set SVC_EMBED_JWT_SECRET in production");
say("press Ctrl+C to stop");
