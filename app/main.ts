// Entry of the gate + DocBuilder process (or of a DocBuilder instance alone, SVC_ROLE=docbuilder):
// parse the configuration once, start, stop gracefully.

import { ConfigError, parseConfig } from "./config";
import { createLogger, flushStdout } from "./log";
import { startDocBuilderOnly, startService } from "./server";

let config;
try {
  config = parseConfig(process.env);
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}

const logger = createLogger(config.logLevel, { service: "svc" });
// Heard from the first moment: a stop during the start (workers still starting) waits for it and
// then stops in order, instead of the default action ending the process mid-start.
const starting: Promise<{ stop(graceMs?: number): Promise<void> }> = config.role === "docbuilder" ? startDocBuilderOnly(config, logger) : startService(config, logger);
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    logger.info("shutdown_requested", { signal });
    const service = await starting.catch(() => null);
    await service?.stop(10_000);
    await flushStdout();
    process.exit(0);
  });
}
await starting;
