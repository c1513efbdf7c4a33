// The editor's interface for text documents (issue 13, group 1 and the text parts of group 4):
// each control changes the stored file as a person expects, and shows the engine's state at the
// cursor. Real editing server, real kits, Debian's Chromium, a loopback WOPI host.
import { describe, expect, test } from "bun:test";
import { docxParagraphRuns, editorEnvPerFile } from "./testing/editor-env";
import { answer, control, modified, openFixture, part, partNames, press, saveAndRead, stateIs } from "./testing/interface";
import { until, scaled } from "../testing/until";

const env = editorEnvPerFile();

/** hello.docx opened by Alice, the cursor on a new empty last paragraph. */
async function newParagraph() {
  const opened = await openFixture(env, "hello.docx");
  await opened.page.keyboard.press("Control+End");
  await opened.page.keyboard.press("Enter");
  return opened;
}
const documentXml = (bytes: Uint8Array) => part(bytes, "word/document.xml");
/** The XML of the stored document's paragraph that contains `text`. */
function paragraphWith(bytes: Uint8Array, text: string): string {
  const p = [...documentXml(bytes).matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((m) => m[0]).find((x) => x.replace(/<[^>]+>/g, "").includes(text));
  if (!p) throw new Error(`no paragraph with ${text}`);
  return p;
}

describe("text documents: the toolbar", () => {
  test("bold, italic, underline and strikethrough apply to what is typed next, and each button shows the state at the cursor", async () => {
    const { id, page, frame, close } = await newParagraph();
    await press(frame, ".uno:Bold");
    await stateIs(frame, ".uno:Bold", "true");
    expect(await frame.getAttribute(control(".uno:Bold"), "aria-pressed")).toBe("true");
    await page.keyboard.type("Bold words");
    await press(frame, ".uno:Bold");
    await stateIs(frame, ".uno:Bold", "false");
    await press(frame, ".uno:Italic");
    await page.keyboard.type(" italic");
    await press(frame, ".uno:Italic");
    await press(frame, ".uno:Underline");
    await page.keyboard.type(" under");
    await press(frame, ".uno:Underline");
    await press(frame, ".uno:Strikeout");
    await page.keyboard.type(" struck");
    await press(frame, ".uno:Strikeout");
    await page.keyboard.type(" plain");
    // The cursor back inside the bold words: the button follows it.
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await stateIs(frame, ".uno:Bold", "true");
    expect(await frame.getAttribute(control(".uno:Bold"), "aria-pressed")).toBe("true");
    await page.keyboard.press("End");
    await stateIs(frame, ".uno:Bold", "false");
    expect(await frame.getAttribute(control(".uno:Bold"), "aria-pressed")).toBe("false");

    const bytes = await saveAndRead(env, page, id);
    const runs = docxParagraphRuns(bytes).find((p) => p.some((r) => r.text.includes("Bold words")))!;
    expect(runs.map((r) => r.text).join("")).toBe("Bold words italic under struck plain");
    expect(runs.find((r) => r.text === "Bold words")).toMatchObject({ bold: true, italic: false });
    expect(runs.find((r) => r.text === " italic")).toMatchObject({ bold: false, italic: true });
    expect(runs.find((r) => r.text === " under")).toMatchObject({ underline: true, italic: false });
    expect(paragraphWith(bytes, "struck")).toMatch(/<w:strike\/>[\s\S]*?<w:t[^>]*> struck<\/w:t>/);
    // Strikethrough is not one of a run's three flags here: " struck" and " plain" read as one run.
    expect(runs[runs.length - 1]).toMatchObject({ text: " struck plain", bold: false, italic: false, underline: false });
    await close();
  }, scaled(60_000));

  test("the font, size and paragraph style pickers format the paragraph and show the values at the cursor", async () => {
    const { id, page, frame, close } = await newParagraph();
    // The style first: applying a paragraph style clears character formatting that spans the
    // whole paragraph (Writer's rule), as in LibreOffice and Word.
    await frame.selectOption(".tb-style", "Heading 1");
    await stateIs(frame, ".uno:StyleApply", "Heading 1");
    // The installed fonts, from the engine.
    await frame.waitForFunction(() => (document.querySelector(".tb-font") as HTMLSelectElement).options.length > 5);
    const fonts = await frame.$$eval(".tb-font option", (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(fonts).toContain("DejaVu Sans");
    await frame.selectOption(".tb-font", "DejaVu Sans");
    await stateIs(frame, ".uno:CharFontName", "DejaVu Sans");
    await frame.selectOption(".tb-size", "18");
    await stateIs(frame, ".uno:FontHeight", "18");
    await page.keyboard.type("Sized text");
    expect(await frame.$eval(".tb-style", (s) => (s as HTMLSelectElement).value)).toBe("Heading 1");
    expect(await frame.$eval(".tb-size", (s) => (s as HTMLSelectElement).value)).toBe("18");

    const p = paragraphWith(await saveAndRead(env, page, id), "Sized text");
    expect(p).toContain('<w:pStyle w:val="Heading1"/>');
    expect(p).toContain('<w:sz w:val="36"/>'); // half points
    expect(p).toMatch(/<w:rFonts w:ascii="DejaVu Sans"/);
    await close();
  }, scaled(60_000));

  test("alignment buttons set the paragraph's alignment; the pressed one follows the cursor", async () => {
    const { id, page, frame, close } = await newParagraph();
    await page.keyboard.type("Centred line");
    await press(frame, ".uno:CenterPara");
    await stateIs(frame, ".uno:CenterPara", "true");
    expect(await frame.getAttribute(control(".uno:CenterPara"), "aria-pressed")).toBe("true");
    await page.keyboard.press("Enter");
    await press(frame, ".uno:RightPara");
    await page.keyboard.type("Right line");
    await stateIs(frame, ".uno:RightPara", "true");
    await page.keyboard.press("ArrowUp");
    await stateIs(frame, ".uno:CenterPara", "true");
    expect(await frame.getAttribute(control(".uno:RightPara"), "aria-pressed")).toBe("false");

    const bytes = await saveAndRead(env, page, id);
    expect(paragraphWith(bytes, "Centred line")).toContain('<w:jc w:val="center"/>');
    expect(paragraphWith(bytes, "Right line")).toMatch(/<w:jc w:val="(right|end)"\/>/);
    await close();
  }, scaled(60_000));

  test("text colour and highlight colour colour the selected text", async () => {
    const { id, page, frame, close } = await newParagraph();
    await page.keyboard.type("Plain Coloured");
    for (let i = 0; i < "Coloured".length; i++) await page.keyboard.press("Shift+ArrowLeft");
    // The palette's other-colour input's change, as the browser's colour chooser makes it.
    const pick = (label: string, value: string) =>
      frame.$eval(`[role=dialog][aria-label="${label}"] input[type=color]`, (i, v) => { (i as HTMLInputElement).value = v; i.dispatchEvent(new Event("change")); }, value);
    await pick("Text colour", "#c01c28");
    await pick("Highlight colour", "#f6d32d");
    const p = paragraphWith(await saveAndRead(env, page, id), "Coloured");
    const runs = [...p.matchAll(/<w:r><w:rPr>(.*?)<\/w:rPr><w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => ({ props: m[1]!, text: m[2]! }));
    const coloured = runs.find((r) => r.text === "Coloured")!;
    expect(coloured.props).toMatch(/<w:color w:val="C01C28"\/>/i);
    expect(coloured.props).toMatch(/<w:shd [^>]*w:fill="F6D32D"/i);
    expect(runs.find((r) => r.text.startsWith("Plain"))!.props).not.toMatch(/C01C28|F6D32D/i);
    await close();
  }, scaled(60_000));

  test("bulleted and numbered lists and indent change the stored paragraphs", async () => {
    const { id, page, frame, close } = await newParagraph();
    await press(frame, ".uno:DefaultBullet");
    await stateIs(frame, ".uno:DefaultBullet", "true");
    await page.keyboard.type("First bullet");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Second bullet");
    await press(frame, ".uno:DefaultBullet");
    await stateIs(frame, ".uno:DefaultBullet", "false");
    await page.keyboard.press("Enter");
    await press(frame, ".uno:DefaultNumbering");
    await page.keyboard.type("Numbered");
    await press(frame, ".uno:IncrementIndent");
    const bytes = await saveAndRead(env, page, id);
    expect(paragraphWith(bytes, "First bullet")).toContain("<w:numPr>");
    expect(paragraphWith(bytes, "Second bullet")).not.toContain("<w:numPr>");
    const numbered = paragraphWith(bytes, "Numbered");
    expect(numbered).toContain("<w:numPr>");
    // The two lists are of two kinds: a bullet and a decimal number.
    const numbering = part(bytes, "word/numbering.xml");
    expect(numbering).toContain('w:val="bullet"');
    expect(numbering).toContain('w:val="decimal"');
    expect(numbered).toMatch(/<w:ilvl w:val="1"\/>|<w:ind w:left="\d+"/);
    await close();
  }, scaled(60_000));

  test("insert table: its size picked on a grid puts a table of that size in the document", async () => {
    const { id, page, frame, close } = await newParagraph();
    await press(frame, ".uno:InsertTable");
    await frame.hover('.tb-table-grid [data-size="2x3"]');
    expect(await frame.textContent(".tb-table-size")).toBe("2 × 3 table");
    await frame.click('.tb-table-grid [data-size="2x3"]');
    await page.keyboard.type("cell one");
    const xml = documentXml(await saveAndRead(env, page, id));
    const table = /<w:tbl>[\s\S]*?<\/w:tbl>/.exec(xml)?.[0] ?? "";
    expect(table.match(/<w:tr[ >]/g)?.length).toBe(3);
    expect(table.match(/<w:gridCol /g)?.length).toBe(2);
    expect(table).toContain("cell one");
    await close();
  }, scaled(60_000));

  test("insert table from the keyboard: arrow keys size it on the grid, Enter inserts it; Insert table… opens LibreOffice's dialog", async () => {
    const { id, page, frame, close } = await newParagraph();
    await press(frame, ".uno:InsertTable");
    await frame.waitForFunction(() => document.activeElement?.getAttribute("data-size") === "1x1");
    for (const k of ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowDown"]) await page.keyboard.press(k);
    expect(await frame.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("4 × 2 table");
    await page.keyboard.press("Enter");
    await frame.waitForSelector(".tb-table-picker", { state: "hidden" });
    await page.keyboard.type("first cell");
    const xml = documentXml(await saveAndRead(env, page, id));
    const table = /<w:tbl>[\s\S]*?<\/w:tbl>/.exec(xml)?.[0] ?? "";
    expect(table.match(/<w:tr[ >]/g)?.length).toBe(2);
    expect(table.match(/<w:gridCol /g)?.length).toBe(4);
    await press(frame, ".uno:InsertTable");
    await frame.click(".tb-table-more");
    await frame.locator('.jsd-dialog[data-dialog="InsertTableDialog"]').waitFor();
    await close();
  }, scaled(60_000));

  test("insert link and page break go into the stored file", async () => {
    const { id, page, frame, close } = await newParagraph();
    await page.keyboard.type("Before break");
    await press(frame, ".uno:InsertPagebreak");
    await page.keyboard.type("After break ");
    await press(frame, ".uno:HyperlinkDialog");
    await answer(frame, ["https://example.org/svc", "the svc site"]);
    const bytes = await saveAndRead(env, page, id);
    const xml = documentXml(bytes);
    expect(xml).toMatch(/<w:br w:type="page"\/>|<w:pageBreakBefore\/>/);
    const link = /<w:hyperlink r:id="(\w+)"[\s\S]*?<\/w:hyperlink>/.exec(xml);
    expect(link?.[0].replace(/<[^>]+>/g, "")).toBe("the svc site");
    expect(part(bytes, "word/_rels/document.xml.rels")).toContain('Target="https://example.org/svc"');
    await close();
  }, scaled(60_000));

  test("insert image puts the uploaded picture in the document", async () => {
    const { id, page, frame, close } = await newParagraph();
    // A 2×2 red PNG, chosen in the file input the image button opens.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAhAAMDmn4jWQAAAABJRU5ErkJggg==", "base64");
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), press(frame, ".uno:InsertGraphic")]);
    await chooser.setFiles({ name: "red.png", mimeType: "image/png", buffer: png });
    await modified(frame);
    const bytes = await saveAndRead(env, page, id);
    expect(partNames(bytes).some((n) => n.startsWith("word/media/"))).toBe(true);
    expect(documentXml(bytes)).toContain("<w:drawing>");
    await close();
  }, scaled(60_000));
});

describe("text documents: track changes and comments", () => {
  test("record changes keeps an insertion as a tracked change; reject all removes it, accept all keeps it", async () => {
    const { id, page, frame, close } = await newParagraph();
    await press(frame, ".uno:TrackChanges");
    await stateIs(frame, ".uno:TrackChanges", "true");
    await page.keyboard.type("Tracked words");
    let xml = documentXml(await saveAndRead(env, page, id));
    expect(xml).toMatch(/<w:ins [^>]*>[\s\S]*Tracked words[\s\S]*?<\/w:ins>/);
    await press(frame, ".uno:RejectAllTrackedChanges");
    xml = documentXml(await saveAndRead(env, page, id));
    expect(xml).not.toContain("Tracked words");
    await page.keyboard.type("Kept words");
    await press(frame, ".uno:AcceptAllTrackedChanges");
    xml = documentXml(await saveAndRead(env, page, id));
    expect(xml).toContain("Kept words");
    expect(xml).not.toMatch(/<w:ins /);
    await close();
  }, scaled(60_000));

  test("comments: add one, see it in the panel, reply, resolve and delete", async () => {
    const { id, page, frame, close } = await newParagraph();
    await page.keyboard.type("Commented text");
    await page.keyboard.press("Shift+Home");
    await press(frame, ".uno:InsertAnnotation");
    await answer(frame, ["Please check this"]);
    await press(frame, "comments");
    await frame.waitForSelector("#comments .comment");
    expect(await frame.textContent("#comments .comment .comment-text")).toBe("Please check this");
    expect(await frame.textContent("#comments .comment .comment-head")).toContain("Alice");
    let bytes = await saveAndRead(env, page, id);
    expect(part(bytes, "word/comments.xml")).toContain("Please check this");

    await frame.click("#comments .comment .comment-actions button:nth-child(1)"); // reply
    await answer(frame, ["Checked"]);
    await frame.waitForFunction(() => document.querySelectorAll("#comments .comment").length === 2);
    const first = frame.locator("#comments .comment", { hasText: "Please check this" });
    await first.locator(".comment-actions button:nth-child(2)").click(); // resolve
    await frame.waitForSelector("#comments .comment.resolved");
    // A resolved comment offers to reopen it, not to resolve it again.
    expect(await frame.locator("#comments .comment.resolved .comment-actions button:nth-child(2)").textContent()).toBe("Reopen");
    bytes = await saveAndRead(env, page, id);

    expect(part(bytes, "word/comments.xml")).toContain("@Alice: Checked");
    expect(await frame.textContent("#comments .comment.resolved .comment-text")).toBe("Please check this");

    await first.locator(".comment-actions button:nth-child(3)").click(); // delete
    await frame.waitForFunction(() => (window as any).edUi.comments.length === 1);
    bytes = await saveAndRead(env, page, id);
    const comments = part(bytes, "word/comments.xml");
    expect(comments).not.toContain("Please check this");
    expect(comments).toContain("Checked");
    await close();
  }, scaled(60_000));
});

describe("text documents: comments are seen without looking for them", () => {
  test("a document with comments opens with the comments panel showing them and their number on its button; another person's new comment appears in it", async () => {
    // A document with a comment, made through the editor and stored.
    const first = await newParagraph();
    await first.page.keyboard.type("Commented text");
    await first.page.keyboard.press("Shift+Home");
    await press(first.frame, ".uno:InsertAnnotation");
    await answer(first.frame, ["Look at this"]);
    await first.frame.waitForFunction(() => (window as any).edUi.comments.length === 1);
    const stored = await saveAndRead(env, first.page, first.id);
    expect(part(stored, "word/comments.xml")).toContain("Look at this");
    await first.close();

    // Opened again by Alice (a wide window) and Bob: no click on the panel's button.
    const f = env.newFile("commented.docx", stored);
    const [ca, cb] = await Promise.all([env.browser.newContext({ viewport: { width: 1400, height: 900 } }), env.browser.newContext({ viewport: { width: 1400, height: 900 } })]);
    const a = await env.openEditor(ca, f.src, "tok_alice");
    await a.frame.waitForSelector("#comments:not([hidden]) .comment");
    expect(await a.frame.textContent("#comments .comment .comment-text")).toBe("Look at this");
    expect(await a.frame.textContent('[data-cmd="comments"] .tb-count')).toBe("1");
    expect(await a.frame.getAttribute('[data-cmd="comments"]', "aria-label")).toContain("(1)");
    // Bob comments: Alice's panel lists it without her asking.
    const b = await env.openEditor(cb, f.src, "tok_bob");
    await b.frame.focus("#ime");
    await b.page.keyboard.press("Control+Home");
    await b.page.keyboard.press("Shift+End");
    await press(b.frame, ".uno:InsertAnnotation");
    await answer(b.frame, ["Bob agrees"]);
    await a.frame.waitForFunction(() => document.querySelectorAll("#comments .comment").length === 2, undefined, { polling: 100, timeout: scaled(20_000) });
    expect(await a.frame.textContent('[data-cmd="comments"] .tb-count')).toBe("2");
    await Promise.all([ca.close(), cb.close()]);
  }, scaled(90_000));
});

describe("text documents: spell checking", () => {
  // The dictionaries come from Debian's hunspell-en-us and hunspell-vi (scripts/setup.sh); the
  // kit allows their languages (LOK_ALLOWLIST_LANGUAGES) and each view asks for checking as you type.
  test("a misspelt word is underlined in red as it is typed, a correct one is not", async () => {
    const { page, frame, close } = await newParagraph();
    /** Types a line and answers where it is (the cursor at its end). */
    const line = async (text: string) => {
      await page.keyboard.type(text);
      await frame.waitForFunction(() => window.edState.modified === true);
      return frame.evaluate(() => window.edState.cursor);
    };
    /** Red pixels (the wavy line) under a typed line: from 400 px left of its end to its end. */
    const red = (c: unknown) =>
      frame.evaluate((c: any) => {
        const canvas = document.getElementById("canvas") as HTMLCanvasElement;
        const v = (canvas as any)._v, k = (window as any).edApi.zoom();
        const x = Math.max(0, Math.floor(c.x / k - v.x) - 400), y = Math.floor((c.y + c.h * 0.6) / k - v.y), w = 400, h = Math.ceil(c.h / k);
        const d = canvas.getContext("2d")!.getImageData(x, y, w, h).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i]! > 180 && d[i + 1]! < 90 && d[i + 2]! < 90) n++;
        return n;
      }, c);
    const correct = await line("This sentence is written correctly.");
    await page.keyboard.press("Enter");
    const wrong = await line("Thsi sentnce is wrnog.");
    // LibreOffice checks as you type on an idle timer: the underline comes a moment after the keys.
    await until(() => red(wrong), (n) => n > 10, "the misspelt line underlined in red (red pixels under it)", 5000, 100);
    expect(await red(wrong)).toBeGreaterThan(10);
    // Checked by then, the correct line has no red.
    expect(await red(correct)).toBe(0);
    await close();
  }, scaled(60_000));
});

