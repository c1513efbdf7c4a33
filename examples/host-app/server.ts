// An integrator's application, the smallest real one: a list of documents, each opened in the
// svc editor, save callbacks verified and kept as versions. Run it with `bun run example` beside a
// running service (README.md here says which settings the service needs).
//
// What it shows:
//   - the backend creates the editor session, server to server, with the config signed by the
//     JWT secret (which never reaches the browser);
//   - the page loads api.js from the service and opens that session with `new SVC.Editor`;
//   - POST /callback checks the signature before reading the body, downloads the saved version
//     from the signed link and keeps it; the next opening uses a new document key.

import { Hono } from "hono";
import { sign } from "hono/jwt";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { verifyCallback } from "../../app/callbacks/verify";

const PORT = Number(process.env.PORT ?? 3000);
const SVC_URL = (process.env.SVC_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
/** How the service reaches this app (it downloads documents and posts callbacks here). */
const APP_URL = (process.env.APP_URL ?? `http://127.0.0.1:${PORT}`).replace(/\/+$/, "");
const JWT_SECRET = process.env.SVC_EMBED_JWT_SECRET ?? "";
const CALLBACK_SECRET = process.env.SVC_EMBED_CALLBACK_SECRET ?? "";
const DATA = path.resolve(process.env.DATA_DIR ?? path.join(import.meta.dir, ".data"));
const FIXTURES = path.resolve(import.meta.dir, "../../fixtures");

// ---- storage: documents/<name> is the current content, versions/<name>/v<n>.<ext> every save
const docsDir = path.join(DATA, "documents");
const versionsDir = path.join(DATA, "versions");
mkdirSync(docsDir, { recursive: true });
mkdirSync(versionsDir, { recursive: true });
if (!readdirSync(docsDir).length) for (const f of ["hello.docx", "hello.xlsx", "hello.pptx"]) copyFileSync(path.join(FIXTURES, f), path.join(docsDir, f));

interface DocMeta {
  /** Increases with every version received: part of the document key, so each content version has its own. */
  revision: number;
  versions: { revision: number; version: number; savedBy: string; at: string; file: string }[];
}
const metaFile = path.join(DATA, "meta.json");
const meta: Record<string, DocMeta> = existsSync(metaFile) ? JSON.parse(readFileSync(metaFile, "utf8")) : {};
const metaOf = (name: string) => (meta[name] ??= { revision: 0, versions: [] });
const saveMeta = () => writeFileSync(metaFile, JSON.stringify(meta, null, 2));
const docNames = () => readdirSync(docsDir).sort();
const keyOf = (name: string) => `${name.replace(/[^A-Za-z0-9._-]/g, "_")}-r${metaOf(name).revision}`;
const nameOfKey = (key: string) => docNames().find((n) => keyOf(n) === key) ?? null;

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const app = new Hono();

app.get("/", (c) =>
  c.html(`<!doctype html><meta charset="utf-8"><title>Host app</title>
<h1>Documents</h1>
<ul id="documents">${docNames()
    .map((n) => {
      const vs = metaOf(n).versions;
      return `<li><a href="/open/${encodeURIComponent(n)}">${esc(n)}</a> — ${vs.length} saved version(s)${vs
        .map((v) => ` <a class="version" href="/versions/${encodeURIComponent(n)}/${encodeURIComponent(v.file)}">v${v.version} (${esc(v.savedBy)})</a>`)
        .join("")}</li>`;
    })
    .join("")}</ul>`),
);

// The service downloads the document from here (document.url).
app.get("/files/:name", (c) => {
  const name = c.req.param("name");
  if (!docNames().includes(name)) return c.text("not found", 404);
  return new Response(Bun.file(path.join(docsDir, name)));
});

app.get("/versions/:name/:file", (c) => {
  const file = path.join(versionsDir, path.basename(c.req.param("name")), path.basename(c.req.param("file")));
  return existsSync(file) ? new Response(Bun.file(file)) : c.text("not found", 404);
});

// The backend creates the session (server to server); the page only gets the session object.
app.get("/open/:name", async (c) => {
  const name = c.req.param("name");
  if (!docNames().includes(name)) return c.text("not found", 404);
  const config = {
    document: { url: `${APP_URL}/files/${encodeURIComponent(name)}?r=${metaOf(name).revision}`, fileType: path.extname(name).slice(1).toLowerCase(), key: keyOf(name), title: name },
    editor: { mode: "edit", lang: "vi", user: { id: c.req.query("user") ?? "u1", name: c.req.query("name") ?? "Người dùng" }, callbackUrl: `${APP_URL}/callback` },
    ui: { closeButton: true },
  };
  // Signed when the service requires it (production); plain where the service accepts unsigned configs.
  const body = JWT_SECRET ? { token: await sign({ ...config, exp: Math.floor(Date.now() / 1000) + 300 }, JWT_SECRET, "HS256") } : config;
  const res = await fetch(`${SVC_URL}/svc/embed/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const session = await res.json();
  if (res.status !== 201) return c.json(session, res.status as 400);
  return c.html(`<!doctype html><meta charset="utf-8"><title>${esc(name)}</title>
<body style="margin:0;font:14px system-ui">
<p style="margin:6px"><a href="/">← Documents</a> <b>${esc(name)}</b> <button id="save">Save</button> <span id="status"></span></p>
<div id="editor" style="height:calc(100vh - 40px)"></div>
<script src="${SVC_URL}/svc/api.js"></script>
<script>
  window.log = [];
  const status = (t) => (document.getElementById("status").textContent = t);
  const editor = new SVC.Editor("editor", {
    session: ${JSON.stringify(session).replace(/</g, "\\u003c")},
    events: {
      onDocumentLoaded: (e) => { log.push(["onDocumentLoaded", e]); status("ready"); },
      onModified: (e) => { log.push(["onModified", e]); status(e.modified ? "unsaved changes" : "saved"); },
      onSaved: (e) => { log.push(["onSaved", e]); status("version " + e.version + " stored"); },
      onLimitReached: (e) => { log.push(["onLimitReached", e]); status(e.message); },
      onClose: (e) => { log.push(["onClose", e]); location.href = "/"; },
      onError: (e) => { log.push(["onError", e]); status(e.code + ": " + e.message); },
    },
  });
  document.getElementById("save").onclick = () => editor.save().catch(() => {});
  window.editor = editor;
</script></body>`);
});

// Save callbacks: the signature is checked on the raw body before anything else.
app.post("/callback", async (c) => {
  const raw = new Uint8Array(await c.req.arrayBuffer());
  if (CALLBACK_SECRET) {
    const check = verifyCallback({ secret: CALLBACK_SECRET, headers: c.req.raw.headers, rawBody: raw });
    if (!check.ok) return c.json({ error: check.reason }, 401);
  }
  const cb = JSON.parse(new TextDecoder().decode(raw));
  const name = nameOfKey(cb.key);
  if (!name) return c.json({ ok: true, ignored: "unknown key" });
  if (cb.status === "saved") {
    const m = metaOf(name);
    // (key, version) is unique: a retry of a version already kept is acknowledged, not stored twice.
    if (m.versions.some((v) => v.revision === m.revision && v.version === cb.version)) return c.json({ ok: true });
    const res = await fetch(cb.url);
    // Not stored: answer an error, the service tries again (after 10 s, then 60 s).
    if (!res.ok) return c.json({ error: `download ${res.status}` }, 502);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const file = `r${m.revision}-v${cb.version}${path.extname(name)}`;
    mkdirSync(path.join(versionsDir, name), { recursive: true });
    writeFileSync(path.join(versionsDir, name, file), bytes);
    writeFileSync(path.join(docsDir, name), bytes);
    m.versions.push({ revision: m.revision, version: cb.version, savedBy: cb.savedBy?.name ?? "", at: cb.timestamp, file });
    saveMeta();
  } else if (cb.status === "closed") {
    // After closed, the next opening must use a new key: the next revision.
    metaOf(name).revision++;
    saveMeta();
  }
  return c.json({ ok: true });
});

Bun.serve({ hostname: process.env.HOST ?? "127.0.0.1", port: PORT, fetch: app.fetch });
console.log(`host app on ${APP_URL} (service ${SVC_URL}; configs ${JWT_SECRET ? "signed" : "unsigned"}; callbacks ${CALLBACK_SECRET ? "verified" : "NOT verified: set SVC_EMBED_CALLBACK_SECRET"})`);
