// The editor's interface in every family (issues 13 and 23): read-only sessions, the page's
// language, keyboard reach, and the toolbar (icons, tabs, compact mode, one language).
import { describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { editorEnvPerFile } from "./testing/editor-env";
import { TEXTS } from "../i18n";
import { until, scaled } from "../testing/until";
import { editorFrame, edState, hostPageHtml } from "./testing/chromium";
import { control, modified, openFixture, part, press, saveAndRead, stateIs } from "./testing/interface";

const env = editorEnvPerFile();

const open = (fixture: string, token = "tok_alice", query = "") => openFixture(env, fixture, token, query);

describe("everywhere: read-only sessions and languages", () => {
  test("a read-only session shows no editing control, but find, zoom, download and print, and no tab left empty", async () => {
    const { ctx, page, frame } = await open("hello.docx", "tok_carol");
    const visible = (sel: string) => frame.$$eval(sel, (es) => es.filter((e) => (e as HTMLElement).offsetParent !== null).length);
    expect(await visible(".edit-only")).toBe(0);
    expect(await visible(control(".uno:Bold"))).toBe(0);
    for (const c of ["find", "zoomin", "zoomout", "fitwidth", "print"]) expect(await visible(control(c))).toBe(1);
    expect(await visible("#download")).toBe(1);
    // No tab of nothing but editing controls: each tab shown opens a row with something to use.
    for (const tab of await frame.$$eval(".tb-tab", (ts) => ts.filter((t) => !(t as HTMLElement).hidden).map((t) => t.getAttribute("data-tab")!))) {
      await frame.click(`.tb-tab[data-tab="${tab}"]`);
      expect({ tab, usable: await visible(`#panel-${tab} button, #panel-${tab} select, #panel-${tab} input, #tb-more-menu button`) > 0 }).toEqual({ tab, usable: true });
    }
    expect(await frame.$$eval(".tb-tab", (ts) => ts.filter((t) => !(t as HTMLElement).hidden).length)).toBeGreaterThan(0);
    await page.keyboard.press("Control+F");
    await page.keyboard.type("svc");
    await frame.waitForFunction(() => (window as any).edUi.matches === 1, undefined, { polling: 50 });
    expect(await visible("#replace-text")).toBe(0);
    const [download] = await Promise.all([page.waitForEvent("download"), frame.selectOption("#download", "pdf")]);
    expect(download.suggestedFilename()).toBe("hello.pdf");
    await ctx.close();
  }, scaled(60_000));

  test("a read-only spreadsheet keeps the address box to move around, without the formula bar's editing", async () => {
    const { ctx, frame } = await open("hello.xlsx", "tok_carol");
    expect(await frame.isVisible("#address")).toBe(true);
    expect(await frame.$eval("#formula", (f) => (f as HTMLInputElement).readOnly || (f as HTMLElement).offsetParent === null)).toBe(true);
    await frame.fill("#address", "C3");
    await frame.press("#address", "Enter");
    await frame.waitForFunction(() => (document.getElementById("address") as HTMLInputElement).value === "C3", undefined, { polling: 50 });
    await ctx.close();
  }, scaled(60_000));

  test("lang=vi gives the interface in Vietnamese, lang=en in English", async () => {
    const vi = await open("hello.docx", "tok_alice", "lang=vi");
    expect(await vi.frame.getAttribute(control(".uno:Bold"), "aria-label")).toBe("Đậm");
    expect(await vi.frame.getAttribute("#download", "aria-label")).toBe("Tải xuống dạng");
    await vi.frame.waitForFunction(() => /Trang 1\/1/.test(document.getElementById("sb-position")!.textContent ?? ""), undefined, { polling: 50 });
    await vi.ctx.close();
    const en = await open("hello.docx", "tok_alice", "lang=en");
    expect(await en.frame.getAttribute(control(".uno:Bold"), "aria-label")).toBe("Bold");
    await en.ctx.close();
  }, scaled(60_000));

  test("every control has a label and is reachable with the keyboard (the row one Tab stop, its controls by arrow keys)", async () => {
    const { ctx, frame } = await open("hello.docx");
    const unlabelled = await frame.$$eval("#ribbon button, #ribbon select, #ribbon input, #findbar input, #findbar button", (es) =>
      es.filter((e) => !(e.getAttribute("aria-label") || e.textContent?.trim())).map((e) => e.outerHTML));
    expect(unlabelled).toEqual([]);
    // The shown row is one Tab stop, and the arrow keys reach each of its controls in turn.
    const shown = await frame.$$eval("#ribbon .tb-panel button, #ribbon .tb-panel select, #ribbon .tb-panel input, #ribbon .tb-more", (es) =>
      es.filter((e) => (e as HTMLElement).getClientRects().length > 0 && !(e as HTMLButtonElement).disabled).map((e) => e.getAttribute("data-cmd") ?? e.id));
    expect(shown.length).toBeGreaterThan(5);
    await frame.focus("#ribbon .tb-panel:not([hidden]) button");
    const reached: string[] = [];
    for (let i = 0; i < shown.length; i++) {
      reached.push(await frame.evaluate(() => document.activeElement!.getAttribute("data-cmd") ?? document.activeElement!.id));
      // A text field's caret goes to its end first (its arrows are its caret's until then).
      if (await frame.evaluate(() => document.activeElement instanceof HTMLInputElement)) await frame.press(":focus", "End");
      await frame.press(":focus", "ArrowRight");
    }
    expect(reached).toEqual(shown);
    await ctx.close();
  }, scaled(60_000));
});

describe("the toolbar: icons, tabs, compact mode, one language (issue 23)", () => {
  test("every command button shows the command's Colibre icon, never a text glyph, and names the command and its shortcut", async () => {
    for (const fixture of ["hello.docx", "hello.xlsx", "hello.pptx"]) {
      const { ctx, frame } = await open(fixture);
      const buttons = await frame.$$eval("#toolbar button.tb, #ribbon button.tb, #tb-more-menu button.tb, #sheetactions button.tb", (bs) => bs.map((b) => ({
        cmd: b.getAttribute("data-cmd") || b.id, text: (b.textContent ?? "").trim(), img: b.querySelector("img")?.getAttribute("src") ?? null,
      })));
      expect(buttons.length).toBeGreaterThan(fixture === "hello.docx" ? 50 : 35);
      expect(buttons.filter((b) => b.text !== "" || !b.img || !/^icons\/lc_[a-z0-9]+\.svg$/.test(b.img))).toEqual([]);
      // The pictures come from the editing server: each one on every tab has loaded (none hidden for a 404).
      for (const tab of await frame.$$eval('.tb-tab', (ts) => ts.map((t) => t.getAttribute("data-tab")!))) {
        await frame.click(`.tb-tab[data-tab="${tab}"]`);
        await frame.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("#ribbon .tb-panel:not([hidden]) img, #tb-more-menu img, #toolbar img")].every((i) => i.complete), undefined, { polling: 50 });
        const broken = await frame.$$eval("#ribbon .tb-panel:not([hidden]) img, #tb-more-menu img, #toolbar img", (is) => is.filter((i) => (i as HTMLImageElement).naturalWidth === 0).map((i) => i.getAttribute("src")));
        expect({ fixture, tab, broken }).toEqual({ fixture, tab, broken: [] });
      }
      if (fixture === "hello.docx") {
        expect(await frame.getAttribute(control(".uno:Bold"), "title")).toBe("Bold (Ctrl+B)");
        expect(await frame.getAttribute("#undo", "title")).toBe("Undo (Ctrl+Z)");
      }
      await ctx.close();
    }
  }, scaled(90_000));

  test("each family's tabs switch and hold their commands, those Collabora's Home and Insert tabs hold included", async () => {
    const expected: Record<string, Record<string, string[]>> = {
      "hello.docx": {
        home: [".uno:Paste", ".uno:PasteUnformatted", ".uno:FormatPaintbrush", ".uno:SetDefault", ".uno:Bold", ".uno:SuperScript", ".uno:SubScript", ".uno:LineSpacing", ".uno:SpacePara15", ".uno:DefaultBullet"],
        insert: [".uno:InsertTable", ".uno:InsertGraphic", ".uno:InsertObjectChart", ".uno:BasicShapes", ".uno:BasicShapes.rectangle", ".uno:DrawText", ".uno:CharmapControl", ".uno:InsertSymbol", ".uno:InsertPageHeader", ".uno:InsertPageFooter", ".uno:HyperlinkDialog"],
        format: [".uno:FontDialog", ".uno:ParagraphDialog", ".uno:BulletsAndNumberingDialog", ".uno:PageDialog"],
        layout: [".uno:AttributePageSize", ".uno:Orientation", ".uno:PageMargin"],
        review: [".uno:SpellOnline", ".uno:InsertAnnotation", ".uno:TrackChanges", ".uno:AcceptAllTrackedChanges"],
        view: ["zoomin", "zoomout", "fitwidth", "fitpage", ".uno:ControlCodes"],
      },
      "hello.xlsx": {
        home: [".uno:FormatPaintbrush", ".uno:ResetAttributes", ".uno:Bold", ".uno:BackgroundColor", ".uno:ToggleMergeCells", ".uno:WrapText"],
        insert: [".uno:InsertRowsBefore", ".uno:DeleteColumns", ".uno:InsertObjectChart", ".uno:BasicShapes", ".uno:InsertGraphic", ".uno:CharmapControl"],
        format: [".uno:FormatCellDialog", ".uno:ConditionalFormatDialog", ".uno:PageFormatDialog"],
        data: [".uno:SortAscending", ".uno:SortDescending", ".uno:DataFilterAutoFilter", ".uno:FreezePanes", ".uno:DataSort", ".uno:DataFilterStandardFilter"],
        review: [".uno:SpellOnline"],
        view: ["zoomin", ".uno:ToggleSheetGrid"],
      },
      "hello.pptx": {
        home: [".uno:FormatPaintbrush", ".uno:SetDefault", ".uno:Bold", ".uno:SuperScript", ".uno:CenterPara", ".uno:DefaultBullet"],
        insert: [".uno:InsertGraphic", ".uno:InsertTable", ".uno:InsertObjectChart", ".uno:BasicShapes", ".uno:Text", ".uno:CharmapControl"],
        format: [".uno:FontDialog", ".uno:ParagraphDialog"],
        slide: [".uno:InsertPage", ".uno:DuplicatePage", ".uno:DeletePage", "moveup", "movedown", ".uno:AssignLayout", "slideshow"],
        review: [".uno:SpellOnline"],
        view: ["zoomin", "fitpage"],
      },
    };
    for (const [fixture, tabs] of Object.entries(expected)) {
      const { ctx, frame } = await open(fixture);
      expect(await frame.$$eval('.tb-tab', (ts) => ts.map((t) => t.getAttribute("data-tab")))).toEqual(Object.keys(tabs));
      for (const [tab, commands] of Object.entries(tabs)) {
        await frame.click(`.tb-tab[data-tab="${tab}"]`);
        const shown = await frame.evaluate(() => {
          const panels = [...document.querySelectorAll<HTMLElement>("[data-tab-panel]")];
          const open = panels.filter((p) => !p.hidden);
          const cmds = [...open, document.getElementById("tb-more-menu")!].flatMap((p) => [...p.querySelectorAll("[data-cmd]")].flatMap((c) => [c.getAttribute("data-cmd")!, ...(c.getAttribute("data-menu-cmds") || "").split(" ").filter(Boolean)]));
          return { open: open.map((p) => p.dataset.tabPanel), selected: document.querySelector('.tb-tab[aria-selected="true"]')?.getAttribute("data-tab"), cmds };
        });
        expect({ fixture, open: shown.open, selected: shown.selected }).toEqual({ fixture, open: [tab], selected: tab });
        expect({ fixture, tab, missing: commands.filter((c) => !shown.cmds.includes(c)) }).toEqual({ fixture, tab, missing: [] });
      }
      await ctx.close();
    }
  }, scaled(90_000));

  test("new controls do what they say: superscript, landscape, a header, in the stored file", async () => {
    const { id, ctx, page, frame } = await open("hello.docx");
    await page.keyboard.press("Control+End");
    await press(frame, ".uno:SuperScript");
    await stateIs(frame, ".uno:SuperScript", "true");
    await page.keyboard.type("2");
    await press(frame, ".uno:Orientation");
    await frame.click('.tb-popup:not([hidden]) [role="menuitem"]:nth-child(2)'); // Landscape
    await press(frame, ".uno:InsertPageHeader");
    await modified(frame);
    const bytes = await saveAndRead(env, page, id);
    const doc = part(bytes, "word/document.xml");
    expect(doc).toMatch(/w:orient="landscape"/);
    expect(doc).toMatch(/<w:vertAlign w:val="superscript"\/>/);
    expect(Object.keys(unzipSync(bytes)).some((n) => /^word\/header\d*\.xml$/.test(n))).toBe(true);
    await ctx.close();
  }, scaled(60_000));

  test("a frame 600 px wide shows one row without tabs and a 'more' menu with what does not fit; wider, the tabs come back", async () => {
    const { ctx, page, frame } = await open("hello.docx");
    const setWidth = (w: number) => page.evaluate((px) => { document.getElementById("ed")!.style.width = px + "px"; }, w);
    await setWidth(600);
    await frame.waitForFunction(() => document.getElementById("ribbon")!.classList.contains("compact"), undefined, { polling: 50 });
    expect(await frame.isVisible('.tb-tab')).toBe(false);
    expect(await frame.isVisible(control("more"))).toBe(true);
    // One row: every visible control on the ribbon's one line, within the frame.
    const row = await frame.evaluate(() => {
      const r = document.getElementById("ribbon")!.getBoundingClientRect();
      const cs = [...document.querySelectorAll<HTMLElement>("#ribbon .tb, #ribbon .tb-select")].filter((c) => c.getClientRects().length);
      return { height: r.height, right: Math.max(...cs.map((c) => c.getBoundingClientRect().right)), width: window.innerWidth };
    });
    expect(row.height).toBeLessThan(48);
    expect(row.right).toBeLessThanOrEqual(row.width);
    await frame.click(control("more"));
    await frame.waitForSelector("#tb-more-menu:not([hidden])");
    const inMore = await frame.$$eval("#tb-more-menu [data-cmd]", (cs) => cs.map((c) => c.getAttribute("data-cmd")));
    expect(inMore).toContain(".uno:InsertTable");
    expect(inMore).toContain(".uno:TrackChanges");
    // A control in the menu works as on its tab.
    await frame.click("#tb-more-menu " + control(".uno:InsertTable"));
    await frame.waitForSelector(".tb-table-picker:not([hidden])");
    await page.keyboard.press("Escape");
    await setWidth(1000);
    await frame.waitForFunction(() => !document.getElementById("ribbon")!.classList.contains("compact"), undefined, { polling: 50 });
    expect(await frame.isVisible('[role="tab"][data-tab="insert"]')).toBe(true);
    // Tabs again: the "more" menu holds at most the chosen tab's (Home's) overflow.
    expect(await frame.$$eval("#tb-more-menu [data-cmd]", (cs) => cs.map((c) => c.getAttribute("data-cmd")))).not.toContain(".uno:InsertTable");
    await ctx.close();
  }, scaled(60_000));

  test("the host's ui.toolbar \"compact\" (ui_defaults UIMode=compact) gives the one row in a wide frame too", async () => {
    const f = env.newFile("hello.docx");
    const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 } });
    env.host.pages.set("compact", hostPageHtml(env.ed.url, env.ed.hash, f.src, "tok_alice").replace('<input type="hidden" name="access_token_ttl" value="0">', '<input type="hidden" name="access_token_ttl" value="0"><input type="hidden" name="ui_defaults" value="UIMode=compact">'));
    const page = await ctx.newPage();
    await page.goto(`${env.host.origin}/page/compact`);
    const frame = await editorFrame(page);
    await frame.waitForFunction(() => document.getElementById("ribbon")!.classList.contains("compact"), undefined, { polling: 50 });
    expect(await frame.evaluate(() => window.innerWidth)).toBeGreaterThan(900);
    expect(await frame.isVisible('.tb-tab')).toBe(false);
    await ctx.close();
  }, scaled(60_000));

  test("with lang=vi no English text of the table is left on the editor's own controls, and LibreOffice's spelling menu is Vietnamese", async () => {
    const { ctx, page, frame } = await open("hello.docx", "tok_alice", "lang=vi");
    await frame.waitForFunction(() => /Trang 1\/1/.test(document.getElementById("sb-position")!.textContent ?? ""), undefined, { polling: 50 });
    const english = new Set<string>();
    const collect = (en: unknown, vi: unknown) => {
      if (typeof en === "string") { if (en !== vi && /[a-z]{3}/.test(en)) english.add(en); return; }
      if (en && typeof en === "object") for (const k of Object.keys(en)) collect((en as any)[k], (vi as any)[k]);
    };
    collect(TEXTS.en.ui, TEXTS.vi.ui);
    collect(TEXTS.en.page, TEXTS.vi.page);
    const shown = await frame.evaluate(() => {
      const out: string[] = [];
      document.querySelectorAll("#toolbar *, #ribbon *, #statusbar *, #findbar *, .tb-popup *, #tb-more-menu *, #sheetactions *").forEach((e) => {
        for (const a of ["aria-label", "title", "placeholder"]) { const v = e.getAttribute(a); if (v) out.push(v.replace(/ \(.*\)$/, "")); }
        if (e.children.length === 0 && e.textContent?.trim()) out.push(e.textContent.trim());
      });
      out.push(document.title);
      return out;
    });
    expect(shown.filter((t) => english.has(t))).toEqual([]);
    expect(shown.join(" ")).not.toMatch(/\b(Save|Close|Undo|Redo|Average|Sum)\b/);
    // A misspelt word's context menu comes from LibreOffice in the view's language.
    const chars = async () => Number((await frame.textContent("#sb-count"))?.match(/\d+/g)?.[1] ?? NaN);
    const before = await until(chars, (n) => n > 0, "the status bar's character count");
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" helllo");
    await frame.waitForFunction(() => window.edState.modified === true);
    // The top bar's state says so in Vietnamese.
    await frame.waitForFunction(() => document.getElementById("state")!.textContent === "Đã sửa", undefined, { polling: 50 });
    // The right click goes to the caret as it is after the last key: the engine has taken every
    // letter once the status bar counts them (it counts on its idle timer, after the keys).
    await until(chars, (n) => n === before + 7, `the status bar counting the 7 characters typed (${before} before)`);
    const cursor = (await edState(frame)).cursor!;
    const box = (await (await frame.frameElement()).boundingBox())!;
    const origin = await frame.evaluate(() => { const r = document.getElementById("sizer")!.getBoundingClientRect(); return { x: r.left, y: r.top }; });
    const k = await frame.evaluate(() => (window as any).edApi.zoom());
    await page.mouse.click(box.x + origin.x + cursor.x / k - 12, box.y + origin.y + (cursor.y + cursor.h / 2) / k, { button: "right" });
    await frame.waitForSelector("#contextmenu");
    const menu = (await frame.textContent("#contextmenu")) ?? "";
    // (LibreOffice 7.4's Vietnamese translation has no text for "Set Language for Selection".)
    expect(menu).not.toMatch(/Ignore|Spelling\.\.\.|Reset to Default/);
    expect(menu).toMatch(/[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđ]/);
    // Its entries carry their commands' small icons.
    expect(await frame.$$eval("#contextmenu [data-cmd] img", (is) => is.filter((i) => /^icons\/sc_/.test(i.getAttribute("src")!)).length)).toBeGreaterThan(0);
    await ctx.close();
  }, scaled(60_000));
});
