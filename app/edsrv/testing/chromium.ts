// Debian's Chromium for the editor's browser tests and benchmark, driven by playwright-core.
// Playwright's own launch (--remote-debugging-pipe) does not survive under Bun: Chromium is
// started with a DevTools port on loopback and Playwright connects over CDP.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { scaled, until } from "../../testing/until";
import type { EditorState } from "../browser/editor/state";

// /usr/bin/chromium is a shell wrapper that Playwright cannot drive; the binary is here.
export const CHROMIUM = existsSync("/usr/lib/chromium/chromium") ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium";

export async function startChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), "edsrv-chrome-"));
  const proc = Bun.spawn(
    [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"],
    { stderr: "pipe", stdout: "ignore" },
  );
  const reader = proc.stderr.getReader();
  let err = "";
  let wsEndpoint = "";
  while (!wsEndpoint) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`chromium exited: ${err}`);
    err += new TextDecoder().decode(value);
    wsEndpoint = /DevTools listening on (ws:\/\/\S+)/.exec(err)?.[1] ?? "";
  }
  reader.releaseLock();
  void proc.stderr.pipeTo(new WritableStream());
  const browser = await chromium.connectOverCDP(wsEndpoint);
  // The default context's first page (about:blank): its frame's class is every frame's.
  const blank = browser.contexts()[0]?.pages()[0];
  if (blank) explainTimeouts(Object.getPrototypeOf(blank.mainFrame()));
  // Playwright's own waits (30 s unless told) scale with every other test deadline.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser["newContext"]>) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(scaled(30_000));
    return context;
  };
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      proc.kill();
      await proc.exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What the page showed when a wait timed out: the editor's state if it has one, else the host page's messages. */
async function lastSeen(target: Page | Frame): Promise<unknown> {
  return target
    .evaluate(() => {
      const S = window.edState;
      if (S) return { loaded: S.loaded, connected: S.connected, modified: S.modified, errors: S.errors.slice(-5), received: S.received, tilesDrawn: S.tilesDrawn, tilesRequested: S.tilesRequested };
      const msgs = (window as any).msgs as { MessageId: string }[] | undefined;
      return msgs ? { hostMessages: msgs.slice(-8).map((m) => m.MessageId) } : { url: location.href, title: document.title };
    })
    .catch((err) => `(unreadable: ${String(err).slice(0, 120)})`);
}

/**
 * Playwright's waitForFunction, on a timeout, says only "Timeout exceeded": every frame's and
 * page's wait (a page's is its main frame's) then also says what it waited for and what the page
 * showed last, as until() does.
 */
function explainTimeouts(frameProto: any): void {
  if (frameProto.__explained) return;
  frameProto.__explained = true;
  const original = frameProto.waitForFunction;
  frameProto.waitForFunction = async function (this: Page | Frame, fn: unknown, arg?: unknown, options?: unknown) {
    try {
      return await original.call(this, fn, arg, options);
    } catch (err) {
      if (!/Timeout \d+ms exceeded/.test(String((err as Error)?.message))) throw err;
      throw new Error(`never: ${String(fn).replace(/\s+/g, " ").slice(0, 240)}; last seen: ${JSON.stringify(await lastSeen(this))}`, { cause: err });
    }
  };
}

/**
 * A host page (what an integrator's page does): POSTs the token form into an iframe named "ed",
 * answers Frame_Ready with Host_PostmessageReady, records every message in window.msgs, and
 * offers window.save(values) (Action_Save) and window.sendHost(id, values).
 */
