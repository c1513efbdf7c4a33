// Commented text is marked in a text document (issue 45): our kit keeps comments out of the tiles
// (NO_TILED_ANNOTATIONS), so the page marks each comment's text itself, as Collabora does.
// Real editing server, real kit, Debian's Chromium, a loopback WOPI host.
import { describe, expect, test } from "bun:test";
import type { Frame } from "playwright-core";
import { editorEnvPerFile } from "./testing/editor-env";
import { answer, openFixture, press } from "./testing/interface";
import { scaled } from "../testing/until";

const env = editorEnvPerFile();

type Box = { x: number; y: number; w: number; h: number };
/** The marks of a set, in twips (their place on the page times the zoom). */
const marks = (frame: Frame, name: string) => frame.evaluate((n) => {
  const k = window.edState.twipsPerPx;
  return [...document.querySelectorAll<HTMLElement>(`.marks[data-name="${n}"] .mark`)].map((d) => ({
    x: parseFloat(d.style.left) * k, y: parseFloat(d.style.top) * k, w: parseFloat(d.style.width) * k, h: parseFloat(d.style.height) * k,
  }));
}, name);
const centre = (r: Box) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
const covers = (r: Box, p: { x: number; y: number }) => p.x >= r.x && p.x <= r.x + r.w && p.y >= r.y && p.y <= r.y + r.h;

describe("text documents: commented text is marked", () => {
  test("the text a comment is on is marked in the page, marked more strongly while its comment is pointed at, follows the zoom, and is unmarked when the comment is deleted", async () => {
    const { page, frame, close } = await openFixture(env, "hello.docx");
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Commented text");
    await page.keyboard.press("Shift+Home");
    await frame.waitForFunction(() => window.edState.selection.length > 0, undefined, { polling: 25 });
    // Where the commented words are: the selection the comment is made on.
    const selected = await frame.evaluate(() => window.edState.selection.map((r) => ({ ...r })));
    await press(frame, ".uno:InsertAnnotation");
    await answer(frame, ["Please check this"]);
    await frame.waitForFunction(() => (window as any).edUi.comments.length === 1, undefined, { polling: 50 });
    await frame.waitForFunction(() => document.querySelectorAll('.marks[data-name="comments"] .mark').length > 0, undefined, { polling: 50, timeout: scaled(10_000) });
    const marked = await marks(frame, "comments");
    for (const s of selected) expect(marked.some((m) => covers(m, centre(s)))).toBe(true);

    // The comment pointed at in the panel: its text marked more strongly, until the pointer leaves.
    if (await frame.isHidden("#comments")) await press(frame, "comments");
    await frame.hover("#comments .comment");
    await frame.waitForFunction(() => document.querySelectorAll('.marks[data-name="comment"] .mark').length > 0, undefined, { polling: 50 });
    await frame.hover("#comments h2");
    await frame.waitForFunction(() => document.querySelectorAll('.marks[data-name="comment"] .mark').length === 0, undefined, { polling: 50 });

    // Twice the zoom: the marks are twice as large on the page, over the same words.
    const pxBefore = await frame.evaluate(() => parseFloat(document.querySelector<HTMLElement>('.marks[data-name="comments"] .mark')!.style.width));
    await frame.evaluate(() => (window as any).edApi.setZoom(window.edState.twipsPerPx / 2));
    await frame.waitForFunction((w) => parseFloat(document.querySelector<HTMLElement>('.marks[data-name="comments"] .mark')!.style.width) > w * 1.9, pxBefore, { polling: 50 });
    const zoomed = await marks(frame, "comments");
    for (const s of selected) expect(zoomed.some((m) => covers(m, centre(s)))).toBe(true);

    await frame.click("#comments .comment .comment-actions button:nth-child(3)"); // delete
    await frame.waitForFunction(() => (window as any).edUi.comments.length === 0, undefined, { polling: 50, timeout: scaled(10_000) });
    expect(await marks(frame, "comments")).toEqual([]);
    await close();
  }, scaled(60_000));
});
