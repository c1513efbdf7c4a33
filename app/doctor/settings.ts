// Settings that contradict each other or the spec: the public URL, alias group 1 (always the gate),
// allowed origins that are origins, secrets present and long enough for production, and
// development mode inside the image. Judged on the parsed configuration (app/config.ts).

import type { Config } from "../config";
import { fail, ok, warn, type Finding } from "./types";

/** Secrets shorter than this are refused for production (HS256 keys: at least 256 bits). */
export const MIN_SECRET_CHARS = 32;

export function checkPublicUrl(c: Config): Finding {
  let u: URL;
  try {
    u = new URL(c.publicUrl);
  } catch {
    return fail("settings.public_url", `SVC_PUBLIC_URL "${c.publicUrl}" is not a URL.`, "Set SVC_PUBLIC_URL to the address people reach the service at, such as https://office.example.com.");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return fail("settings.public_url", `SVC_PUBLIC_URL uses ${u.protocol}, not http(s).`, "Set SVC_PUBLIC_URL to an http:// or https:// address.");
  if (u.pathname !== "/" || u.search || u.hash) return fail("settings.public_url", `SVC_PUBLIC_URL has a path (${u.pathname}); the service is served at the root of its origin.`, `Set SVC_PUBLIC_URL=${u.origin}.`);
  if (!c.devMode && ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) {
    return fail("settings.public_url", `SVC_PUBLIC_URL is ${u.origin}, a loopback address: browsers elsewhere and download links in callbacks cannot reach it.`, "Set SVC_PUBLIC_URL to the public https address of the service.");
  }
  if (!c.devMode && u.protocol === "http:" && c.online.sslTermination) {
    return fail("settings.public_url", "SVC_ONLINE_SSL_TERMINATION=1 but SVC_PUBLIC_URL is http://: the editor and the links disagree on the scheme.", `Set SVC_PUBLIC_URL=https://${u.host}.`);
  }
  if (!c.devMode && c.online.serverName && c.online.serverName !== u.host) {
    return fail("settings.public_url", `SVC_ONLINE_SERVER_NAME is ${c.online.serverName} but SVC_PUBLIC_URL names ${u.host}: the editor's URLs would point elsewhere.`, `Set SVC_ONLINE_SERVER_NAME=${u.host}.`);
  }
  return ok("settings.public_url", `SVC_PUBLIC_URL ${u.origin} is a valid origin.`);
}

/**
 * Alias group 1 must be the gate as the editing server reaches it: its first entry's port is the
 * gate's listen port and its host the gate's listen host (or loopback for a wildcard bind).
 */
export function checkAliasGroups(c: Config): Finding {
  const first = c.online.aliasGroups[0]!.split(",")[0]!.trim();
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(first) ? first : `http://${first}`);
  } catch {
    return fail("settings.alias_groups", `SVC_ONLINE_ALIASGROUP1 "${first}" is not a URL.`, `Set SVC_ONLINE_ALIASGROUP1=http://127.0.0.1:${c.appListen.port} (the gate as the editing server reaches it).`);
  }
  const port = u.port === "" ? (u.protocol === "https:" ? 443 : 80) : Number(u.port);
  const listenHost = c.appListen.hostname;
  const wildcard = ["0.0.0.0", "::", ""].includes(listenHost);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const hostOk = wildcard ? true : host === listenHost || (["127.0.0.1", "localhost", "::1"].includes(listenHost) && ["127.0.0.1", "localhost", "::1"].includes(host));
  if (port !== c.appListen.port || !hostOk) {
    return fail(
      "settings.alias_groups",
      `SVC_ONLINE_ALIASGROUP1 starts with ${u.origin}, but the gate listens on ${listenHost}:${c.appListen.port}: the editing server would refuse every embedded document (unauthorized WOPI host) and every WOPISrc would point away from the gate.`,
      `Set SVC_ONLINE_ALIASGROUP1=http://${wildcard ? "127.0.0.1" : listenHost.includes(":") ? `[${listenHost}]` : listenHost}:${c.appListen.port} (alias group 1 is always the gate).`,
      { alias_group_1: u.origin, gate_listen: `${listenHost}:${c.appListen.port}` },
    );
  }
  return ok("settings.alias_groups", `Alias group 1 (${u.origin}) is the gate.`);
}

