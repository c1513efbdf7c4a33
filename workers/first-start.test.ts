// Engines share nothing on the machine: a real engine started on a machine whose LibreOffice
// shared extension cache is fresh (as after installing the packages) leaves that cache untouched,
// so engines starting together cannot race there (see engineEnvironment in profile.ts).
//
// The fresh cache is an empty directory mounted over the real one in a private mount namespace
// (root and unshare(1) needed, as on the machines `npm run start` installs); the installation
// itself is never touched.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_PROGRAM_DIR } from "./lok";
import { scaled } from "../app/testing/until";

const SHARED_CACHE = path.join(DEFAULT_PROGRAM_DIR, "..", "share", "uno_packages", "cache");
const canNamespace = process.getuid?.() === 0 && Bun.which("unshare") !== null && Bun.spawnSync(["unshare", "-m", "true"]).exitCode === 0;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-first-start-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.skipIf(!canNamespace)("an engine writes nothing outside its profile: a fresh machine's shared extension cache stays empty", () => {
  const fresh = path.join(dir, "fresh-shared-cache");
  const profile = path.join(dir, "profile");
  const script = path.join(dir, "start.ts");
  Bun.spawnSync(["mkdir", "-p", fresh]);
  writeFileSync(script, `import { Engine } from ${JSON.stringify(path.join(import.meta.dir, "engine.ts"))};\nconst e = new Engine();\ne.start(${JSON.stringify(profile)});\nconsole.log("ready");\nprocess.exit(0);\n`);
  const target = realpathSync(SHARED_CACHE);
  const r = Bun.spawnSync(["unshare", "-m", "--propagation", "private", "sh", "-c", `mount --bind "$1" "$2" && exec "$3" "$4"`, "sh", fresh, target, process.execPath, script], {
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  expect(r.stdout.toString()).toContain("ready");
  // Before the fix LibreOffice created uno_packages/ here: the folder engines raced to create.
  expect(readdirSync(fresh)).toEqual([]);
}, scaled(90_000));
