// `bun run dev`: which process a changed file belongs to, and a watcher that restarts only that
// one (app/supervisor.ts). The gate runs app/ and the DocBuilder workers (workers/worker-main.ts
// and what it imports); the editing server runs app/edsrv/ and its kits (workers/kit/main.ts and
// what it imports); a few modules serve both. The editor page's scripts (app/edsrv/browser/*.ts and
// app/edsrv/protocol/) are bundled when the editing server starts (their hash names /browser/<hash>/), so they restart it too;
// the demo page notices the new build and reloads (app/demo/page/demo.js). Open documents survive
// an editing-server restart: its stop stores them, and the pages reconnect.

import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

export type DevProcess = "gate+docbuilder" | "edsrv" | "caddy";

/** Modules both processes load: a change restarts both. */
const SHARED = new Set([
  "app/config.ts",
  "app/log.ts",
  "app/alias-groups.ts",
  "app/editing-uri.ts",
  "app/version.ts",
  "app/net/http-url.ts",
  "workers/lok.ts",
  "workers/lok-abi.ts",
  "workers/lok-callbacks.ts",
  "workers/lok-document.ts",
  "workers/profile.ts",
  "workers/sniff.ts",
  "workers/csv-import.ts",
  "workers/csv-dialect.ts",
  "workers/formats.ts",
]);

/** The processes a changed file (relative to the repository) must restart; empty when none. */
export function processesFor(file: string): DevProcess[] {
  const f = file.split(path.sep).join("/");
  if (/\.test\.ts$|(^|\/)testing\//.test(f) || !/\.(ts|js|css|html|json)$|^Caddyfile$/.test(f)) return [];
  if (f === "Caddyfile") return ["caddy"];
  if (SHARED.has(f)) return ["gate+docbuilder", "edsrv"];
  if (f.startsWith("app/edsrv/") || f.startsWith("workers/kit/") || f === "workers/kit-protocol.ts" || f === "workers/png.ts") return ["edsrv"];
  if (f.startsWith("app/demo/page/")) return []; // read on every request: the page reloads itself
  if (f.startsWith("app/") || f.startsWith("workers/") || f.startsWith("schemas/")) return ["gate+docbuilder"];
  return [];
}

/** Watches the sources and calls `restart` for each process a change belongs to, once per burst of changes. */
export function watchSources(root: string, restart: (p: DevProcess, files: string[]) => void, debounceMs = 300): { close(): void } {
  const pending = new Map<DevProcess, Set<string>>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    for (const [p, files] of pending) restart(p, [...files]);
    pending.clear();
  };
  const watchers: FSWatcher[] = [];
  for (const dir of ["app", "workers", "schemas"]) {
    watchers.push(
      watch(path.join(root, dir), { recursive: true }, (_event, name) => {
        if (!name) return;
        const rel = path.join(dir, name.toString());
        for (const p of processesFor(rel)) {
          if (!pending.has(p)) pending.set(p, new Set());
          pending.get(p)!.add(rel);
        }
        if (pending.size && !timer) timer = setTimeout(flush, debounceMs);
      }),
    );
  }
  watchers.push(watch(path.join(root, "Caddyfile"), () => restart("caddy", ["Caddyfile"])));
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
