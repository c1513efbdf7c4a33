// README "Status" names, for each part, the test files that prove it: a feature listed there must
// keep its proof (issue 34, item 5: the status said "not started" of things that existed).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(import.meta.dir, "..");

test("every test file README's Status names exists, and every row names at least one", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const status = readme.slice(readme.indexOf("## Status"), readme.indexOf("\n## ", readme.indexOf("## Status") + 3) >>> 0 || undefined);
  const rows = status.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Part") && !l.startsWith("|---"));
  expect(rows.length).toBeGreaterThan(5);
  for (const row of rows) {
    const proofs = [...row.split("|").at(-2)!.matchAll(/`([^`]+\.test\.ts)`/g)].map((m) => m[1]!);
    expect([row.slice(0, 40), proofs.length > 0]).toEqual([row.slice(0, 40), true]);
    for (const file of proofs) expect([file, existsSync(path.join(ROOT, file))]).toEqual([file, true]);
  }
});