export function hostPageHtml(edsrvUrl: string, hash: string, wopiSrc: string, token: string, query = ""): string {
  // A `lang` in `query` replaces the default one (the page reads the first).
  const lang = /(^|[?&])lang=/.test(query) ? "" : "&lang=en-US";
  const extra = query ? "&" + query.replace(/^[&?]/, "") : "";
  const action = `${edsrvUrl}/browser/${hash}/ed.html?WOPISrc=${encodeURIComponent(wopiSrc)}${lang}&closebutton=1${extra}`;
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0">
<form id="f" method="post" target="ed" action="${action}"><input type="hidden" name="access_token" value="${token}"><input type="hidden" name="access_token_ttl" value="0"></form>
<iframe name="ed" id="ed" style="width:min(1000px,100vw);height:min(700px,100vh);border:0"></iframe>
<script>
window.msgs = [];
window.addEventListener("message", function (e) {
  var m = JSON.parse(e.data); window.msgs.push(m);
  if (m.MessageId === "App_LoadingStatus" && m.Values.Status === "Frame_Ready") window.sendHost("Host_PostmessageReady", {});
});
window.sendHost = function (id, v) { document.getElementById("ed").contentWindow.postMessage(JSON.stringify({ MessageId: id, Values: v || {} }), "*"); };
window.save = function (v) { window.sendHost("Action_Save", v || { Notify: true }); };
window.t0 = performance.timeOrigin + performance.now();
document.getElementById("f").submit();
</script></body></html>`;
}

export interface Editor {
  page: Page;
  frame: Frame;
}

/**
 * The editor frame once Document_Loaded was posted and the first tiles are drawn. Polled every
 * 25 ms, not on every animation frame (Playwright's default): rAF polling makes headless Chromium
 * produce a frame 60 times a second, which on 2 cores took the CPU the document's open needed
 * (its timings come from the page's own marks, not from when this notices them).
 */
export async function editorFrame(page: Page): Promise<Frame> {
  await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.Values?.Status === "Document_Loaded" || m.Values?.Status === "Failed"), undefined, { polling: 25 });
  const frame = page.frames().find((f) => f.url().includes("/ed.html"));
  if (!frame) throw new Error("no editor frame");
  await frame.waitForFunction(() => window.edState.firstPaintAt > 0, undefined, { polling: 25 });
  return frame;
}

/**
 * Until every tile the view asked for is drawn (the page counts each request until it is answered
 * or given up). On a timeout (as written, scaled for a slower machine) it says what the page
 * counted, received and recorded as errors.
 */
export async function allTilesDrawn(frame: Frame, timeoutMs = 30_000): Promise<void> {
  const timeout = scaled(timeoutMs);
  try {
    await frame.waitForFunction(() => { const S = window.edState; return S.tilesDrawn >= S.tilesRequested; }, undefined, { polling: 50, timeout });
  } catch (err) {
    const seen = await frame.evaluate(() => { const S = window.edState; return { drawn: S.tilesDrawn, requested: S.tilesRequested, pushed: S.tilesPushed, errors: S.errors, received: S.received }; }).catch(() => null);
    throw new Error(`tiles asked for were not all drawn within ${timeout} ms: ${JSON.stringify(seen)}`, { cause: err });
  }
}

/** What the editor page shows of its document and view (window.edState), as it is now. */
export function edState(frame: Frame): Promise<EditorState> {
  return frame.evaluate(() => window.edState);
}

/**
 * Until the engine has settled in this view: every tile asked for is drawn and nothing has come
 * from the server (frames received, tiles drawn, invalidations) for quietMs. LibreOffice finishes
 * an edit on its own timers (layout, spell checking, a chart's redraw), so there is no one frame
 * that says it is done: a quiet stretch is the sign a person goes by too. Both times are as
 * written and scaled for a slower machine; a timeout says what the page counted last and for how
 * long it had been still. Polled from here every 50 ms: polling on every animation frame costs
 * the CPU the engine needs on 2 cores (see editorFrame).
 */
export async function settled(frame: Frame, { quietMs = 300, timeoutMs = 30_000 }: { quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
  const quiet = scaled(quietMs);
  let seen = "", since = Date.now();
  await until(
    async () => {
      const now = await frame.evaluate(() => {
        const S = window.edState;
        return { drawn: S.tilesDrawn, requested: S.tilesRequested, invalidations: S.invalidations, received: S.received as Record<string, number> };
      });
      const key = JSON.stringify(now);
      if (key !== seen) [seen, since] = [key, Date.now()];
      return { ...now, stillMs: Date.now() - since };
    },
    (s) => s.drawn >= s.requested && s.stillMs >= quiet,
    `the engine settled: every tile asked for drawn and nothing received for ${quiet} ms`,
    timeoutMs,
    50,
  );
}

/** Action_Save with Notify from the host page; resolves with Action_Save_Resp's values. */
export async function hostSave(page: Page, values: Record<string, unknown> = { Notify: true }): Promise<{ success: boolean; result: string; errorMsg: string }> {
  const n = await page.evaluate(() => (window as any).msgs.filter((m: any) => m.MessageId === "Action_Save_Resp").length);
  await page.evaluate((v) => (window as any).save(v), values);
  await page.waitForFunction((k) => (window as any).msgs.filter((m: any) => m.MessageId === "Action_Save_Resp").length > k, n);
  return page.evaluate(() => (window as any).msgs.filter((m: any) => m.MessageId === "Action_Save_Resp").pop().Values);
}

/** Page coordinates of a document point given in twips, at the view's zoom. */
export async function pagePoint(frame: Frame, xTw: number, yTw: number): Promise<{ x: number; y: number }> {
  const inFrame = await frame.evaluate(([x, y]) => {
    const r = document.getElementById("sizer")!.getBoundingClientRect(), k = (window as any).edApi?.zoom() ?? 15;
    return { x: r.left + x! / k, y: r.top + y! / k };
  }, [xTw, yTw]);
  const box = (await (await frame.frameElement()).boundingBox())!;
  return { x: box.x + inFrame.x, y: box.y + inFrame.y };
}
