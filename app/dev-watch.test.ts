// `bun run dev` restarts the process a changed file belongs to, and only that one.
import { describe, expect, test } from "bun:test";
import { Supervisor } from "./supervisor";
import { processesFor } from "./dev-watch";

describe("bun run dev", () => {
  test("a changed file restarts the process it belongs to", () => {
    expect(processesFor("app/edsrv/documents.ts")).toEqual(["edsrv"]);
    expect(processesFor("app/edsrv/browser/ed.ts")).toEqual(["edsrv"]);
    expect(processesFor("app/edsrv/browser/editor/tiles.ts")).toEqual(["edsrv"]);
    expect(processesFor("app/edsrv/browser/ed.css")).toEqual(["edsrv"]);
    expect(processesFor("app/edsrv/protocol/frames.ts")).toEqual(["edsrv"]);
    expect(processesFor("workers/kit/main.ts")).toEqual(["edsrv"]);
    expect(processesFor("workers/kit/tiles.ts")).toEqual(["edsrv"]);
    expect(processesFor("app/gate/admission.ts")).toEqual(["gate+docbuilder"]);
    expect(processesFor("app/docbuilder/pool.ts")).toEqual(["gate+docbuilder"]);
    expect(processesFor("workers/worker-main.ts")).toEqual(["gate+docbuilder"]);
    expect(processesFor("schemas/embed.ts")).toEqual(["gate+docbuilder"]);
    expect(processesFor("app/config.ts")).toEqual(["gate+docbuilder", "edsrv"]);
    expect(processesFor("workers/profile.ts")).toEqual(["gate+docbuilder", "edsrv"]);
    expect(processesFor("Caddyfile")).toEqual(["caddy"]);
  });

  test("tests, the demo page (read on every request) and other files restart nothing", () => {
    for (const f of ["app/edsrv/documents.test.ts", "app/testing/harness.ts", "app/demo/page/demo.js", "docs/architecture.md", "app/edsrv/browser/.ed.ts.swp"]) {
      expect(processesFor(f)).toEqual([]);
    }
  });

  test("a restart stops the process gracefully and starts it again, not counted as a crash", async () => {
    const events: string[] = [];
    let n = 0;
    const sup = new Supervisor({ log: (e) => events.push(e), onGiveUp: () => events.push("gave_up"), maxRestarts: 0 });
    const spec = {
      name: "sleeper",
      file: process.execPath,
      args: ["-e", "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000)"],
      env: { PATH: process.env.PATH ?? "" },
      ready: async () => {
        n++;
      },
      stopGraceMs: 5000,
    };
    await sup.start(spec);
    const first = sup.pid("sleeper");
    await Promise.all([sup.restart("sleeper"), sup.restart("sleeper")]);
    expect(sup.pid("sleeper")).not.toBe(first);
    expect(sup.states().sleeper).toBe("up");
    expect(events).not.toContain("gave_up");
    expect(events).not.toContain("process_exited");
    expect(n).toBeGreaterThanOrEqual(2);
    await sup.stop(["sleeper"]);
  });
});
