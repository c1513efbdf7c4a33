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

test("every changelog entry sits under a version and one date (no unreleased section, no date range)", () => {
  const lines = changelog.split("\n");
  let version: string | null = null, date: string | null = null;
  for (const line of lines) {
    if (line.startsWith("## ")) {
      expect(line).toMatch(/^## \d+\.\d+\.\d+$/);
      version = line.slice(3);
      date = null;
    } else if (line.startsWith("### ")) {
      expect(line).toMatch(/^### \d{4}-\d{2}-\d{2}$/);
      expect(version).not.toBeNull();
      date = line.slice(4);
    } else if (line.startsWith("- ")) {
      expect([line.slice(0, 40), version !== null && date !== null]).toEqual([line.slice(0, 40), true]);
    }
  }
});
