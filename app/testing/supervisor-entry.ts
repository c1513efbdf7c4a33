// A launcher in miniature for app/supervisor.test.ts: supervises one long-running process, prints
// its pid, and waits to be killed.
import { Supervisor } from "../supervisor";

const supervisor = new Supervisor({ log: () => {}, onGiveUp: () => process.exit(1) });
await supervisor.start({ name: "sleeper", file: "/bin/sleep", args: ["600"], env: { PATH: "/usr/bin:/bin" }, ready: async () => {}, stopGraceMs: 1000 });
console.log(`child ${supervisor.pid("sleeper")}`);
setInterval(() => {}, 60_000);
