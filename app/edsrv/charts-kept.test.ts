// A deck whose charts had their data in embedded workbooks keeps them through the editor's save
// (issue 46): LibreOffice drops every `ppt/embeddings/*.xlsx` when it writes the deck (11 → 0 for
// pythonpptx_cht_series.pptx); the save path gives them back (app/ooxml/chart-workbooks.ts, on a
// thread of its own), so PowerPoint's "Edit Data" has a workbook to open. DocBuilder's
// conversion is checked by app/docbuilder/structure-kept.test.ts.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { packageStructure } from "../testing/package-structure";
import { scaled } from "../testing/until";
import { createEdsrv, type Edsrv } from "./server";
import { roundTrip } from "./testing/corpus-roundtrip";
import { startWopiHost } from "./testing/wopi-host";

const DECK = path.join(import.meta.dir, "../../../shared/corpus/pptx/pythonpptx_cht_series.pptx");

let ed: Edsrv;
let host: ReturnType<typeof startWopiHost>;
let origin: string;
const logger = memoryLogger("info");

beforeAll(async () => {
  host = startWopiHost();
  host.addToken("tok_deck", "u1", true, "Alice");
  ed = await createEdsrv({
    config: parseConfig({ SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), "edsrv-charts-")), SVC_ONLINE_ALIASGROUP1: host.origin }),
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

test("the editor's save of a deck gives every chart that had a workbook one again (11 of 11)", async () => {
  const original = new Uint8Array(readFileSync(DECK));
  const before = packageStructure(original);
  expect(before.chartWorkbooks).toBe(11);
  const { stored } = await roundTrip({ edsrvUrl: ed.url, origin, host, token: "tok_deck" }, "deck1", "charts.pptx", original);
  const after = packageStructure(stored);
  expect(after.charts).toBe(before.charts);
  expect(after.chartWorkbooks).toBe(11);
  expect(logger.lines.some((l) => l.includes('"event":"chart_workbooks_restored"') && l.includes('"added":11'))).toBe(true);
}, scaled(120_000));
