// The 429 limit page in Debian's Chromium, through the real Caddy and the real gate, for the spec's
// file-sync flow: the host's page POSTs the token form into an iframe (the token never in a URL),
// the cap is full, the person sees the limit page; "Open read-only" and "Try again" must send the
// same form fields by POST (a GET loses the token; a reload of a POST asks to resend), to the
// editor URL with permission=readonly and to the same editor URL. The editing server is a recorder:
// what reaches it is exactly what the browser sent through the proxy.

import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Frame, Page } from "playwright-core";
import { freePort, startCaddy, startRecorder, type RunningCaddy } from "../../caddy/testing";
import { ManualClock } from "../clock";
import { startChromium } from "../edsrv/testing/chromium";
import { startTestService, type Harness } from "../testing/harness";
import { until, scaled } from "../testing/until";
import { LIMIT_PAGE_CSP } from "./limit-page";
import { seriousViolations } from "../testing/axe";

const TOKEN = "tok-limit-page-SECRET-7f3a9c0d";
const FIELDS: [string, string][] = [
  ["access_token", TOKEN],
  ["access_token_ttl", "0"],
  ["ui_defaults", "UIMode=compact;TextRuler=false"],
  ["css_variables", `--x: "q" <b>&amp;`],
];
const WOPI_SRC = "http://files.example:8080/wopi/files/42";
const EDITOR_URI = `/browser/h4sh/ed.html?WOPISrc=${encodeURIComponent(WOPI_SRC)}&lang=vi&closebutton=1`;
const FULL = [{ docKey: "http://files.example:8080/wopi/files/7", editSessions: ["someone"], readonly: 0 }];

let gate: Harness;
let caddy: RunningCaddy;
let edsrv: ReturnType<typeof startRecorder>;
let chrome: Awaited<ReturnType<typeof startChromium>>;
let browser: Browser;
let host: ReturnType<typeof Bun.serve>;
const clock = new ManualClock(Date.now());

/** The file-sync host's page: a form POST of the token fields into the iframe "ed", as the spec's flow does. */
function hostPage(action: string): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const inputs = FIELDS.map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>File-sync host</title></head><body>
<iframe name="ed" style="width:900px;height:600px;border:0"></iframe>
<form id="f" method="post" target="ed" action="${esc(action)}">${inputs}</form>
<script>document.getElementById("f").submit();</script></body></html>`;
}

beforeAll(async () => {
  edsrv = startRecorder();
  // The gate samples nothing (no editing server at this address): the test sets the sample itself.
  gate = await startTestService(
    { SVC_DOCBUILDER_WORKERS: "1", SVC_GATE_CONNECTION_CAP: "1", SVC_EDSRV_URL: `http://127.0.0.1:${await freePort()}` },
    { clock, sampleIntervalMs: 60_000 },
  );
  [caddy, chrome] = await Promise.all([startCaddy({ app: new URL(gate.url).host, edsrv: edsrv.addr }), startChromium()]);
  browser = chrome.browser;
  host = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(hostPage(caddy.url + EDITOR_URI), { headers: { "Content-Type": "text/html; charset=utf-8" } }),
  });
}, scaled(120_000));

afterAll(async () => {
  await chrome?.close();
  await caddy?.stop();
  host?.stop(true);
  edsrv?.stop();
  await gate?.close();
});

/** The fields of a recorded urlencoded body, in order. */
const fieldsOf = (body: string) => [...new URLSearchParams(body).entries()];

async function openAtCap(page: Page): Promise<Frame> {
  gate.counter.applySample(FULL);
  expect(gate.counter.snapshot()).toMatchObject({ enforcing: true, current: 1, limit: 1 });
  await page.goto(`http://127.0.0.1:${host.port}/`);
  const frame = page.frame({ name: "ed" })!;
  await frame.waitForSelector("#readonly");
  return frame;
}

async function editorRequest(after: number): Promise<(typeof edsrv.seen)[number]> {
  await until(() => edsrv.seen.length, (n) => n > after, `request ${after + 1} reached the editing server (requests it saw)`, 5000);
  return edsrv.seen[after]!;
}

test("the limit page has no serious or critical accessibility violation (axe-core, WCAG 2.1 AA)", async () => {
  const ctx = await browser.newContext({ bypassCSP: true });
  const page = await ctx.newPage();
  try {
    const frame = await openAtCap(page);
    expect(await seriousViolations(frame)).toEqual([]);
  } finally {
    await ctx.close();
  }
});

test("the 429 limit page works for the POST form of the file-sync flow: Open read-only and Try again re-submit the same form fields by POST, without the browser's resubmit prompt and never with the token in a URL", async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const pageAnswers: { url: string; status: number; csp: string | null }[] = [];
  page.on("response", (r) => {
    if (r.url().startsWith(caddy.url)) pageAnswers.push({ url: r.url(), status: r.status(), csp: r.headers()["content-security-policy"] ?? null });
  });
  try {
    // 1. At the cap: the limit page, and nothing reached the editing server.
    let frame = await openAtCap(page);
    expect(await frame.textContent("h1")).toContain("Đã đạt giới hạn");
    expect(await frame.textContent("body")).toContain("1 trên 1 phiên chỉnh sửa");
    expect(edsrv.seen).toHaveLength(0);
    const shown = pageAnswers.find((a) => a.status === 429)!;
    expect(shown.csp).toBe(LIMIT_PAGE_CSP);
    expect(frame.url()).not.toContain(TOKEN);

    // 2. Open read-only: the same fields, by POST, to the editor URL with permission=readonly.
    await frame.click("#readonly");
    const ro = await editorRequest(0);
    expect(ro.method).toBe("POST");
    const roUrl = new URL(ro.rawUri, "http://x");
    expect(roUrl.pathname).toBe("/browser/h4sh/ed.html");
    expect([roUrl.searchParams.get("WOPISrc"), roUrl.searchParams.get("lang"), roUrl.searchParams.get("closebutton"), roUrl.searchParams.get("permission")]).toEqual([WOPI_SRC, "vi", "1", "readonly"]);
    expect(fieldsOf(ro.body)).toEqual(FIELDS);

    // 3. Try again while still at the cap: the limit page again, still carrying the fields.
    frame = await openAtCap(page);
    const before = edsrv.seen.length;
    const shownBefore = pageAnswers.filter((a) => a.status === 429).length;
    await Promise.all([frame.waitForNavigation(), frame.click("#retry")]);
    await frame.waitForSelector("#retry");
    expect(pageAnswers.filter((a) => a.status === 429).length).toBe(shownBefore + 1);
    expect(edsrv.seen.length).toBe(before);
    // 4. A slot frees up; Try again: the same fields, by POST, to the same editor URL.
    gate.counter.applySample([]);
    await frame.click("#retry");
    const again = await editorRequest(before);
    expect(again.method).toBe("POST");
    expect(again.rawUri).toBe(EDITOR_URI);
    expect(fieldsOf(again.body)).toEqual(FIELDS);

    // No resubmit prompt (nor any other dialog); the token was never in a URL or a log line.
    expect(dialogs).toEqual([]);
    for (const a of pageAnswers) expect(a.url).not.toContain(TOKEN);
    for (const r of edsrv.seen) expect(r.rawUri).not.toContain(TOKEN);
    expect(gate.logLines.join("\n")).not.toContain(TOKEN);
    expect(caddy.output()).not.toContain(TOKEN);
  } finally {
    await ctx.close();
  }
}, scaled(120_000));