export function checkAllowedOrigins(c: Config): Finding {
  const bad: string[] = [];
  for (const o of c.embed.allowedOrigins) {
    if (o === "*") continue;
    try {
      if (new URL(o).origin !== o) bad.push(o);
    } catch {
      bad.push(o);
    }
  }
  if (bad.length) {
    const fixed = bad.map((o) => {
      try {
        return new URL(o).origin;
      } catch {
        return `https://${o.replace(/\/.*$/, "")}`;
      }
    });
    return fail(
      "settings.allowed_origins",
      `SVC_EMBED_ALLOWED_ORIGINS has entries that are not origins (scheme://host[:port], no path, no trailing slash): ${bad.join(", ")}. Browsers send the origin exactly, so these never match.`,
      `Write them as origins: ${fixed.join(",")}.`,
      { not_origins: bad },
    );
  }
  if (!c.devMode && c.embed.allowedOrigins.includes("*")) {
    return warn("settings.allowed_origins", "SVC_EMBED_ALLOWED_ORIGINS is *: any web page may create sessions from a browser.", "List the origins of your application's pages instead of *.");
  }
  return ok("settings.allowed_origins", c.embed.allowedOrigins.length ? `Allowed origins: ${c.embed.allowedOrigins.join(", ")}.` : "No browser origin is allowed (sessions are created by your backend).");
}

export function checkSecrets(c: Config): Finding[] {
  const out: Finding[] = [];
  const prod = !c.devMode;
  const judge = (id: string, name: string, value: string, needed: boolean, what: string) => {
    if (value === "") {
      if (needed) out.push(fail(id, `${name} is not set: ${what}.`, `Set ${name} to a random value of at least ${MIN_SECRET_CHARS} characters (openssl rand -base64 32).`));
      else out.push(ok(id, `${name} is not set (not needed in development or unsigned mode).`));
    } else if (value.length < MIN_SECRET_CHARS && prod) {
      out.push(fail(id, `${name} has ${value.length} characters, too short for production.`, `Set ${name} to a random value of at least ${MIN_SECRET_CHARS} characters (openssl rand -base64 32), on both sides.`, { length: value.length }));
    } else out.push(ok(id, `${name} is set (${value.length} characters).`));
  };
  judge("settings.embed_jwt_secret", "SVC_EMBED_JWT_SECRET", c.embed.jwtSecret, prod && c.embed.enabled && !c.embed.allowUnsigned, "embed sessions answer 401 embed_auth_not_configured");
  judge("settings.embed_callback_secret", "SVC_EMBED_CALLBACK_SECRET", c.embed.callbackSecret, prod && c.embed.enabled, "save callbacks go out unsigned, so no receiver can trust them");
  if (c.docbuilder.callbackSecret !== "" || c.docbuilder.jwtSecret !== "") {
    if (c.docbuilder.callbackSecret) judge("settings.docbuilder_callback_secret", "SVC_DOCBUILDER_CALLBACK_SECRET", c.docbuilder.callbackSecret, false, "");
  }
  if (prod && c.embed.allowUnsigned) {
    out.push(warn("settings.embed_unsigned", "SVC_EMBED_ALLOW_UNSIGNED=1: anyone who can reach the service may open any URL as a document.", "Set SVC_EMBED_JWT_SECRET and SVC_EMBED_ALLOW_UNSIGNED=0, and sign configs in your backend."));
  }
  const secrets = [c.embed.jwtSecret, c.embed.callbackSecret, c.docbuilder.jwtSecret, c.docbuilder.callbackSecret].filter(Boolean);
  if (prod && new Set(secrets).size < secrets.length) {
    out.push(warn("settings.secret_reuse", "The same value is used for more than one secret setting.", "Give each of SVC_EMBED_JWT_SECRET, SVC_EMBED_CALLBACK_SECRET, SVC_DOCBUILDER_JWT_SECRET and SVC_DOCBUILDER_CALLBACK_SECRET its own random value."));
  }
  return out;
}

/** Development mode inside the image: demo pages and unsigned embedding exposed to the world. */
export function checkDevMode(c: Config, inImage: boolean): Finding {
  if (c.devMode && inImage) {
    return fail("settings.dev_mode", "SVC_DEV_MODE=1 inside the container image: the demo pages are served and unsigned configs may be accepted.", "Remove SVC_DEV_MODE from the container's environment (the image sets 0).");
  }
  return ok("settings.dev_mode", c.devMode ? "Development mode (outside the image)." : "Development mode is off.");
}
