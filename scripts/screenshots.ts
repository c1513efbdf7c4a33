// Takes the editor's screenshots in docs/img/ (docs/editing-server.md, "The interface"): a text
// document, a spreadsheet and a deck, each as a person sees it after a few actions, in the real
// editor with real kits and Debian's Chromium. Run: bun run scripts/screenshots.ts [file.png …]
import path from "node:path";
import { startEditorEnv } from "../app/edsrv/testing/editor-env";
import { press } from "../app/edsrv/testing/interface";

const out = path.resolve(import.meta.dir, "../docs/img");
const env = await startEditorEnv({ idleKits: 1 });
try {
  const shots: Array<[string, string, (p: Awaited<ReturnType<typeof env.openEditor>>) => Promise<void>]> = [
    ["editor-text.png", "hello.docx", async ({ page, frame }) => {
      await frame.focus("#ime");
      await page.keyboard.press("Control+End");
      await page.keyboard.press("Enter");
      await frame.click('[data-cmd=".uno:Bold"]');
      await page.keyboard.type("Bold words");
      await frame.click('[data-cmd=".uno:Bold"]');
      await page.keyboard.type(" and plain ones.");
      await frame.click('.tb-tab[data-tab="review"]'); // the comments' panel is on the Review tab
      await frame.click('[data-cmd="comments"]');
      await frame.click('.tb-tab[data-tab="home"]');
    }],
    ["editor-sheet.png", "hello.xlsx", async ({ page, frame }) => {
      await frame.fill("#address", "B2:B4");
      await frame.press("#address", "Enter");
      await page.waitForTimeout(300);
    }],
    ["editor-deck.png", "hello.pptx", async ({ frame }) => {
      await frame.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#slides .thumb img")].every((i) => i.dataset.loaded === "1"));
    }],
    ["editor-sidebar.png", "hello.docx", async ({ frame }) => {
      await frame.click('.tb-tab[data-tab="view"]');
      await frame.click('[data-cmd="sidebar"]');
      await frame.locator("#sidebar section").first().waitFor();
      await frame.click('.tb-tab[data-tab="home"]');
    }],
    ["dialog-paragraph.png", "hello.docx", async ({ frame }) => {
      await frame.click('.tb-tab[data-tab="format"]');
      await frame.click('[data-cmd=".uno:ParagraphDialog"]');
      await frame.locator(".jsd-dialog").waitFor();
    }],
    ["dialog-format-cells.png", "hello.xlsx", async ({ frame }) => {
      await frame.fill("#address", "C2:C4");
      await frame.press("#address", "Enter");
      await frame.click('.tb-tab[data-tab="format"]');
      await frame.click('[data-cmd=".uno:FormatCellDialog"]');
      await frame.locator(".jsd-dialog").waitFor();
    }],
    ["dialog-conditional-format.png", "hello.xlsx", async ({ frame }) => {
      await frame.fill("#address", "B2:B4");
      await frame.press("#address", "Enter");
      await frame.click('.tb-tab[data-tab="format"]');
      await frame.click('[data-cmd=".uno:ConditionalFormatDialog"]');
      await frame.locator(".jsd-tunnelled canvas").waitFor();
    }],
    ["dialog-validity.png", "hello.xlsx", async ({ frame }) => {
      await frame.fill("#address", "B2:B4");
      await frame.press("#address", "Enter");
      await press(frame, ".uno:Validation");
      await frame.locator('.jsd-dialog[data-dialog="ValidationDialog"]').waitFor();
    }],
    ["popup-colour-palette.png", "hello.docx", async ({ frame }) => {
      await press(frame, ".uno:Color");
      await frame.locator(".tb-palette:not([hidden])").waitFor();
    }],
    ["popup-autofilter.png", "hello.xlsx", async ({ page, frame }) => {
      await frame.fill("#address", "A1:C4");
      await frame.press("#address", "Enter");
      await press(frame, ".uno:DataFilterAutoFilter");
      await frame.fill("#address", "A1");
      await frame.press("#address", "Enter");
      await page.waitForTimeout(500);
      const r = (await frame.locator("#cellcursor").boundingBox())!;
      await page.mouse.click(r.x + r.width - 6, r.y + r.height - 6);
      await frame.locator(".jsd-dropdown .jsd-checktree").waitFor();
    }],
  ];
  // Only the shots named on the command line, when some are.
  const only = new Set(process.argv.slice(2));
  if (only.size) for (const list of [shots]) list.splice(0, list.length, ...list.filter(([file]) => only.has(file)));
  // The same families on a phone (390 × 844, touch), and a dialog there.
  const phone: Array<[string, string, (p: Awaited<ReturnType<typeof env.openEditor>>) => Promise<void>]> = [
    ["phone-text.png", "hello.docx", async () => {}],
    ["phone-sheet.png", "hello.xlsx", async () => {}],
    ["phone-deck.png", "hello.pptx", async () => {}],
    ["phone-dialog.png", "hello.docx", async ({ frame }) => {
      await frame.evaluate(() => (window as any).edApi.uno(".uno:ParagraphDialog"));
      await frame.locator(".jsd-dialog").waitFor();
    }],
  ];
  for (const [file, fixture, act] of phone.filter(([file]) => !only.size || only.has(file))) {
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const f = env.newFile(fixture);
    const editor = await env.openEditor(ctx, f.src, "tok_alice");
    await act(editor);
    await editor.page.waitForTimeout(1200); // the last tiles
    await editor.page.screenshot({ path: path.join(out, file) });
    console.log(`wrote docs/img/${file}`);
    await ctx.close();
  }
  for (const [file, fixture, act] of shots) {
    // Larger than the host page's 1000×700 frame, so the host page shows no scrollbars.
    const ctx = await env.browser.newContext({ viewport: { width: 1040, height: 740 } });
    const f = env.newFile(fixture);
    const editor = await env.openEditor(ctx, f.src, "tok_alice");
    await act(editor);
    await editor.page.waitForTimeout(1200); // the last tiles and thumbnails
    await editor.page.screenshot({ path: path.join(out, file), clip: { x: 0, y: 0, width: 1000, height: 700 } });
    console.log(`wrote docs/img/${file}`);
    await ctx.close();
  }
} finally {
  await env.close();
}
process.exit(0);
