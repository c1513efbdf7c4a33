// The editor's interface for presentations (issue 13, group 3): the slide panel with the engine's
// thumbnails, adding, duplicating, deleting and reordering slides, and the slideshow.
import { describe, expect, test } from "bun:test";
import type { Frame } from "playwright-core";
import { scaled, until } from "../testing/until";
import { editorEnvPerFile } from "./testing/editor-env";
import { openFixture, press, saveAndRead } from "./testing/interface";
import { slideTexts } from "./testing/stored";

const env = editorEnvPerFile();

/** hello.pptx (slide 1 "This is / An example Impress file", slide 2 empty) opened by Alice. */
async function openDeck() {
  const opened = await openFixture(env, "hello.pptx");
  await opened.frame.waitForFunction(() => document.querySelectorAll("#slides .thumb").length === 2);
  return opened;
}

const selected = (frame: Frame) => frame.evaluate(() => window.edState.status!.selectedPart as number);
const slideCount = (frame: Frame, n: number) =>
  frame.waitForFunction((k) => document.querySelectorAll("#slides .thumb").length === k && window.edState.status!.parts === k, n, { polling: 50 });

describe("presentations: the slide panel", () => {
  test("the slide panel shows a thumbnail of every slide, painted by the engine, and marks the current one", async () => {
    const { frame, close } = await openDeck();
    await frame.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#slides .thumb img")].every((i) => i.dataset.loaded === "1" && i.naturalWidth === 160), undefined, { polling: 50 });
    const sizes = await frame.$$eval("#slides .thumb img", (is) => is.map((i) => [(i as HTMLImageElement).naturalWidth, (i as HTMLImageElement).naturalHeight]));
    expect(sizes.every(([w, h]) => w === 160 && h! > 60 && h! < 160)).toBe(true);
    // Slide 1 has text, slide 2 is empty: their pictures differ.
    const srcs = await frame.$$eval("#slides .thumb img", (is) => is.map((i) => (i as HTMLImageElement).src));
    expect(srcs[0]).not.toBe(srcs[1]);
    expect(await frame.getAttribute("#slides .thumb:nth-child(1)", "aria-current")).toBe("true");
    await frame.click("#slides .thumb:nth-child(2)");
    await frame.waitForFunction(() => document.querySelector("#slides .thumb:nth-child(2)")!.getAttribute("aria-current") === "true");
    expect(await frame.textContent("#sb-position")).toBe("Slide 2 of 2");
    await close();
  }, scaled(60_000));

  test("a slide's thumbnail dragged below the next one moves the slide there, in the stored deck too, a line showing where it will go", async () => {
    const { id, page, frame, close } = await openDeck();
    const example = "This is An example Impress file";
    expect(slideTexts(await saveAndRead(env, page, id))).toEqual([example, ""]);
    // As a person drags: pressed on slide 1, moved over the lower half of slide 2, released.
    const first = (await frame.locator("#slides .thumb:nth-child(1)").boundingBox())!;
    const second = (await frame.locator("#slides .thumb:nth-child(2)").boundingBox())!;
    await frame.locator("#slides .thumb:nth-child(1)").dragTo(frame.locator("#slides .thumb:nth-child(2)"), {
      sourcePosition: { x: first.width / 2, y: first.height / 2 }, targetPosition: { x: second.width / 2, y: second.height * 0.8 },
    });
    // The move is the engine's, told by no frame of its own: the stored deck is read until it shows it.
    const texts = await until(async () => slideTexts(await saveAndRead(env, page, id)), (t) => t[1] === example, "slide 1 moved after slide 2", 10_000, 250);
    expect(texts).toEqual(["", example]);
    expect(await frame.$$eval("#slides .drop-before, #slides .drop-after", (l) => l.length)).toBe(0);

    // The line while dragging: after the thumbnail over whose lower half the pointer is.
    const box = (await frame.locator("#slides .thumb:nth-child(1)").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    const target = (await frame.locator("#slides .thumb:nth-child(2)").boundingBox())!;
    await page.mouse.move(target.x + target.width / 2, target.y + target.height * 0.8, { steps: 5 });
    await frame.waitForSelector("#slides .thumb:nth-child(2).drop-after");
    await page.mouse.up();
    await frame.waitForFunction(() => !document.querySelector("#slides .drop-after"));
    await close();
  }, scaled(60_000));

  test("new, duplicate, delete, move down and move up change the slides of the stored deck", async () => {
    const { id, page, frame, close } = await openDeck();
    const example = "This is An example Impress file";
    await press(frame, ".uno:DuplicatePage"); // [S1, S1', S2], on S1'
    await slideCount(frame, 3);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    await press(frame, "movedown"); // [S1, S2, S1']
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 2);
    expect(slideTexts(await saveAndRead(env, page, id))).toEqual([example, "", example]);

    await press(frame, ".uno:InsertPage"); // a new slide after the current: [S1, S2, S1', N]
    await slideCount(frame, 4);
    expect(await selected(frame)).toBe(3);
    await press(frame, "moveup"); // [S1, S2, N, S1']
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 2);
    let texts = slideTexts(await saveAndRead(env, page, id));
    expect(texts.length).toBe(4);
    expect(texts[0]).toBe(example);
    expect(texts[3]).toBe(example);
    expect(texts[2]).not.toBe(example);

    await press(frame, ".uno:DeletePage"); // the new one goes
    await slideCount(frame, 3);
    texts = slideTexts(await saveAndRead(env, page, id));
    expect(texts).toEqual([example, "", example]);
    await close();
  }, scaled(60_000));

  test("the slideshow shows the current slide full screen as a show draws it (no caret, no empty placeholder), keys and clicks move between slides, Escape ends it", async () => {
    const { frame, close } = await openDeck();
    await frame.click("#slides .thumb:nth-child(2)");
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    const shown = (part: number) => frame.waitForFunction((p) => { const i = document.querySelector<HTMLImageElement>("#slideshow .show-slide"); return !!i && i.dataset.part === String(p) && i.src.startsWith("data:image/png") && i.complete && i.naturalWidth > 0; }, part, { polling: 50 });
    const picture = () => frame.evaluate(() => document.querySelector<HTMLImageElement>("#slideshow .show-slide")!.src);
    const startShow = async () => {
      await press(frame, "slideshow");
      await frame.waitForFunction(() => document.body.classList.contains("slideshow"));
    };
    const endShow = async () => {
      await frame.press("body", "Escape");
      await frame.waitForFunction(() => !document.body.classList.contains("slideshow"));
    };
    await startShow();
    expect(await selected(frame)).toBe(1); // from the current slide
    // LibreOffice's rendering for a show, over the whole screen: the editing view (its caret) is not seen.
    await shown(1);
    expect(await frame.evaluate(() => { const s = document.getElementById("slideshow")!.getBoundingClientRect(); return s.width === window.innerWidth && s.height === window.innerHeight; })).toBe(true);
    const before = await picture();
    await endShow();
    // Slide 2 gets a title and a content placeholder, both empty ("Click to add Title" in the
    // editor): the show draws the slide exactly as before.
    await frame.evaluate(() => (window as any).edApi.uno(".uno:AssignLayout", { WhatLayout: { type: "long", value: 1 } }));
    await frame.waitForFunction(() => window.edState.errors.length === 0);
    await startShow();
    await shown(1);
    expect(await picture()).toBe(before);
    await frame.press("body", "ArrowLeft");
    await shown(0);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 0);
    // Slide 1 has its text: another picture.
    expect(await picture()).not.toBe(before);
    // A click moves on.
    await frame.click("#slideshow");
    await shown(1);
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    await endShow();
    expect(await frame.isVisible("#slideshow")).toBe(false);
    await close();
  }, scaled(60_000));
});

