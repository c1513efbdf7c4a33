// `npm run test:quick`: the inner loop's tests, in well under two minutes. Every test file that
// starts no office engine, no browser and no service process: the unit and contract tests. A file
// is left out when its own source names what starts one (the list below); the full suite
// (`npm run test`) runs everything, CI included.
import { readFileSync } from "node:fs";
import { Glob } from "bun";
import { scaled } from "../app/testing/until";

const STARTS_AN_ENGINE_OR_BROWSER = [
  "startTestService", "startEmbedStack", "createEdsrv", "new KitPool", "useKitPool", "new WorkerPool", "new Engine(",
  "startEditorEnv", "launchChromium", "chromium", "playwright", "app/launcher.ts", "workers/worker-main.ts", "workers/kit/main.ts",
  "spawnService", "startService(", "caddy", "worker-main.ts\")", "kit/main.ts\")",
];

const root = new URL("..", import.meta.url).pathname;
const files = [...new Glob("{app,workers,tools,schemas}/**/*.test.ts").scanSync(root)]
  .filter((f) => !/\.(browser|e2e)\.test\.ts$/.test(f))
  .filter((f) => {
    const src = readFileSync(root + f, "utf8");
    return !STARTS_AN_ENGINE_OR_BROWSER.some((s) => src.includes(s));
  })
  .sort();
console.log(`[test:quick] ${files.length} files without an engine, a browser or a service process (npm run test runs them all)`);
const run = Bun.spawnSync([process.execPath, "test", "--timeout", String(scaled(30_000)), ...files.map((f) => "./" + f)], { cwd: root, stdout: "inherit", stderr: "inherit" });
process.exit(run.exitCode ?? 1);
