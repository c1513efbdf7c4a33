// The ten slowest test files of a run (bun test's JUnit report): where the suite's time goes.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "bench/out/test-report.xml";
const xml = readFileSync(file, "utf8");
const files = new Map<string, number>();
// Top-level suites are the files (nested suites are describe blocks inside them).
for (const m of xml.matchAll(/^ {2}<testsuite name="([^"]+)" file="[^"]*"[^>]* time="([\d.]+)"/gm)) files.set(m[1]!, Number(m[2]));
const total = [...files.values()].reduce((a, b) => a + b, 0);
console.log(`\nThe ten slowest test files (of ${files.size}, ${(total / 60).toFixed(1)} min in all):`);
for (const [name, s] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${s.toFixed(1).padStart(7)} s  ${name}`);
