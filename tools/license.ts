#!/usr/bin/env bun
// The vendor's license tool (and the tests' way to make real tokens). Offline; nothing is sent
// anywhere. Keys and tokens use the formats of app/editions/license.ts (docs/licensing.md).
//
//   bun run tools/license.ts keygen [--out <prefix>]
//   bun run tools/license.ts sign --private-key <b64|@file> --kind enterprise|community --conns N
//        --plan year|life [--exp YYYY-MM-DD] [--upd YYYY-MM-DD|none] [--feat a,b] [--mid inst_…]
//        [--key OOSY-…] [--cust "…"] [--v 1|2] [--iat <unix seconds>] [--prod svc-online]
//   bun run tools/license.ts inspect <token|@file> [--public-key <b64|@file>] [--instance-id inst_…]
//        [--dev] [--build-date YYYY-MM-DD] [--now <ISO time>]
//   bun run tools/license.ts price --conns N --plan year|life
//   bun run tools/license.ts stamp-build-date [--date YYYY-MM-DD] [--file app/editions/build-info.ts]

import { randomInt } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BUILD_DATE } from "../app/editions/build-info";
import {
  addDays,
  addYears,
  checkPayload,
  dateInUtc7,
  decodeBase64Strict,
  decodePrivateKey,
  generateKeyPair,
  isCalendarDate,
  LICENSE_PRODUCT,
  licenseStatusView,
  PERPETUAL_UPDATE_YEARS,
  publicKeyOf,
  signToken,
  UPDATE_DAYS_AFTER_EXP,
  verifyLicense,
} from "../app/editions/license";
import { quote } from "../app/editions/pricing";

class UsageError extends Error {}

const USAGE = `usage:
  license keygen [--out <prefix>]              new Ed25519 key pair (Base64 of the raw 32-byte keys)
  license sign --private-key <b64|@file> --kind enterprise|community --conns N --plan year|life
               [--exp YYYY-MM-DD] [--upd YYYY-MM-DD|none] [--feat api_full,callback,whitelabel]
               [--mid inst_…] [--key OOSY-…] [--cust "…"] [--v 1|2] [--iat <unix s>] [--prod …]
  license inspect <token|@file> [--public-key <b64|@file>] [--instance-id inst_…] [--dev]
               [--build-date YYYY-MM-DD] [--now <ISO time>]
  license price --conns N --plan year|life
  license stamp-build-date [--date YYYY-MM-DD] [--file <build-info.ts>]`;

/** A value given directly, or "@path" to read it from a file. */
function valueOrFile(v: string): string {
  return (v.startsWith("@") ? readFileSync(v.slice(1), "utf8") : v).trim();
}

