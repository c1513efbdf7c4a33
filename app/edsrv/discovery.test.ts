// Discovery, capabilities, the editor page (CSP, alias groups, token placement), alias-group
// matching and the admin/metrics authentication. No document is opened here (no kits).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import { parseConfig } from "../config";
import { memoryLogger } from "../log";
import { APPS } from "./discovery";
import { docKeyOf, matchGroup, parseAliasGroups } from "../alias-groups";
import { createEdsrv, parseDocWsUrl, type Edsrv } from "./server";
import { TestSocket } from "./testing/ws-client";

const SPEC_TYPES = ["docx", "doc", "odt", "rtf", "txt", "xlsx", "xls", "ods", "csv", "pptx", "ppt", "odp"];
let ed: Edsrv;
let edTls: Edsrv;
const logger = memoryLogger("debug");

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "edsrv-disc-"));
  const config = parseConfig({
    SVC_DATA_DIR: dataDir,
    SVC_ONLINE_SERVER_NAME: "office.example.test:8443",
    SVC_ONLINE_FRAME_ANCESTORS: "https://app.example.test",
    SVC_EMBED_ALLOWED_ORIGINS: "https://portal.example.test/",
    SVC_ONLINE_ALIASGROUP1: "http://gate.internal:8081,http://127\\.0\\.0\\.1:8081",
    SVC_ONLINE_ALIASGROUP2: "https://files.example.test:443,https://files[0-9]+\\.example\\.test:443",
    SVC_EDSRV_ADMIN_PASSWORD: "s3cret-admin",
  });
  ed = await createEdsrv({ config, logger, listen: { hostname: "127.0.0.1", port: 0 }, idleKits: 0 });
  edTls = await createEdsrv({
    config: parseConfig({ SVC_DATA_DIR: dataDir, SVC_ONLINE_SERVER_NAME: "office.example.test", SVC_ONLINE_SSL_TERMINATION: "true" }),
    logger: memoryLogger(),
    listen: { hostname: "127.0.0.1", port: 0 },
    idleKits: 0,
  });
});
afterAll(async () => {
  await ed?.close();
  await edTls?.close();
});

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" });
async function discovery(e: Edsrv) {
  const res = await fetch(`${e.url}/hosting/discovery`);
  const text = await res.text();
  return { res, text, doc: xml.parse(text) };
}
const asArray = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