describe("presentations: typing into a slide's placeholders", () => {
  test("text typed into an empty title placeholder of a new slide is stored", async () => {
    const { id, page, frame, close } = await openDeck();
    await frame.click("#slides .thumb:nth-child(2)");
    await frame.waitForFunction(() => window.edState.status!.selectedPart === 1);
    await frame.evaluate(() => (window as any).edApi.uno(".uno:AssignLayout", { WhatLayout: { type: "long", value: 1 } }));
    // The title placeholder sits across the top of the slide: a click there, then typing.
    const slide = (await frame.locator("#sizer").boundingBox())!;
    await page.mouse.click(slide.x + slide.width / 2, slide.y + slide.height * 0.12);
    await page.keyboard.type("Quarterly plan");
    // Leaving the placeholder (Escape, as a person does) ends the text edit.
    await page.keyboard.press("Escape");
    await until(async () => slideTexts(await saveAndRead(env, page, id))[1] ?? "", (t) => t.includes("Quarterly plan"), "the typed title stored on slide 2");
    await close();
  }, scaled(60_000));
});

describe("presentations: opening (issue 23)", () => {
  test("a deck opens fitted and centred in its view, and stays fitted when the view's size changes", async () => {
    const { page, frame, close } = await openDeck();
    const fit = () => frame.evaluate(() => {
      const v = document.getElementById("viewport")!, s = document.getElementById("sizer")!;
      return { vw: v.clientWidth, vh: v.clientHeight, left: s.offsetLeft, top: s.offsetTop, w: s.offsetWidth, h: s.offsetHeight, scroll: v.scrollWidth > v.clientWidth };
    });
    const check = async () => {
      await frame.waitForFunction(() => { const v = document.getElementById("viewport")!, s = document.getElementById("sizer")!; return s.offsetWidth <= v.clientWidth && s.offsetHeight <= v.clientHeight; }, undefined, { polling: 50 });
      const f = await fit();
      expect(f.scroll).toBe(false);
      // The whole slide, as large as the view allows (a margin of 24 px), in the middle.
      expect(Math.min(f.vw - f.w, f.vh - f.h)).toBeLessThanOrEqual(30);
      expect(Math.abs(f.left - (f.vw - f.left - f.w))).toBeLessThanOrEqual(2);
      expect(Math.abs(f.top - (f.vh - f.top - f.h))).toBeLessThanOrEqual(2);
    };
    // The panel's thumbnails and the status bar are laid out after the first fit, and the view's
    // size with them: once they are there, the slide is fitted again to what is left (keepFitted).
    await frame.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#slides .thumb img")].every((i) => i.dataset.loaded === "1" && i.complete) && !!document.getElementById("sb-position")!.textContent, undefined, { polling: 50, timeout: scaled(30_000) });
    await until(fit, (f) => !f.scroll && Math.min(f.vw - f.w, f.vh - f.h) <= 30, "the slide fitted again to the view as laid out", 10_000, 50);
    await check();
    await page.evaluate(() => { document.getElementById("ed")!.style.height = "560px"; });
    await frame.waitForFunction(() => document.getElementById("viewport")!.clientHeight < 480, undefined, { polling: 50 });
    await check();
    await close();
  }, scaled(60_000));
});
