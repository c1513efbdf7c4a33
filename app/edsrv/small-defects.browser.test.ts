// The small defects of issue 12 (item 5), each where a person met it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pagePoint } from "./testing/chromium";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv({ idleKits: 1 });
});
afterAll(async () => {
  await env?.close();
});

describe("small defects", () => {
  // A slide's name is its title as imported and LibreOffice keeps it when the title changes: the
  // tabs are labelled by slide number (their accessible name "Slide n"), never by a stale title.
  test("a slide's tab never shows an old title: labelled by number, also after the title is edited", async () => {
    const ctx = await env.browser.newContext();
    const f = env.newFile("hello.pptx");
    const { page, frame } = await env.openEditor(ctx, f.src);
    const labels = () => frame.evaluate(() => [...document.querySelectorAll("#parts button")].map((b) => [b.textContent, b.getAttribute("aria-label")]));
    expect(await labels()).toEqual([["1", "Slide 1"], ["2", "Slide 2"]]);
    // The title placeholder of slide 1 (see editor.browser.test.ts): a click into its text, then type at its end.
    const pt = await pagePoint(frame, (540000 + 4500000) / 635, (1980000 + 630000) / 635);
    await page.mouse.click(pt.x, pt.y);
    await page.keyboard.press("End");
    await page.keyboard.type(" Renamed");
    await page.keyboard.press("Escape"); // the edit ends: the title is the slide's
    await frame.waitForFunction(() => (window as any).edState.modified === true, undefined, { polling: 50 });
    await frame.evaluate(() => (window as any).edApi.send("status"));
    await frame.waitForFunction(() => (window as any).edState.received.status >= 2, undefined, { polling: 50 });
    expect(await labels()).toEqual([["1", "Slide 1"], ["2", "Slide 2"]]);
    await ctx.close();
  }, 30_000);
});
