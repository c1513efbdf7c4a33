// The world of a round-trip test file (a file opened in the editor, typed into, saved): a loopback
// WOPI host with one editing token, an editing server with one idle kit, both stopped after the
// file. Shared by text-kept.test.ts and charts-kept.test.ts.

import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../../config";
import { memoryLogger } from "../../log";
import { scaled } from "../../testing/until";
import { createEdsrv, type Edsrv } from "../server";
import { roundTrip, type RoundTrip } from "./corpus-roundtrip";
import { startWopiHost } from "./wopi-host";

export interface RoundTripWorld {
  logger: ReturnType<typeof memoryLogger>;
  /** Opens `bytes` as `name` (file id `id`), types, saves, answers what the host stored. */
  roundTrip(id: string, name: string, bytes: Uint8Array): Promise<RoundTrip>;
}

export function roundTripWorld(prefix: string, logLevel: "info" | "warn" = "warn"): RoundTripWorld {
  let ed: Edsrv;
  let host: ReturnType<typeof startWopiHost>;
  let origin: string;
  const logger = memoryLogger(logLevel);
  beforeAll(async () => {
    host = startWopiHost();
    host.addToken("tok_edit", "u1", true, "Alice");
    ed = await createEdsrv({
      config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), `${prefix}-`)), SVC_ONLINE_ALIASGROUP1: host.origin }),
      logger,
      listen: { hostname: "127.0.0.1", port: 0 },
      idleKits: 1,
      autosaveSeconds: 0,
    });
    origin = `http://${new URL(ed.url).host}`;
  }, scaled(120_000));
  afterAll(async () => {
    await ed?.close();
    host?.stop();
  });
  return {
    logger,
    roundTrip: (id, name, bytes) => roundTrip({ edsrvUrl: ed.url, origin, host, token: "tok_edit" }, id, name, bytes),
  };
}