describe("discovery", () => {
  test("is text/xml with one net-zone external-http, app groups, MIME apps and Capabilities", async () => {
    const { res, doc } = await discovery(ed);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/xml");
    const zone = doc["wopi-discovery"]["net-zone"];
    expect(zone.name).toBe("external-http");
    const apps = asArray(zone.app) as any[];
    const names = apps.map((a) => a.name);
    for (const n of ["writer", "calc", "impress", "draw", "Capabilities", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"]) expect(names).toContain(n);
    const mime = apps.find((a) => a.name === "application/msword");
    for (const a of asArray(mime.action) as any[]) expect(a.ext).toBe("");
    const caps = apps.find((a) => a.name === "Capabilities");
    expect(asArray(caps.action).map((a: any) => a.name)).toEqual(["getinfo"]);
    for (const a of apps.filter((x) => x.name !== "Capabilities")) expect(a.favIconUrl).toStartWith("http://office.example.test:8443/browser/");
  });

  test("has no proof-key element", async () => {
    const { doc } = await discovery(ed);
    expect(doc["wopi-discovery"]["proof-key"]).toBeUndefined();
  });

  test("urlsrc comes from SVC_ONLINE_SERVER_NAME, not from the address used to call it, and ends with ed.html?", async () => {
    const { doc } = await discovery(ed);
    const writer = (asArray(doc["wopi-discovery"]["net-zone"].app) as any[]).find((a) => a.name === "writer");
    for (const a of asArray(writer.action) as any[]) {
      expect(a.urlsrc).toBe(`http://office.example.test:8443/browser/${ed.hash}/ed.html?`);
      expect(["edit", "view", "editnew"]).toContain(a.name);
    }
    expect(ed.hash).toMatch(/^[0-9a-f]{10}$/);
  });

  test("discovery net-zone is external-http even with SVC_ONLINE_SSL_TERMINATION=true (only urlsrc turns https)", async () => {
    // Spec "Editing-server discovery": one net-zone (name external-http); SSL termination changes
    // the scheme of urlsrc, nothing else.
    const { doc, text } = await discovery(edTls);
    const zone = doc["wopi-discovery"]["net-zone"];
    expect(zone.name).toBe("external-http");
    expect(text.match(/<net-zone\b/g)).toHaveLength(1);
    expect(text).not.toContain("external-https");
    const writer = (asArray(zone.app) as any[]).find((a) => a.name === "writer");
    expect(asArray(writer.action)[0].urlsrc).toStartWith("https://office.example.test/browser/");
    const caps = (asArray(zone.app) as any[]).find((a) => a.name === "Capabilities");
    expect(asArray(caps.action)[0].urlsrc).toBe("https://office.example.test/hosting/capabilities");
  });

  test("edit extensions cover the spec's 12 types, with edit, view and a default", async () => {
    const { doc } = await discovery(ed);
    const actions = (asArray(doc["wopi-discovery"]["net-zone"].app) as any[]).flatMap((a) => asArray(a.action) as any[]);
    const edit = new Set(actions.filter((a) => a.name === "edit").map((a) => a.ext));
    for (const t of SPEC_TYPES) {
      expect(edit.has(t)).toBe(true);
      expect(actions.some((a) => a.name === "view" && a.ext === t)).toBe(true);
      expect(actions.find((a) => a.name === "edit" && a.ext === t).default).toBe("true");
    }
    expect(actions.some((a) => a.name === "editnew" && a.ext === "docx")).toBe(true);
    expect(APPS.map((a) => a.name)).toEqual(["writer", "calc", "impress", "draw"]);
  });

  test("other /hosting paths answer 400", async () => {
    expect((await fetch(`${ed.url}/hosting/whatever`)).status).toBe(400);
  });
});

describe("capabilities", () => {
  test("is JSON with the spec's fields and types", async () => {
    const res = await fetch(`${ed.url}/hosting/capabilities`);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    const c = await res.json();
    expect(typeof c["convert-to"].available).toBe("boolean");
    expect(typeof c["convert-to"].endpoint).toBe("string");
    for (const k of ["hasMobileSupport", "hasProxyPrefix", "hasSettingIframeSupport", "hasTemplateSource", "hasWopiAccessCheck"]) expect(typeof c[k]).toBe("boolean");
    for (const k of ["productName", "productVersion", "productVersionHash", "serverId"]) expect(typeof c[k]).toBe("string");
    expect(c.productVersionHash).toBe(ed.hash);
    expect(c.serverId).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe("editor page", () => {
  const gateSrc = "http://gate.internal:8081/svc/wopi/files/doc_1";
  const page = (wopiSrc: string, form: Record<string, string>, extra = "") =>
    fetch(`${ed.url}/browser/${ed.hash}/ed.html?WOPISrc=${encodeURIComponent(wopiSrc)}&lang=vi-VN${extra}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });

  test("POST embeds the token in the page body, not in any URL, and parses access_token_ttl and ui_defaults", async () => {
    const res = await page(gateSrc, { access_token: "tok_ABC-123", access_token_ttl: "1893456000000", ui_defaults: "UIMode=classic;TextRuler=false;UITheme=dark" });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('data-access-token="tok_ABC-123"');
    expect(body).toContain('data-access-token-ttl="1893456000000"');
    const ui = JSON.parse(Buffer.from(/data-ui-defaults="([^"]*)"/.exec(body)![1]!, "base64").toString());
    expect(ui).toEqual({ uiMode: "classic", text: { ShowRuler: "false" }, darkTheme: "true" });
    for (const m of body.matchAll(/(?:src|href)="([^"]*)"/g)) expect(m[1]).not.toContain("tok_ABC");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  test("css_variables: the host's --co- theme variables become the page's, and nothing else the field holds reaches the page", async () => {
    const body = await (await page(gateSrc, {
      access_token: "t",
      css_variables: "--co-primary-element=#0082c9;--co-primary-text:#ffffff;--co-border-radius=3px;color=red;--co-x=</style><script>alert(1)</script>;--co-y=url(javascript:alert(1))",
    })).text();
    expect(body).toContain("<style>:root{--co-primary-element:#0082c9;--co-primary-text:#ffffff;--co-border-radius:3px}</style>");
    expect(body).not.toContain("alert(1)");
    expect(await (await page(gateSrc, { access_token: "t" })).text()).not.toContain("<style>:root{");
  });

  test("a non-numeric access_token_ttl becomes 0", async () => {
    const body = await (await page(gateSrc, { access_token: "t", access_token_ttl: "soon" })).text();
    expect(body).toContain('data-access-token-ttl="0"');
  });

  test("CSP frame-ancestors holds SVC_ONLINE_FRAME_ANCESTORS, SVC_EMBED_ALLOWED_ORIGINS, this server and the WOPI host", async () => {
    const res = await page("https://files7.example.test/wopi/files/9", { access_token: "t" });
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    const fa = /frame-ancestors ([^;]*)/.exec(csp)![1]!.split(" ");
    expect(fa).toContain("https://app.example.test");
    expect(fa).toContain("https://portal.example.test");
    expect(fa).toContain("office.example.test:*");
    expect(fa).toContain("files7.example.test:*");
    // The people list's avatars: from the WOPI host's origin or data: URLs, nowhere else.
    expect(/img-src ([^;]*)/.exec(csp)![1]!.split(" ").sort()).toEqual(["'self'", "blob:", "data:", "https://files7.example.test"]);
  });

  test("GET works too (form fields in the query)", async () => {
    const res = await fetch(`${ed.url}/browser/${ed.hash}/ed.html?WOPISrc=${encodeURIComponent(gateSrc)}`);
    expect(res.status).toBe(200);
  });

  test("a WOPISrc outside every alias group gets an unauthorized-host refusal", async () => {
    const res = await page("http://evil.example.test/wopi/files/1", { access_token: "t" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Unauthorized WOPI host");
  });

  test("a document WebSocket for a host outside the alias groups is refused", async () => {
    const src = "http://evil.example.test/wopi/files/1";
    const a = encodeURIComponent(`${src}?access_token=t&access_token_ttl=0`);
    const host = new URL(ed.url).host;
    const s = new TestSocket(`${ed.url.replace("http", "ws")}/ed/${a}/ws?WOPISrc=${encodeURIComponent(src)}&compat=/ws`, `http://${host}`);
    await s.opened;
    s.send(`load url=${encodeURIComponent(src)}`);
    expect(await s.waitText("error:")).toBe("error: cmd=internal kind=unauthorized");
    await s.whenClosed();
  });

  test("the client script and stylesheet are served under /browser/<hash>/", async () => {
    expect((await fetch(`${ed.url}/browser/${ed.hash}/ed.js`)).status).toBe(200);
    expect((await fetch(`${ed.url}/browser/${ed.hash}/ed.css`)).status).toBe(200);
  });
});

describe("alias groups", () => {
  const groups = parseAliasGroups(["http://gate:8081,http://gate-alias:8081", "https://cloud.example.com:443,https://cloud[0-9]\\.example\\.com:443"]);
  test("group 1 host and its plain alias match exactly; other groups' aliases are regular expressions", () => {
    expect(matchGroup(groups, "http://gate:8081/svc/wopi/files/1")).toBe(groups[0]!);
    expect(matchGroup(groups, "http://gate-alias:8081/x")).toBe(groups[0]!);
    expect(matchGroup(groups, "http://gatex:8081/x")).toBeNull();
    expect(matchGroup(groups, "https://cloud3.example.com/wopi/files/1")).toBe(groups[1]!);
    expect(matchGroup(groups, "https://cloud33.example.com/wopi/files/1")).toBeNull();
    expect(matchGroup(groups, "https://evil.com/?cloud.example.com")).toBeNull();
  });
  test("an alias maps to the group's canonical host in the docKey", () => {
    expect(decodeURIComponent(docKeyOf("http://gate-alias:8081/svc/wopi/files/1?x=1", groups[0]!))).toBe("http://gate:8081/svc/wopi/files/1");
  });
});

describe("document WebSocket URL forms", () => {
  const src = "http://gate:8081/svc/wopi/files/doc_1";
  const a = encodeURIComponent(`${src}?access_token=tok_1&access_token_ttl=0`);
  test("canonical /ed/<A>/ws?WOPISrc=<B>&compat=/ws", () => {
    const p = parseDocWsUrl(`http://x/ed/${a}/ws?WOPISrc=${encodeURIComponent(src)}&compat=/ws`)!;
    expect(p.wopiSrc).toBe(src);
    expect(p.docParams.get("access_token")).toBe("tok_1");
  });
  test("hexified /ed/0x<hex>/ws", () => {
    const hex = Buffer.from(`${a}/ws?WOPISrc=${encodeURIComponent(src)}&compat=`).toString("hex");
    const p = parseDocWsUrl(`http://x/ed/0x${hex}/ws`)!;
    expect(p.wopiSrc).toBe(src);
    expect(p.docParams.get("access_token")).toBe("tok_1");
  });
  test("document part encoded twice", () => {
    const p = parseDocWsUrl(`http://x/ed/${encodeURIComponent(a)}/ws?WOPISrc=${encodeURIComponent(src)}&compat=/ws`)!;
    expect(p.docParams.get("access_token")).toBe("tok_1");
  });
});

describe("admin authentication and metrics", () => {
  const basic = (pw: string) => `Basic ${Buffer.from(`admin:${pw}`).toString("base64")}`;
  test("the admin page gives a jwt cookie only with the right password", async () => {
    expect((await fetch(`${ed.url}/browser/dist/admin/admin.html`, { headers: { Authorization: basic("wrong") } })).status).toBe(401);
    const ok = await fetch(`${ed.url}/browser/dist/admin/admin.html`, { headers: { Authorization: basic("s3cret-admin") } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("set-cookie")).toMatch(/^jwt=[\w-]+\.[\w-]+\.[\w-]+;/);
  });
  test("the admin WebSocket needs a matching Origin", async () => {
    const res = await fetch(`${ed.url}/ed/adminws`, { headers: { Upgrade: "websocket", Connection: "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", Origin: "http://evil.test" } });
    expect(res.status).toBe(403);
  });
  test("a bad jwt gets InvalidAuthToken; a command before auth gets NotAuthenticated", async () => {
    const origin = `http://${new URL(ed.url).host}`;
    const s1 = new TestSocket(`${ed.url.replace("http", "ws")}/ed/adminws`, origin);
    await s1.opened;
    s1.send("auth jwt=not.a.token");
    expect(await s1.waitText("Invalid")).toBe("InvalidAuthToken");
    const s2 = new TestSocket(`${ed.url.replace("http", "ws")}/ed/adminws`, origin);
    await s2.opened;
    s2.send("documents");
    expect(await s2.waitText("Not")).toBe("NotAuthenticated");
  });
  test("getMetrics needs admin credentials and answers Prometheus text", async () => {
    expect((await fetch(`${ed.url}/ed/getMetrics`)).status).toBe(401);
    const res = await fetch(`${ed.url}/ed/getMetrics`, { headers: { Authorization: basic("s3cret-admin") } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("document_active_views_active_count 0");
    expect(text).toContain("kit_assigned_count");
  });
  test("the password never appears in the log", () => {
    expect(logger.lines.join("\n")).not.toContain("s3cret-admin");
  });
});

describe("icons (issue 23 item 1)", () => {
  test("the editing server serves a command's Colibre picture under its hash, cached for good, with an ETag answered by 304", async () => {
    const url = `${ed.url}/browser/${ed.hash}/icons/lc_bold.svg`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await res.text()).toContain("<svg");
    const again = await fetch(url, { headers: { "If-None-Match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
    // A menu's small picture, and a command without its own drawn with the closest one's.
    expect((await fetch(`${ed.url}/browser/${ed.hash}/icons/sc_bold.svg`)).status).toBe(200);
    expect((await fetch(`${ed.url}/browser/${ed.hash}/icons/lc_resolvecomment.svg`)).status).toBe(200);
  });

  test("a name that is not a command's picture is 404, never a file of the theme or the disk", async () => {
    for (const file of ["lc_nothingatall.svg", "links.txt", "lc_..%2Fbold.svg", "xx_bold.svg", "lc_bold.png"]) {
      expect((await fetch(`${ed.url}/browser/${ed.hash}/icons/${file}`)).status).toBe(404);
    }
  });
});
