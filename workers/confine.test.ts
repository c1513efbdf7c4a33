// What a confined engine process may read (workers/confine.ts), in a child process: confinement
// cannot be undone, and it would bind the test runner itself.

import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const CONFINE = path.resolve(import.meta.dir, "confine.ts");

function runConfined(own: string, others: string[]): { state: string; reason?: string; results: Record<string, string> } {
  const script = `
    import { confineReads } from ${JSON.stringify(CONFINE)};
    import { readdirSync, readFileSync, writeFileSync } from "node:fs";
    const c = confineReads([${JSON.stringify(own)}]);
    const results = {};
    for (const f of ${JSON.stringify([path.join(own, "mine.txt"), ...others])}) {
      try { readFileSync(f); results[f] = "read"; } catch (e) { results[f] = e.code; }
    }
    try { readdirSync(${JSON.stringify(path.dirname(others[0]!))}); results.list = "listed"; } catch (e) { results.list = e.code; }
    try { writeFileSync(${JSON.stringify(path.join(path.dirname(others[0]!), "written.txt"))}, "w"); results.write = "written"; } catch (e) { results.write = e.code; }
    console.log(JSON.stringify({ state: c.state, reason: c.reason, results }));
  `;
  const child = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  return JSON.parse(child.stdout.toString().trim().split("\n").pop()!);
}

describe("engine confinement", () => {
  const own = mkdtempSync(path.join(tmpdir(), "svc-confine-own-"));
  const elsewhere = mkdtempSync(path.join(tmpdir(), "svc-confine-elsewhere-"));
  writeFileSync(path.join(own, "mine.txt"), "mine");
  writeFileSync(path.join(elsewhere, "picture.png"), "not mine");
  const parentEnviron = `/proc/${process.pid}/environ`;
  const outcome = runConfined(own, [
    path.join(elsewhere, "picture.png"), "/etc/hostname", "/etc/passwd", "/usr/lib/libreoffice/program/soffice", "/etc/fonts/fonts.conf",
    "/proc/self/status", "/proc/self/environ", parentEnviron, "/proc/1/environ",
  ]);

  test("a confined engine reads its own folders and the system's, and is refused any other file (a document's linked local picture)", () => {
    // Without Landlock (a kernel before 5.13, or a container that forbids it) the engine runs
    // unconfined and says why; this machine and CI have it, so that is a failure here.
    expect(outcome).toMatchObject({ state: "landlock" });
    expect(outcome.results[path.join(own, "mine.txt")]).toBe("read");
    expect(outcome.results[path.join(elsewhere, "picture.png")]).toBe("EACCES");
    expect(outcome.results["/usr/lib/libreoffice/program/soffice"]).toBe("read");
    expect(outcome.results["/etc/fonts/fonts.conf"]).toBe("read");
  });

  test("an engine reads only the named files of /etc it needs, and of /proc only its own process: not /etc/passwd, not another process's environment", () => {
    expect(outcome.results["/etc/hostname"]).toBe("EACCES");
    expect(outcome.results["/etc/passwd"]).toBe("EACCES");
    expect(outcome.results["/proc/self/status"]).toBe("read");
    expect(outcome.results["/proc/self/environ"]).toBe("read");
    expect(outcome.results[parentEnviron]).toBe("EACCES");
    expect(outcome.results["/proc/1/environ"]).toBe("EACCES");
  });

  test("an engine cannot list a folder outside its own (the names of other documents)", () => {
    expect(outcome.results.list).toBe("EACCES");
  });

  test("only reading is confined: the engine still writes where the system lets it", () => {
    expect(outcome.results.write).toBe("written");
  });
});
