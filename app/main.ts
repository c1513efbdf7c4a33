// Entry of the gate + DocBuilder process: parse the configuration once, start, stop gracefully.

import { ConfigError, parseConfig } from "./config";
import { createLogger, flushStdout } from "./log";
import { startService } from "./server";

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
const service = await startService(config, logger);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    logger.info("shutdown_requested", { signal });
    await service.stop(10_000);
    await flushStdout();
    process.exit(0);
  });
}
