// Issue 45's smaller defects (item 10), each where a person met it. Real editing server, real
// kits, Debian's Chromium, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scaled } from "../testing/until";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv({ idleKits: 1 });
});
afterAll(async () => {
  await env?.close();
});

describe("no dead ends: small defects", () => {
  test("the font and size boxes show nothing until the engine reports the font at the cursor, never the list's first entry", async () => {
    const ctx = await env.browser.newContext();
    // Every frame from the page's start: what the boxes show, and whether the engine has said.
    await ctx.addInitScript(() => {
      const seen: [string, string, boolean, boolean][] = [];
      (window as any).__boxes = seen;
      const tick = () => {
        const font = document.querySelector<HTMLSelectElement>(".tb-font"), size = document.querySelector<HTMLSelectElement>(".tb-size");
        const state = (window as any).edUi?.state ?? {};
        if (font && size) seen.push([font.value, size.value, state[".uno:CharFontName"] !== undefined, state[".uno:FontHeight"] !== undefined]);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const f = env.newFile("hello.docx");
    const { frame } = await env.openEditor(ctx, f.src);
    // The font list arrives (it came with its first entry selected).
    await frame.waitForFunction(() => document.querySelectorAll(".tb-font option").length > 5 && (window as any).edUi.state[".uno:CharFontName"] !== undefined, undefined, { polling: 25 });
    await frame.waitForFunction(() => (window as any).__boxes.length > 2, undefined, { polling: 25 });
    const seen: [string, string, boolean, boolean][] = await frame.evaluate(() => (window as any).__boxes);
    expect(seen.filter(([font, , known]) => font !== "" && !known)).toEqual([]);
    expect(seen.filter(([, size, , known]) => size !== "" && !known)).toEqual([]);
    expect(await frame.inputValue(".tb-font")).toBe(await frame.evaluate(() => (window as any).edUi.state[".uno:CharFontName"]));
    await ctx.close();
  }, scaled(30_000));

  test("the rename-sheet box is modal: the document behind takes no click and no key until it closes", async () => {
    const ctx = await env.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const f = env.newFile("hello.xlsx");
    const { page, frame } = await env.openEditor(ctx, f.src);
    await frame.dblclick("#parts button:nth-child(1)");
    const form = frame.getByRole("dialog", { name: "Rename sheet" });
    await form.waitFor();
    expect(await form.getAttribute("aria-modal")).toBe("true");
    expect(await frame.evaluate(() => window.edState.modalWindows)).toBe(1);
    // A click on the sheet lands on the layer over it, and the keyboard stays in the box.
    const hit = await frame.evaluate(() => { const c = document.getElementById("canvas")!.getBoundingClientRect(); return document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2)?.className; });
    expect(hit).toBe("ask-layer");
    const canvas = await frame.locator("#canvas").boundingBox();
    await page.mouse.click(canvas!.x + canvas!.width / 2, canvas!.y + canvas!.height / 2);
    await page.keyboard.type("Q");
    expect(await form.getByRole("textbox").inputValue()).toBe("Q");
    await page.keyboard.press("Escape");
    await form.waitFor({ state: "detached" });
    expect(await frame.evaluate(() => window.edState.modalWindows)).toBe(0);
    await ctx.close();
  }, scaled(30_000));
});