function need(v: string | undefined, name: string): string {
  if (v === undefined || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

function date(v: string, name: string): string {
  if (!isCalendarDate(v)) throw new UsageError(`--${name} must be a calendar date YYYY-MM-DD, got ${v}`);
  return v;
}

const KEY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
function newLicenseCode(plan: string): string {
  const group = () => Array.from({ length: 5 }, () => KEY_ALPHABET[randomInt(KEY_ALPHABET.length)]).join("");
  return [plan === "life" ? "OOSL" : "OOSY", group(), group(), group(), group()].join("-");
}

const json = (x: unknown) => JSON.stringify(x, null, 2);

function keygen(args: string[], out: (s: string) => void) {
  const { values } = parseArgs({ args, options: { out: { type: "string" } }, strict: true });
  const pair = generateKeyPair();
  if (!values.out) {
    out(json({ private_key: pair.privateKey, public_key: pair.publicKey }));
    return;
  }
  const keyFile = `${values.out}.key`;
  const pubFile = `${values.out}.pub`;
  writeFileSync(keyFile, pair.privateKey + "\n", { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  writeFileSync(pubFile, pair.publicKey + "\n");
  out(json({ public_key: pair.publicKey, private_key_file: keyFile, public_key_file: pubFile }));
}

function sign(args: string[], out: (s: string) => void, now: number) {
  const { values: o } = parseArgs({
    args,
    strict: true,
    options: {
      "private-key": { type: "string" },
      kind: { type: "string" },
      conns: { type: "string" },
      plan: { type: "string" },
      exp: { type: "string" },
      upd: { type: "string" },
      feat: { type: "string" },
      mid: { type: "string" },
      key: { type: "string" },
      cust: { type: "string" },
      v: { type: "string", default: "1" },
      iat: { type: "string" },
      prod: { type: "string", default: LICENSE_PRODUCT },
    },
  });
  let privateKey: Uint8Array;
  try {
    privateKey = decodePrivateKey(valueOrFile(need(o["private-key"], "private-key")));
  } catch (e) {
    throw new UsageError(`--private-key: ${(e as Error).message}`);
  }
  const plan = need(o.plan, "plan");
  const conns = Number(need(o.conns, "conns"));
  const exp = o.exp === undefined ? undefined : date(o.exp, "exp");
  if (plan === "year" && exp === undefined) throw new UsageError("--exp is required for --plan year");
  let upd: string | undefined;
  if (o.upd === "none") upd = undefined;
  else if (o.upd !== undefined) upd = date(o.upd, "upd");
  else if (plan === "year" && exp) upd = addDays(exp, UPDATE_DAYS_AFTER_EXP);
  else if (plan === "life") upd = addYears(dateInUtc7(now), PERPETUAL_UPDATE_YEARS);

  const payload: Record<string, unknown> = {
    v: Number(o.v),
    prod: o.prod,
    kind: need(o.kind, "kind"),
    conns,
    plan,
    ...(exp !== undefined && { exp }),
    ...(upd !== undefined && { upd }),
    feat: o.feat ? o.feat.split(",").map((f) => f.trim()).filter(Boolean) : [],
    ...(o.mid !== undefined && { mid: o.mid }),
    key: o.key ?? newLicenseCode(plan),
    ...(o.cust !== undefined && { cust: o.cust }),
    iat: o.iat !== undefined ? Number(o.iat) : Math.floor(now / 1000),
  };
  const checked = checkPayload(payload);
  if (!checked.ok) throw new UsageError(`refusing to sign: ${checked.field} ${checked.problem}`);
  out(signToken(payload, privateKey));
}

function inspect(args: string[], out: (s: string) => void, now: number) {
  const { values: o, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      "public-key": { type: "string" },
      "instance-id": { type: "string", default: "" },
      dev: { type: "boolean", default: false },
      "build-date": { type: "string", default: BUILD_DATE },
      now: { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError("inspect takes exactly one token (or @file)");
  const token = valueOrFile(positionals[0]!);
  const at = o.now === undefined ? now : Date.parse(o.now);
  if (Number.isNaN(at)) throw new UsageError(`--now must be an ISO time, got ${o.now}`);
  const buildDate = date(o["build-date"]!, "build-date");

  // The payload as written, decoded without trusting it (shown even when the signature is bad).
  let payload: unknown = null;
  const first = token.split(".")[0] ?? "";
  const bytes = decodeBase64Strict(first);
  if (bytes) {
    try {
      payload = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      payload = null;
    }
  }
  if (o["public-key"] === undefined) {
    out(json({ payload, signature_checked: false, license: null, note: "pass --public-key to check the signature and get the state" }));
    return;
  }
  const status = verifyLicense(token, {
    publicKey: valueOrFile(o["public-key"]),
    now: at,
    buildDate,
    instanceId: o["instance-id"]!,
    devMode: o.dev!,
  });
  out(
    json({
      payload,
      signature_checked: true,
      evaluated_at: new Date(at).toISOString(),
      build_date: buildDate,
      license: { ...licenseStatusView(status), features: status.features, ...(status.reason && { reason: status.reason }) },
    }),
  );
}

function price(args: string[], out: (s: string) => void) {
  const { values: o } = parseArgs({ args, strict: true, options: { conns: { type: "string" }, plan: { type: "string" } } });
  const conns = Number(need(o.conns, "conns"));
  const plan = need(o.plan, "plan");
  if (!Number.isSafeInteger(conns) || conns < 1) throw new UsageError("--conns must be an integer of 1 or more");
  if (plan !== "year" && plan !== "life") throw new UsageError("--plan must be year or life");
  const q = quote(conns, plan);
  out(json({ plan: q.plan, requested: q.requested, billed: q.billed, unit_price: q.unit_price, total: q.total, currency: "USD" }));
}

const DEFAULT_BUILD_INFO = path.resolve(import.meta.dir, "../app/editions/build-info.ts");

function stampBuildDate(args: string[], out: (s: string) => void, now: number) {
  const { values: o } = parseArgs({ args, strict: true, options: { date: { type: "string" }, file: { type: "string" } } });
  const d = o.date === undefined ? dateInUtc7(now) : date(o.date, "date");
  const file = o.file ?? DEFAULT_BUILD_INFO;
  const text = readFileSync(file, "utf8");
  const line = /^export const BUILD_DATE = "\d{4}-\d{2}-\d{2}";$/m;
  if (!line.test(text)) throw new UsageError(`${file} has no line export const BUILD_DATE = "YYYY-MM-DD";`);
  writeFileSync(file, text.replace(line, `export const BUILD_DATE = "${d}";`));
  out(json({ file, build_date: d }));
}

/** Runs one command; returns the exit code (0 done, 2 usage or input error). */
export function main(argv: string[], io = { out: (s: string) => console.log(s), err: (s: string) => console.error(s) }, now = Date.now()): number {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case "keygen":
        keygen(rest, io.out);
        return 0;
      case "sign":
        sign(rest, io.out, now);
        return 0;
      case "inspect":
        inspect(rest, io.out, now);
        return 0;
      case "price":
        price(rest, io.out);
        return 0;
      case "stamp-build-date":
        stampBuildDate(rest, io.out, now);
        return 0;
      case "help":
      case "--help":
      case "-h":
        io.out(USAGE);
        return 0;
      default:
        io.err(cmd ? `unknown command ${cmd}\n${USAGE}` : USAGE);
        return 2;
    }
  } catch (e) {
    // parseArgs errors (unknown option, missing value) are usage errors too.
    io.err(`license ${cmd}: ${(e as Error).message}`);
    return 2;
  }
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
