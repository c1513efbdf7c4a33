// The changelog and the status endpoints tell the same version (spec "Versioning": changes are
// logged newest first, each with the service version, date and kind).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { SERVICE_VERSION } from "./version";

const changelog = readFileSync(path.resolve(import.meta.dir, "../CHANGELOG.md"), "utf8");

test("the changelog's newest version is the one both status endpoints report", () => {
  const newest = /^## (\d+\.\d+\.\d+)$/m.exec(changelog)?.[1];
  expect(newest).toBe(SERVICE_VERSION);
});

test("the changelog is newest first, every entry dated and of a kind the spec names (Added, Changed, Deprecated)", () => {
  const dates = [...changelog.matchAll(/^### (\d{4}-\d{2}-\d{2})/gm)].map((m) => m[1]!);
  expect(dates.length).toBeGreaterThan(0);
  expect([...dates].sort().reverse()).toEqual(dates);
  const entries = changelog.split("\n").filter((l) => l.startsWith("- "));
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) expect(e).toMatch(/^- \*\*(Added|Changed|Deprecated)\*\*: /);
});
