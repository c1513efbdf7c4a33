// The operator guide's settings table is generated from the configuration schema: it must be
// current (run `bun run scripts/config-table.ts` after changing app/config.ts).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CONFIG_VARIABLES } from "./config";
import { OPERATIONS_DOC, withTable } from "../scripts/config-table";

test("docs/operations.md lists every SVC_* setting with its current default", () => {
  const doc = readFileSync(OPERATIONS_DOC, "utf8");
  expect(doc).toBe(withTable(doc));
  for (const name of CONFIG_VARIABLES) expect(doc).toContain(`| \`${name}\` |`);
});
