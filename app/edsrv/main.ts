// Entry point of the editing server (its own process):  bun app/edsrv/main.ts
// Listens on SVC_EDSRV_LISTEN (default 127.0.0.1:9980); every other setting: docs/editing-server.md.
// SIGTERM/SIGINT: unsaved documents get their exit save, then the kits stop and the process exits.

import { ConfigError, parseConfig } from "../config";
import { createLogger, flushStdout } from "../log";
import { createEdsrv } from "./server";

let config;
try {
  config = parseConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger(config.logLevel, { service: "edsrv" });
// The stop is heard from the first moment: the server listens (and pages open documents and type)
// while its idle kits are still starting, and a SIGTERM then ended the process at once, without the
// exit saves (the launcher's stop test, under load). A stop during the start waits for it, then stores.
const starting = createEdsrv({ config, logger });
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  logger.info("edsrv_stopping", {});
  const stopBegan = Date.now();
  const timer = setTimeout(() => process.exit(1), 30_000);
  const edsrv = await starting.catch(() => null);
  await edsrv?.close(25_000, stopBegan).catch((err) => logger.error("edsrv_stop_failed", { error: err as Error }));
  clearTimeout(timer);
  await flushStdout();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
await starting;
