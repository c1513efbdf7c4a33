// The real service for benchmarks: enterprise (a token signed here, so community's rate limits
// do not throttle the run), on a free loopback port, with a private data directory.

import path from "node:path";
import { parseConfig } from "../app/config";
import { decodePrivateKey, generateKeyPair, signToken } from "../app/editions/license";
import { memoryLogger } from "../app/log";
import { startService, type RunningService } from "../app/server";

export const BENCH_API_KEY = "svc_bench_0123456789abcdef0123";

export async function startBenchService(dataDir: string, workers: number): Promise<RunningService> {
  const keys = generateKeyPair();
  const token = signToken(
    { v: 1, prod: "svc-online", kind: "enterprise", conns: 5000, plan: "year", exp: "2099-12-31", feat: ["api_full"], key: "OOSY-BENCH-00000-00000-00000", iat: Math.floor(Date.now() / 1000) },
    decodePrivateKey(keys.privateKey),
  );
  const config = parseConfig({
    SVC_DATA_DIR: dataDir,
    SVC_DOCBUILDER_WORKERS: String(workers),
    SVC_DOCBUILDER_API_KEYS: BENCH_API_KEY,
    SVC_LOG_LEVEL: "error",
    SVC_LICENSE_PUBKEY: keys.publicKey,
    SVC_LICENSE_TOKEN: token,
    SVC_LICENSE_FILE: path.join(dataDir, "license.token"),
  });
  return startService(config, memoryLogger("error"), { port: 0, hostname: "127.0.0.1" });
}
