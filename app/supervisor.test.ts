// app/supervisor.ts: the set of processes ends with its launcher, however the launcher ends.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { endingWithParent } from "./supervisor";
import { until, waitFor } from "./testing/until";

/** Whether a process runs: a zombie (ended, not yet reaped by whoever inherited it) does not. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

test("a launcher killed with SIGKILL (or by the OOM killer) takes its processes with it: none is left holding its port", async () => {
  const launcher = Bun.spawn([process.execPath, path.join(import.meta.dir, "testing/supervisor-entry.ts")], { stdout: "pipe", stderr: "inherit" });
  let child = 0;
  try {
    let out = "";
    const reader = (launcher.stdout as ReadableStream<Uint8Array>).getReader();
    while (!/child (\d+)/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the launcher ended before it started its child: ${out}`);
      out += new TextDecoder().decode(value);
    }
    child = Number(/child (\d+)/.exec(out)![1]);
    expect(alive(child)).toBe(true);
    // The child is the process itself (setpriv executes it, at once but after the pid is known):
    // the pid the supervisor knows is the one that runs.
    await until(() => Bun.file(`/proc/${child}/comm`).text().catch(() => ""), (comm) => comm !== "setpriv\n", "setpriv to execute the child");
    expect(await Bun.file(`/proc/${child}/comm`).text()).toBe("sleep\n");
    launcher.kill("SIGKILL");
    await launcher.exited;
    await waitFor(() => !alive(child), "the supervised process to end after its launcher was killed", 20_000);
  } finally {
    // A failure before the kill leaves neither behind (the launcher holds the test run's stderr).
    launcher.kill("SIGKILL");
    if (child && alive(child)) process.kill(child, "SIGKILL");
  }
});

test("without setpriv a process is started as it is", () => {
  expect(endingWithParent("/bin/sleep", ["1"], "/nonexistent/setpriv")).toEqual(["/bin/sleep", ["1"]]);
  expect(endingWithParent("/bin/sleep", ["1"], "/usr/bin/setpriv")).toEqual(["/usr/bin/setpriv", ["--pdeathsig", "TERM", "--", "/bin/sleep", "1"]]);
});
