// The end of a test run (bun test's JUnit report): every failure again with its message, then the
// ten slowest files. CI keeps only the tail of the output, so what failed and why must be there.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "bench/out/test-report.xml";
const xml = readFileSync(file, "utf8");
const unescape = (s: string) =>
  s.replace(/&#10;/g, "\n").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

const failures = [...xml.matchAll(/<testcase name="([^"]*)"[^>]*file="([^"]*)"[^>]*>\s*<failure[^>]*>([\s\S]*?)<\/failure>/g)];
if (failures.length > 0) {
  console.log(`\nWhy the ${failures.length} failed test(s) failed:`);
  for (const [, name, testFile, body] of failures) {
    // The first lines carry the assertion and where it was made; the rest is the stack.
    const lines = unescape(body!).split("\n").filter((l) => l.trim() !== "").slice(0, 14);
    console.log(`\n- ${testFile}: ${unescape(name!)}`);
    for (const line of lines) console.log(`    ${line.slice(0, 300)}`);
  }
}

const files = new Map<string, number>();
// Top-level suites are the files (nested suites are describe blocks inside them).
for (const m of xml.matchAll(/^ {2}<testsuite name="([^"]+)" file="[^"]*"[^>]* time="([\d.]+)"/gm)) files.set(m[1]!, Number(m[2]));
const total = [...files.values()].reduce((a, b) => a + b, 0);
console.log(`\nThe ten slowest test files (of ${files.size}, ${(total / 60).toFixed(1)} min in all):`);
for (const [name, s] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${s.toFixed(1).padStart(7)} s  ${name}`);
