// SVC_ENGINE_PROGRAM_DIR: the LibreOffice every engine runs, checked before the service starts.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { probeEngine } from "./engine-program";
import { missingUiModules } from "../workers/engine-identity";
import { DEFAULT_PROGRAM_DIR } from "../workers/lok";
import { scaled } from "./testing/until";

const scratch = mkdtempSync(path.join(tmpdir(), "svc-engine-program-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("the engine is LibreOffice 25.2 or newer, from Debian's package, with every slot svc calls", async () => {
  const p = await probeEngine(DEFAULT_PROGRAM_DIR);
  expect(p.unsupported).toBeNull();
  expect(p.missing).toEqual([]);
  expect(p.name).toBe("LibreOffice");
  const [major, minor] = p.version!.split(".").map(Number);
  expect(major! > 25 || (major === 25 && minor! >= 2)).toBe(true);
  expect(p.source).toMatch(/^debian:libreoffice-core 4:25\.\d/);
}, scaled(120_000));

test("a program folder that holds no LibreOffice is refused with what to fix", async () => {
  const p = await probeEngine(scratch);
  expect(p.unsupported).toContain("holds no LibreOffice");
});

test("a LibreOffice without Writer's UI descriptions is refused, naming the package (a commented document would not load)", () => {
  // The layout of an installation, its modules' folders only.
  const root = path.join(scratch, "lo");
  for (const m of ["scalc", "simpress", "sdraw"]) mkdirSync(path.join(root, "share/config/soffice.cfg/modules", m), { recursive: true });
  mkdirSync(path.join(root, "program"), { recursive: true });
  expect(missingUiModules(path.join(root, "program"))).toEqual(["swriter (libreoffice-uiconfig-writer)"]);
  expect(missingUiModules(DEFAULT_PROGRAM_DIR)).toEqual([]);
});

test("the launcher stops before starting anything when SVC_ENGINE_PROGRAM_DIR is not a LibreOffice, saying what to set", async () => {
  const proc = Bun.spawn([process.execPath, path.resolve(import.meta.dir, "launcher.ts")], {
    env: { ...process.env, SVC_DATA_DIR: path.join(scratch, "data"), SVC_ENGINE_PROGRAM_DIR: scratch, SVC_PROXY_ADDRESS: "127.0.0.1:1", SVC_APP_LISTEN: "127.0.0.1:1", SVC_EDSRV_LISTEN: "127.0.0.1:2" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect(code).toBe(1);
  expect(out).toContain(`svc cannot run the LibreOffice in ${scratch}`);
  expect(out).toContain("Set SVC_ENGINE_PROGRAM_DIR");
  const event = out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).find((e) => e.event === "engine_unsupported");
  expect(event).toMatchObject({ level: "error", program_dir: scratch });
  expect(out).not.toContain("starting gate");
}, scaled(60_000));
