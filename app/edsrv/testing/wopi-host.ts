// A WOPI host on loopback for the editing-server tests: files in memory, every call recorded,
// PutFile answers scriptable (queue of statuses), LastModifiedTime changes on every store.
import { scaled } from "../../testing/until";

export interface HostFile {
  name: string;
  bytes: Uint8Array;
  version: number;
  userCanWrite?: boolean;
  /** More CheckFileInfo properties for this file (a connector's: EnableShare, HideUserList…). */
  info?: Record<string, unknown>;
}

export interface PutCall {
  fileId: string;
  headers: Record<string, string>;
  bytes: Uint8Array;
  status: number;
  token: string | null;
}

/** A 1×1 PNG. */
export const TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export function lmt(version: number): string {
  return new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + version * 1000).toISOString().replace("Z", "000Z");
}

export function startWopiHost() {
  const files = new Map<string, HostFile>();
  const puts: PutCall[] = [];
  const cfi: { fileId: string; token: string | null }[] = [];
  const gets: { fileId: string; token: string | null }[] = [];
  /** Calls refused for an unknown file or token (401), in order: a test sees the call was made. */
  const refused: { fileId: string; token: string | null; contents: boolean }[] = [];
  /** Statuses the next PutFiles answer (then 200). */
  const putPlan: number[] = [];
  const waiters: { pred: (p: PutCall) => boolean; resolve: (p: PutCall) => void }[] = [];
  /** token → { userId, canWrite } */
  const tokens = new Map<string, { userId: string; name: string; canWrite: boolean }>();
  const pages = new Map<string, string>();

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname.startsWith("/page/")) {
        const html = pages.get(url.pathname.slice(6));
        return html ? new Response(html, { headers: { "Content-Type": "text/html" } }) : new Response("nf", { status: 404 });
      }
      // A person's picture, as a connector serves it (CheckFileInfo's UserExtraInfo.avatar points here).
      if (url.pathname === "/avatar.png") {
        host.avatarRequests++;
        return new Response(Buffer.from(TINY_PNG, "base64"), { headers: { "Content-Type": "image/png" } });
      }
      const m = /^\/wopi\/files\/([^/]+)(\/contents)?$/.exec(url.pathname);
      if (!m) return new Response("not found", { status: 404 });
      const id = m[1]!;
      const f = files.get(id);
      const token = url.searchParams.get("access_token");
      const t = token ? tokens.get(token) : undefined;
      if (!f || !t) {
        refused.push({ fileId: id, token, contents: m[2] !== undefined });
        return new Response("unauthorized", { status: 401 });
      }
      if (!m[2] && req.method === "GET") {
        cfi.push({ fileId: id, token });
        return Response.json({
          BaseFileName: f.name,
          Size: f.bytes.byteLength,
          OwnerId: "owner",
          UserId: t.userId,
          UserFriendlyName: t.name,
          UserCanWrite: t.canWrite && f.userCanWrite !== false,
          LastModifiedTime: lmt(f.version),
          PostMessageOrigin: url.origin,
          ...f.info,
        });
      }
      if (m[2] && req.method === "GET") {
        gets.push({ fileId: id, token });
        return new Response(f.bytes as unknown as BodyInit);
      }
      if (m[2] && req.method === "POST") {
        const bytes = new Uint8Array(await req.arrayBuffer());
        const headers: Record<string, string> = {};
        req.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
        let status = putPlan.length ? putPlan.shift()! : 200;
        if (status === 200 && headers["x-cool-wopi-timestamp"] && headers["x-cool-wopi-timestamp"] !== lmt(f.version)) status = 409;
        if (!t.canWrite) status = 401;
        const call: PutCall = { fileId: id, headers, bytes, status, token };
        puts.push(call);
        for (const w of [...waiters]) if (w.pred(call)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(call);
        }
        // A test holds the answer (a slow host): the editing server's save stays under way meanwhile.
        if (host.holdPuts) await host.holdPuts;
        if (status === 200) {
          f.bytes = bytes;
          f.version++;
          return Response.json({ LastModifiedTime: lmt(f.version) });
        }
        if (status === 409) return Response.json({ COOLStatusCode: 1010 }, { status: 409 });
        return new Response("no", { status });
      }
      return new Response("bad", { status: 400 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const host = {
    /** While set, every PutFile is recorded at once and answered when it resolves. */
    holdPuts: null as Promise<void> | null,
    /** How often /avatar.png was asked for. */
    avatarRequests: 0,
    server,
    origin,
    files,
    puts,
    cfi,
    gets,
    refused,
    putPlan,
    tokens,
    pages,
    addFile(id: string, name: string, bytes: Uint8Array, opts: Partial<HostFile> = {}) {
      files.set(id, { name, bytes, version: 1, ...opts });
      return `${origin}/wopi/files/${id}`;
    },
    addToken(token: string, userId: string, canWrite: boolean, name = `User ${userId}`) {
      tokens.set(token, { userId, name, canWrite });
    },
    /** Resolves with the first PutFile (already received or future) that matches. */
    /** The first PutFile (made or to come) matching pred; rejects after `ms` (scaled) naming `what` and the PutFiles seen. */
    waitPut(pred: (p: PutCall) => boolean, what = `a PutFile matching ${String(pred).slice(0, 160)}`, ms = 30_000): Promise<PutCall> {
      const seen = puts.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          resolve: (p: PutCall) => {
            clearTimeout(timer);
            resolve(p);
          },
        };
        const timer = setTimeout(() => {
          if (waiters.includes(w)) waiters.splice(waiters.indexOf(w), 1);
          const last = puts.slice(-6).map((p) => ({ fileId: p.fileId, status: p.status, autosave: p.headers["x-cool-wopi-isautosave"], exit: p.headers["x-cool-wopi-isexitsave"] }));
          reject(new Error(`never: ${what} within ${scaled(ms)} ms; ${puts.length} PutFiles, the last: ${JSON.stringify(last)}`));
        }, scaled(ms));
        waiters.push(w);
      });
    },
    stop() {
      server.stop(true);
    },
  };
  return host;
}
