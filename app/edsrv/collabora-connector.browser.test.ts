// A Collabora Online connector's host page drives svc's editor (issue 48): a stand-in WOPI host on
// its own loopback origin (a real HTTP server) POSTs the access token into an iframe, answers
// Frame_Ready with Host_PostmessageReady, then sends Collabora's postMessage API as Map.WOPI.js
// accepts it and checks what the editor answered, what it shows and what the host stored. Real
// editing server, real kits, Debian's Chromium.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Frame, Page } from "playwright-core";
import { unzipSync } from "fflate";
import { TINY_PNG } from "./testing/wopi-host";
import { docxParagraphRuns, startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { editorFrame, hostPageHtml } from "./testing/chromium";
import { vi } from "../i18n/vi";

let env: EditorEnv;
beforeAll(async () => {
  // Loopback is allowed to the editing server's fetches here only: the picture server below.
  env = await startEditorEnv({ idleKits: 1, env: { SVC_FETCH_ALLOW_HOSTS: "127.0.0.1" } });
});
afterAll(async () => {
  await env?.close();
});

type Msg = { MessageId: string; Values: any };

const sendHost = (page: Page, id: string, values: Record<string, unknown> = {}) =>
  page.evaluate(([i, v]) => (window as any).sendHost(i, v), [id, values] as const);

/** The first message of that id posted after the first `skip` of them, once it is there. */
async function nextMsg(page: Page, id: string, skip: number): Promise<Msg> {
  await page.waitForFunction(([i, k]) => (window as any).msgs.filter((m: Msg) => m.MessageId === i).length > (k as number), [id, skip] as const, { polling: 25 });
  return page.evaluate(([i, k]) => (window as any).msgs.filter((m: Msg) => m.MessageId === i)[k as number], [id, skip] as const);
}
const count = (page: Page, id: string) => page.evaluate((i) => (window as any).msgs.filter((m: Msg) => m.MessageId === i).length, id);
const shown = (frame: Frame, sel: string) => frame.locator(sel).first().isVisible();
const until = (frame: Frame, fn: () => boolean) => frame.waitForFunction(fn, undefined, { polling: 25 });

describe("a Collabora connector's host page", () => {
  test("its CheckFileInfo: breadcrumb name, Share button, hidden user list, downloads posted to the host", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      env.host.files.get(f.id)!.info = { BreadcrumbDocName: "Quarterly report", EnableShare: true, HideUserList: "true", DownloadAsPostMessage: true };
      const { page, frame } = await env.openEditor(ctx, f.src);
      expect(await frame.locator("#docname").textContent()).toBe("Quarterly report");
      expect(await shown(frame, "#people")).toBe(false);
      await frame.locator("#share").click();
      expect((await nextMsg(page, "UI_Share", 0)).MessageId).toBe("UI_Share");

      // Action_Export: the export is posted (Download_As) for the host to fetch, not downloaded here.
      await sendHost(page, "Action_Export", { Format: "pdf" });
      const dl = await nextMsg(page, "Download_As", 0);
      expect(dl.Values.Type).toBe("export");
      const pdf = await frame.evaluate(async (u) => (await (await fetch(u)).text()).slice(0, 5), dl.Values.URL as string);
      expect(pdf).toBe("%PDF-");
      await sendHost(page, "Action_Print");
      expect((await nextMsg(page, "Download_As", 1)).Values.Type).toBe("print");
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("its CheckFileInfo: pictures from the host's storage (EnableInsertRemoteImage, DisableInsertLocalImage) and no tracked-changes controls (HideChangeTrackingControls)", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      env.host.files.get(f.id)!.info = { EnableInsertRemoteImage: true, HideChangeTrackingControls: true };
      const { page, frame } = await env.openEditor(ctx, f.src);
      await frame.locator("#remote-image").waitFor({ state: "attached" });
      await frame.evaluate(() => (document.getElementById("remote-image") as HTMLButtonElement).click());
      expect((await nextMsg(page, "UI_InsertGraphic", 0)).MessageId).toBe("UI_InsertGraphic");
      expect(await frame.locator('[data-cmd=".uno:TrackChanges"].host-hidden').count()).toBe(1);
      expect(await frame.locator('[data-cmd=".uno:AcceptAllTrackedChanges"].host-hidden').count()).toBe(1);
      // The host's pictures only: the Insert image control itself asks the host.
      const g = env.newFile("hello.docx");
      env.host.files.get(g.id)!.info = { EnableInsertRemoteImage: true, DisableInsertLocalImage: true };
      const other = await env.openEditor(ctx, g.src);
      await other.frame.waitForFunction(() => document.querySelector<HTMLElement>('[data-cmd=".uno:InsertGraphic"]')?.dataset.host === "UI_InsertGraphic");
      expect(await other.frame.locator("#remote-image").count()).toBe(0);
      await other.frame.evaluate(() => document.querySelector<HTMLButtonElement>('[data-cmd=".uno:InsertGraphic"]')!.click());
      expect((await nextMsg(other.page, "UI_InsertGraphic", 0)).MessageId).toBe("UI_InsertGraphic");
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("its UI messages: buttons, commands, bars, sidebar, busy, focus", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      const { page, frame } = await env.openEditor(ctx, f.src);
      await sendHost(page, "Hide_Button", { id: "save" });
      await until(frame, () => document.getElementById('save')!.offsetParent === null);
      await sendHost(page, "Show_Button", { id: "save" });
      await until(frame, () => document.getElementById('save')!.offsetParent !== null);
      await sendHost(page, "Remove_Button", { id: "downloadas" });
      await until(frame, () => !document.getElementById('download'));
      await sendHost(page, "Insert_Button", { id: "host-approve", label: "Approve", hint: "Approve this document" });
      await frame.locator("#host-approve").click();
      expect((await nextMsg(page, "Clicked_Button", 0)).Values).toEqual({ id: "host-approve" });
      await sendHost(page, "Hide_Command", { id: "Bold" });
      await until(frame, () => [...document.querySelectorAll('[data-cmd=".uno:Bold"]')].every((b) => (b as HTMLElement).offsetParent === null));
      await sendHost(page, "Show_Command", { id: ".uno:Bold" });
      await until(frame, () => [...document.querySelectorAll('[data-cmd=".uno:Bold"]')].some((b) => (b as HTMLElement).offsetParent !== null));
      await sendHost(page, "Hide_StatusBar");
      await until(frame, () => document.getElementById('statusbar')!.offsetParent === null);
      await sendHost(page, "Show_StatusBar");
      await until(frame, () => document.getElementById('statusbar')!.offsetParent !== null);
      await sendHost(page, "Hide_Menubar");
      await until(frame, () => document.getElementById('ribbon')!.offsetParent === null);
      await sendHost(page, "Show_Menubar");
      await until(frame, () => document.getElementById('ribbon')!.offsetParent !== null);
      await sendHost(page, "Show_Sidebar");
      await until(frame, () => document.body.classList.contains('with-sidebar'));
      await sendHost(page, "Hide_Sidebar");
      await until(frame, () => !document.body.classList.contains('with-sidebar'));
      await sendHost(page, "Action_ShowBusy", { Label: "Checking out" });
      await until(frame, () => { const b = document.getElementById('busy'); return !!b && !b.hidden && b.textContent === 'Checking out'; });
      await sendHost(page, "Action_HideBusy");
      await until(frame, () => document.getElementById('busy')!.hidden === true);
      await frame.evaluate(() => document.getElementById("ime")!.focus());
      await sendHost(page, "Blur_Focus");
      await until(frame, () => document.activeElement !== document.getElementById('ime'));
      // Not there here, and said as Collabora says it when the copy cannot be made: Save As.
      await sendHost(page, "Action_SaveAs", { Filename: "copy.docx", Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 0)).Values).toEqual({ success: false, result: "saveasfailed" });
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("the storage's answers, in the page's language: a conflict asks which version to keep, a refused token says so", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      const { page, frame } = await env.openEditor(ctx, f.src, "tok_alice", "&lang=vi");
      env.host.files.get(f.id)!.version = 5; // someone else stored a new version
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Guava31 " });
      await page.waitForFunction(() => (window as any).msgs.some((m: Msg) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 0)).Values).toMatchObject({ success: false, result: "conflict" });
      await frame.locator("#conflict-keep").waitFor();
      expect(await frame.locator("#message").textContent()).toContain(vi.page.conflict);
      expect(await frame.locator("#conflict-keep").textContent()).toBe(vi.page.conflictKeep);
      expect(await frame.locator("#conflict-reload").textContent()).toBe(vi.page.conflictReload);
      // Their version kept: stored over the storage's, without a timestamp.
      await frame.locator("#conflict-keep").click();
      await until(frame, () => document.getElementById("message")!.hidden === true);
      const forced = await env.host.waitPut((p) => p.fileId === f.id && p.status === 200, "the forced save");
      expect(forced.headers["x-cool-wopi-timestamp"]).toBeUndefined();
      expect(docxParagraphRuns(forced.bytes).flat().map((r) => r.text).join("")).toContain("Guava31");

      // The storage did not take it (500): said so, tried again, and the message goes once stored.
      env.host.putPlan.push(500);
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Durian " });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 1)).Values).toMatchObject({ success: false, result: "failed" });
      expect(await frame.locator("#message").textContent()).toBe(vi.page.saveFailed);
      await env.host.waitPut((p) => p.fileId === f.id && p.status === 200 && docxParagraphRuns(p.bytes).flat().some((r) => r.text.includes("Durian")), "the retried save");
      await until(frame, () => document.getElementById("message")!.hidden === true);

      // The token refused: said in Vietnamese, not in the server's English.
      env.host.putPlan.push(401);
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Lychee " });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 2)).Values).toMatchObject({ success: false, result: "unauthorized" });
      await until(frame, () => !document.getElementById("message")!.hidden);
      expect(await frame.locator("#message").textContent()).toBe(vi.page.saveUnauthorized);
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("a conflict resolved for the stored version: the page opens the document again from storage, the unsaved version kept aside", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      const { page, frame } = await env.openEditor(ctx, f.src);
      env.host.files.get(f.id)!.version = 5;
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Quince19 " });
      await page.waitForFunction(() => (window as any).msgs.some((m: Msg) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 0)).Values).toMatchObject({ success: false, result: "conflict" });
      await frame.locator("#conflict-reload").click();
      // Opened again (a new view of a document loaded anew): the message goes once it is back.
      await until(frame, () => (window as any).edState.reconnects === 1 && (window as any).edState.connected === true);
      await until(frame, () => document.getElementById("message")!.hidden === true);
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Fresh " });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 1)).Values).toMatchObject({ success: true });
      const text = docxParagraphRuns(env.lastStored(f.id)).flat().map((r) => r.text).join("");
      expect(text).toContain("Fresh");
      expect(text).not.toContain("Quince19");
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("Action_InsertGraphic: the editing server fetches the picture under the SSRF rules and inserts it as the person's input", async () => {
    // A picture server on loopback (allowed by this test's SVC_FETCH_ALLOW_HOSTS), and what it was asked.
    const png = Buffer.from(TINY_PNG, "base64");
    const asked: string[] = [];
    const pictures = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const p = new URL(req.url).pathname;
        asked.push(p);
        if (p === "/logo.png") return new Response(png, { headers: { "Content-Type": "application/octet-stream" } });
        if (p === "/page.png") return new Response("<html><body>not a picture</body></html>", { headers: { "Content-Type": "image/png" } });
        return new Response("nf", { status: 404 });
      },
    });
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      const { page } = await env.openEditor(ctx, f.src);
      await sendHost(page, "Action_InsertGraphic", { url: `http://127.0.0.1:${pictures.port}/logo.png` });
      expect((await nextMsg(page, "Action_InsertGraphic_Resp", 0)).Values).toMatchObject({ success: true });
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 0)).Values.success).toBe(true);
      const media = Object.keys(unzipSync(env.lastStored(f.id))).filter((n) => n.startsWith("word/media/"));
      expect(media.length).toBe(1);

      // Refused: a private address nothing allows (not dialled), what is not a picture by its bytes, a scheme other than http(s).
      await sendHost(page, "Action_InsertGraphic", { url: "http://10.20.30.40/logo.png" });
      expect((await nextMsg(page, "Action_InsertGraphic_Resp", 1)).Values).toEqual({ success: false, result: "notallowed" });
      await sendHost(page, "Action_InsertGraphic", { url: `http://127.0.0.1:${pictures.port}/page.png` });
      expect((await nextMsg(page, "Action_InsertGraphic_Resp", 2)).Values).toEqual({ success: false, result: "badtype" });
      await sendHost(page, "Action_InsertGraphic", { url: `file:///etc/passwd` });
      expect((await nextMsg(page, "Action_InsertGraphic_Resp", 3)).Values).toEqual({ success: false, result: "notallowed" });
      expect(asked).toEqual(["/logo.png", "/page.png"]);
    } finally {
      await ctx.close();
      pictures.stop(true);
    }
  }, 120_000);

  test("UserExtraInfo's avatar: the people list shows the picture from the WOPI host (http(s) or data: only)", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      env.host.files.get(f.id)!.info = { UserExtraInfo: { avatar: `${env.host.origin}/avatar.png`, mail: "alice@example.test" } };
      const asked = env.host.avatarRequests;
      const { frame } = await env.openEditor(ctx, f.src);
      await until(frame, () => { const i = document.querySelector("#people .person img.avatar") as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth === 1; });
      expect(env.host.avatarRequests).toBeGreaterThan(asked);
      // Not a picture URL: initials only.
      const g = env.newFile("hello.docx");
      env.host.files.get(g.id)!.info = { UserExtraInfo: { avatar: "javascript:alert(1)" } };
      const second = await env.openEditor(ctx, g.src);
      await until(second.frame, () => !!document.querySelector("#people .person"));
      expect(await second.frame.locator("#people .person img").count()).toBe(0);
      expect(await second.frame.locator("#people .person").first().textContent()).toBe("A");
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("Disable_Default_UIAction, Action_Paste and UI_Hyperlink: the host acts, the host stores", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      const { page, frame } = await env.openEditor(ctx, f.src);
      await sendHost(page, "Action_Paste", { Mimetype: "text/plain;charset=utf-8", Data: "Pasted by the connector " });
      await page.waitForFunction(() => (window as any).msgs.some((m: Msg) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });

      // The host takes saving over: the Save button only tells it; the host then saves.
      await sendHost(page, "Disable_Default_UIAction", { action: "UI_Save", disable: true });
      await frame.locator("#save").click();
      expect((await nextMsg(page, "UI_Save", 0)).Values.source).toBe("toolbar");
      await sendHost(page, "Action_Save", { Notify: true });
      expect((await nextMsg(page, "Action_Save_Resp", 0)).Values.success).toBe(true);
      expect(env.host.puts.filter((p) => p.fileId === f.id && p.status === 200).length).toBe(1);
      const text = docxParagraphRuns(env.lastStored(f.id)).map((p) => p.map((r) => r.text).join("")).join("\n");
      expect(text).toContain("Pasted by the connector");

      // A link a person opens is the host's to open once it took UI_Hyperlink over.
      await sendHost(page, "Disable_Default_UIAction", { action: "UI_Hyperlink", disable: true });
      const opened = await frame.evaluate(() => window.open("https://example.org/report", "_blank") === null);
      expect(opened).toBe(true);
      expect((await nextMsg(page, "UI_Hyperlink", 0)).Values).toMatchObject({ Url: "https://example.org/report", Name: "_blank" });
    } finally {
      await ctx.close();
    }
  }, 120_000);

  test("its css_variables: the host's theme colours are the editor's (the selected tab, a dialog's default button)", async () => {
    const ctx = await env.browser.newContext();
    try {
      const f = env.newFile("hello.docx");
      // As Nextcloud's connector sends its theme: name=value pairs, ";"-separated, in the form.
      env.host.pages.set("themed", hostPageHtml(env.ed.url, env.ed.hash, f.src, "tok_alice").replace('<input type="hidden" name="access_token_ttl" value="0">', '<input type="hidden" name="access_token_ttl" value="0"><input type="hidden" name="css_variables" value="--co-primary-element=#aa0000;--co-text-accent=#00aa00;--co-primary-text=#ffffff">'));
      const page = await ctx.newPage();
      await page.goto(`${env.host.origin}/page/themed`);
      const frame = await editorFrame(page);
      await frame.locator('#toolbar .tb-tab[aria-selected="true"]').first().waitFor();
      expect(await frame.evaluate(() => getComputedStyle(document.querySelector('#toolbar .tb-tab[aria-selected="true"]')!).color)).toBe("rgb(0, 170, 0)");
      const probe = await frame.evaluate(() => {
        const b = document.createElement("button");
        b.className = "jsd-button jsd-default";
        document.body.append(b);
        const c = getComputedStyle(b);
        return [c.backgroundColor, c.color];
      });
      expect(probe).toEqual(["rgb(170, 0, 0)", "rgb(255, 255, 255)"]);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});

