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
});
