// A deck whose charts had their data in embedded workbooks keeps them through the editor's save
// (issue 46): LibreOffice drops every `ppt/embeddings/*.xlsx` when it writes the deck (11 → 0 for
// pythonpptx_cht_series.pptx); the save path gives them back (app/ooxml/chart-workbooks.ts, on a
// thread of its own), so PowerPoint's "Edit Data" has a workbook to open. DocBuilder's
// conversion is checked by app/docbuilder/structure-kept.test.ts.

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageStructure } from "../testing/package-structure";
import { scaled } from "../testing/until";
import { roundTripWorld } from "./testing/round-trip-world";

const DECK = path.join(import.meta.dir, "../../../shared/corpus/pptx/pythonpptx_cht_series.pptx");
const world = roundTripWorld("edsrv-charts", "info");

test("the editor's save of a deck gives every chart that had a workbook one again (11 of 11)", async () => {
  const original = new Uint8Array(readFileSync(DECK));
  const before = packageStructure(original);
  expect(before.chartWorkbooks).toBe(11);
  const { stored } = await world.roundTrip("deck1", "charts.pptx", original);
  const after = packageStructure(stored);
  expect(after.charts).toBe(before.charts);
  expect(after.chartWorkbooks).toBe(11);
  expect(world.logger.lines.some((l) => l.includes('"event":"chart_workbooks_restored"') && l.includes('"added":11'))).toBe(true);
}, scaled(120_000));
