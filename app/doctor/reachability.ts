// The proxy, the gate and the editing server reachable from each other the way the spec's flows
// need: the proxy answers the gate's /svc/healthz and the editing server's discovery (browsers),
// the gate answers on its own address (the proxy, the editing server's WOPI calls through alias
// group 1), the editing server answers its discovery (the gate reads it for every session) and the
// gate's last sample of the editing server's admin channel is ok.

import type { Config } from "../config";
import { fail, ok, type Finding } from "./types";

async function get(url: string, timeoutMs: number): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    return { status: res.status, body: await res.text() };
  } catch (e) {
    const err = e as { code?: string; name?: string; message?: string };
    return { error: err.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err.code ?? err.message ?? String(e)) };
  }
}

export interface Endpoints {
  gate: string;
  edsrv: string;
  proxy: string;
}

/** Where each process is reached from this machine, from the configuration. */
export function endpointsOf(c: Config): Endpoints {
  const h = ["0.0.0.0", "::", ""].includes(c.appListen.hostname) ? "127.0.0.1" : c.appListen.hostname;
  return {
    gate: `http://${h.includes(":") ? `[${h}]` : h}:${c.appListen.port}`,
    edsrv: c.online.url,
    proxy: `http://127.0.0.1:${c.ownPorts[2]}`,
  };
}

export async function checkReachability(c: Config, e: Endpoints = endpointsOf(c), timeoutMs = 3000): Promise<Finding[]> {
  const out: Finding[] = [];
  // A sample of the editing server taken now (the gate waits up to 3 s for it): the last one may
  // predate an editing server that started after the gate.
  const gate = await get(`${e.gate}/svc/healthz?edsrv=fresh`, timeoutMs + 3000);
  if ("error" in gate || gate.status !== 200) {
    out.push(fail("reach.gate", `The gate does not answer at ${e.gate}/svc/healthz (${"error" in gate ? gate.error : `HTTP ${gate.status}`}).`, "Start the service (npm run start, or the container), or set SVC_APP_LISTEN to where the gate listens.", { url: `${e.gate}/svc/healthz` }));
  } else out.push(ok("reach.gate", `The gate answers at ${e.gate}.`));

  const disco = await get(`${e.edsrv}/hosting/discovery`, timeoutMs);
  if ("error" in disco || disco.status !== 200 || !disco.body.includes("wopi-discovery")) {
    out.push(fail("reach.edsrv", `The editing server's discovery does not answer at ${e.edsrv}/hosting/discovery (${"error" in disco ? disco.error : `HTTP ${disco.status}`}): sessions answer 503 editor_unavailable.`, "Start the editing server, or set SVC_EDSRV_URL to where it listens.", { url: `${e.edsrv}/hosting/discovery` }));
  } else out.push(ok("reach.edsrv", `The editing server answers at ${e.edsrv}.`));

  const proxied = await get(`${e.proxy}/svc/healthz`, timeoutMs);
  const proxiedEd = await get(`${e.proxy}/hosting/discovery`, timeoutMs);
  if ("error" in proxied || proxied.status !== 200 || "error" in proxiedEd || proxiedEd.status !== 200) {
    const why = "error" in proxied ? proxied.error : proxied.status !== 200 ? `/svc/healthz HTTP ${proxied.status}` : "error" in proxiedEd ? proxiedEd.error : `/hosting/discovery HTTP ${proxiedEd.status}`;
    out.push(fail("reach.proxy", `The proxy at ${e.proxy} does not pass the gate and the editing server through (${why}).`, "Start the proxy (Caddy) with the repository's Caddyfile, or set SVC_PROXY_ADDRESS to its port.", { url: e.proxy }));
  } else out.push(ok("reach.proxy", `The proxy at ${e.proxy} reaches the gate and the editing server.`));

  if (!("error" in gate) && gate.status === 200) {
    let upstream = "";
    try {
      upstream = String((JSON.parse(gate.body) as { edsrv?: unknown }).edsrv ?? "");
    } catch {
      upstream = "";
    }
    if (upstream === "auth_failed") {
      out.push(fail("reach.gate_to_edsrv", "The gate cannot read the editing server's admin channel: wrong admin credentials (upstream.edsrv = auth_failed), so connections are not counted.", "Give the gate and the editing server the same SVC_EDSRV_ADMIN_PASSWORD (and SVC_EDSRV_ADMIN_USER for a real Collabora)."));
    } else if (upstream && upstream !== "ok") {
      out.push(fail("reach.gate_to_edsrv", `The gate's sample of the editing server, taken now, says ${upstream}.`, "Set SVC_EDSRV_URL (the gate's side) to the editing server's address, and check it runs."));
    } else if (upstream === "ok") out.push(ok("reach.gate_to_edsrv", "The gate samples the editing server's admin channel."));
  }
  return out;
}
