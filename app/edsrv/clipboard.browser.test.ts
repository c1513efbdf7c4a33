// The system clipboard (issue 12, item 3): copy and cut out of a document and paste into it, as HTML
// (formatting kept) and plain text, from and to another page and between two documents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { hostSave } from "./testing/chromium";
import { docxParagraphRuns, startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { scaled } from "../testing/until";

let env: EditorEnv;
let ctx: BrowserContext;
let other: Page;
beforeAll(async () => {
  env = await startEditorEnv();
  ctx = await env.browser.newContext();
  for (const origin of [env.host.origin, env.ed.url]) await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  // Another application's page, on its own origin: where a copy goes and a paste comes from.
  env.host.pages.set("other", "<!doctype html><title>other</title><body>another page</body>");
  other = await ctx.newPage();
  await other.goto(`${env.host.origin}/page/other`);
});
afterAll(async () => {
  await ctx?.close();
  await env?.close();
});

/** What the clipboard holds, read by the other page. */
async function clipboard(): Promise<{ html: string; text: string }> {
  await other.bringToFront();
  return other.evaluate(async () => {
    const out = { html: "", text: "" };
    for (const item of await navigator.clipboard.read()) {
      if (item.types.includes("text/html")) out.html = await (await item.getType("text/html")).text();
      if (item.types.includes("text/plain")) out.text = await (await item.getType("text/plain")).text();
    }
    return out;
  });
}

async function editor(fixture = "hello.docx"): Promise<{ id: string; page: Page; frame: Frame }> {
  const f = env.newFile(fixture);
  const { page, frame } = await env.openEditor(ctx, f.src);
  await page.bringToFront();
  await frame.focus("#ime");
  return { id: f.id, page, frame };
}

/** Waits until the view has the selection's content ready (fetched after the selection settles). */
const selectionReady = (frame: Frame) => frame.waitForFunction(() => !!window.edState.clip, undefined, { polling: 25 });

const paragraphTexts = (bytes: Uint8Array) => docxParagraphRuns(bytes).map((runs) => runs.map((r) => r.text).join(""));

describe("clipboard", () => {
  test("copy: the selected words go to the system clipboard as HTML and plain text; another page reads them", async () => {
    const { page, frame } = await editor();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+Shift+ArrowRight"); // "Hello "
    await selectionReady(frame);
    await page.keyboard.press("Control+c");
    const got = await clipboard();
    expect(got.text).toBe("Hello ");
    expect(got.html).toContain("Hello");
    expect(got.html).toMatch(/<html|<body|<p/i);
    await page.close();
  }, scaled(60_000));

  test("paste from another page: HTML keeps its bold, plain text follows", async () => {
    await other.bringToFront();
    await other.evaluate(async () => {
      const html = "<p><b>Pasted bold</b> and plain</p>";
      await navigator.clipboard.write([new ClipboardItem({ "text/html": new Blob([html], { type: "text/html" }), "text/plain": new Blob(["Pasted bold and plain"], { type: "text/plain" }) })]);
    });
    const { id, page } = await editor();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+v");
    await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });
    expect(await hostSave(page)).toMatchObject({ success: true });
    const runs = docxParagraphRuns(env.lastStored(id)).flat();
    expect(runs.find((r) => r.text.includes("Pasted bold"))?.bold).toBe(true);
    expect(runs.find((r) => r.text.includes("and plain"))?.bold).toBe(false);
    await page.close();
  }, scaled(60_000));

  test("between two documents: a bold word copied from one is pasted bold into the other", async () => {
    const a = await editor();
    await a.page.keyboard.press("Control+End");
    await a.page.keyboard.press("Enter");
    await a.page.keyboard.press("Control+b");
    await a.page.keyboard.type("Zebra");
    await a.page.keyboard.press("Control+b");
    await a.page.keyboard.press("Shift+Home");
    await selectionReady(a.frame);
    await a.page.keyboard.press("Control+c");
    expect((await clipboard()).text).toBe("Zebra");

    const b = await editor();
    await b.page.keyboard.press("Control+End");
    await b.page.keyboard.press("Enter");
    await b.page.keyboard.press("Control+v");
    await b.page.waitForFunction(() => (window as any).msgs.some((m: any) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });
    expect(await hostSave(b.page)).toMatchObject({ success: true });
    const runs = docxParagraphRuns(env.lastStored(b.id)).flat();
    expect(runs.find((r) => r.text.includes("Zebra"))?.bold).toBe(true);
    await Promise.all([a.page.close(), b.page.close()]);
  }, scaled(60_000));

  test("cut: the selection goes to the clipboard and leaves the document", async () => {
    const { id, page, frame } = await editor();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+Shift+ArrowRight"); // "Hello "
    await selectionReady(frame);
    await page.keyboard.press("Control+x");
    await page.waitForFunction(() => (window as any).msgs.some((m: any) => m.MessageId === "Doc_ModifiedStatus" && m.Values.Modified), undefined, { polling: 25 });
    expect(await hostSave(page)).toMatchObject({ success: true });
    expect(paragraphTexts(env.lastStored(id))[0]).toBe("from svc");
    expect((await clipboard()).text).toBe("Hello ");
    await page.close();
  }, scaled(60_000));
});
