// `svc doctor` / `bun run doctor`: checks a running or configured instance with the configuration
// the launcher would give it (app/launcher-env.ts, then app/config.ts), prints what is wrong and
// the one change that fixes it, and exits 0 only when every check holds.
//
//   svc doctor [--json] [--callback URL] [--document URL] [--clock-url URL] [--min-free-mb N] [--offline]

import path from "node:path";
import { ConfigError, parseConfig } from "../config";
import { launcherEnvironment } from "../launcher-env";
import { formatReport, runDoctor, type DoctorOptions } from "./run";

const USAGE = "usage: svc doctor [--json] [--callback URL] [--document URL] [--clock-url URL] [--min-free-mb N] [--offline]";

export function parseArgs(argv: string[]): { json: boolean; options: DoctorOptions } | { error: string } {
  const o: DoctorOptions = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? "";
    if (a === "--json") json = true;
    else if (a === "--offline") o.offline = true;
    else if (a === "--callback") o.callbackUrl = value();
    else if (a === "--document") o.documentUrl = value();
    else if (a === "--clock-url") o.clockUrl = value();
    else if (a === "--min-free-mb") o.minFreeMb = Number(value());
    else if (a === "-h" || a === "--help") return { error: USAGE };
    else return { error: `unknown argument ${a}\n${USAGE}` };
  }
  if (o.minFreeMb !== undefined && !(o.minFreeMb >= 0)) return { error: `--min-free-mb takes a number of MB\n${USAGE}` };
  return { json, options: o };
}

if (import.meta.main) {
  const args = parseArgs(process.argv.slice(2).filter((a) => a !== "doctor"));
  if ("error" in args) {
    console.error(args.error);
    process.exit(2);
  }
  let config;
  try {
    config = parseConfig(launcherEnvironment(process.env, path.resolve(import.meta.dir, "../..")).env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const findings = e.problems.map((p) => ({ id: "settings.parse", status: "fail", summary: p, fix: "Fix this setting: the service does not start with it." }));
    console.log(args.json ? JSON.stringify({ ok: false, findings }, null, 2) : findings.map((f) => `FAIL ${f.id}: ${f.summary}\n       fix: ${f.fix}`).join("\n"));
    process.exit(1);
  }
  const report = await runDoctor(config, args.options);
  console.log(args.json ? JSON.stringify(report, null, 2) : formatReport(report));
  process.exit(report.ok ? 0 : 1);
}
