// The editing server's door (uno-commands.ts): which UNO commands pass, with which arguments,
// and what LibreOffice is handed. The end-to-end side (a refused command never reaches the engine,
// the other person keeps working) is app/edsrv/hostile-editor.test.ts.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { decideUno, filterContextMenu, isAllowedUnoName, isOfferedUno } from "./uno-commands";

const fileArg = (url: string) => JSON.stringify({ Name: { type: "string", value: url }, Filter: { type: "string", value: "Text" } });

describe("the door: only the commands the interface sends pass", () => {
  test("commands that name a file or a URL, run macros, open the Basic IDE or LibreOffice's windows, or end the engine are refused", () => {
    const refused = [
      `.uno:InsertDoc ${fileArg("file:///etc/passwd")}`,
      `.uno:InsertDoc ${fileArg("file:///proc/self/environ")}`,
      `.uno:InsertGraphic ${JSON.stringify({ FileName: { type: "string", value: "file:///etc/passwd" } })}`,
      `.uno:Open ${JSON.stringify({ URL: { type: "string", value: "file:///etc/passwd" } })}`,
      ".uno:SaveAs",
      `.uno:ExportTo ${JSON.stringify({ URL: { type: "string", value: "file:///tmp/x.pdf" } })}`,
      ".uno:ExportToPDF",
      ".uno:InsertSection",
      ".uno:EditLinks",
      ".uno:UpdateAll",
      ".uno:UpdateAllLinks",
      ".uno:UpdateFields",
      ".uno:BasicIDEAppear",
      ".uno:RunMacro",
      ".uno:MacroDialog",
      ".uno:OptionsTreeDialog",
      ".uno:CloseDoc",
      ".uno:Quit",
      ".uno:InsertObject",
      ".uno:InsertExternalDataSource",
      ".uno:HyperlinkDialog",
    ];
    for (const frame of refused) {
      const d = decideUno(frame);
      expect({ frame, ok: d.ok, reason: d.ok ? "" : d.reason }).toEqual({ frame, ok: false, reason: "notallowed" });
    }
  });

  test("malformed names are refused, and a refusal names the command only when it is a plain name", () => {
    for (const frame of ["", "InsertDoc", ".uno:", "vnd.sun.star.script:Foo", ".uno:" + "A".repeat(100), "macro:///Standard.Module1.Main"]) {
      expect(decideUno(frame)).toMatchObject({ ok: false, reason: "malformed", command: "" });
    }
    expect(decideUno(".uno:InsertDoc {}")).toMatchObject({ command: ".uno:InsertDoc" });
  });

  test("a listed command passes only with the arguments listed for it, of their type and range", () => {
    expect(decideUno(".uno:Bold")).toEqual({ ok: true, command: ".uno:Bold", args: "", viewOnly: false });
    expect(decideUno('.uno:Bold {"URL":{"type":"string","value":"file:///etc/passwd"}}')).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno('.uno:InsertTable {"Columns":{"type":"long","value":3},"Rows":{"type":"long","value":2}}')).toMatchObject({ ok: true });
    expect(decideUno('.uno:InsertTable {"Columns":{"type":"long","value":100000},"Rows":{"type":"long","value":2}}')).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno('.uno:InsertTable {"Columns":{"type":"string","value":"3"}}')).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno('.uno:StyleApply {"Style":{"type":"string","value":"Heading 1"},"FamilyName":{"type":"string","value":"ParagraphStyles"}}')).toMatchObject({ ok: true });
    expect(decideUno(".uno:StyleApply [1]")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(".uno:StyleApply {not json")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(`.uno:InsertAnnotation {"Text":{"type":"string","value":"${"x".repeat(70_000)}"}}`)).toMatchObject({ ok: false, reason: "toolarge" });
  });

  test("a link a person inserts is a web page, a mail address, a phone number or a place, never a file or a script", () => {
    const link = (url: string) => decideUno(`.uno:SetHyperlink ${JSON.stringify({ "Hyperlink.Text": { type: "string", value: "t" }, "Hyperlink.URL": { type: "string", value: url } })}`).ok;
    expect(["https://example.com/a", "http://example.com", "mailto:a@b.c", "tel:+84123", "#Heading"].map(link)).toEqual([true, true, true, true, true]);
    expect(["file:///etc/passwd", "/etc/passwd", "vnd.sun.star.script:Standard.Module1.Main?language=Basic", "macro:///x", "javascript:alert(1)", ".uno:Open"].map(link)).toEqual([false, false, false, false, false, false]);
  });

  test("arguments are parsed once and LibreOffice is handed what was checked: a duplicated key means one thing to both", () => {
    // JSON.parse keeps the last value (0, find); LibreOffice's own parser read the first (3, replace all).
    const frame = '.uno:ExecuteSearch {"SearchItem.SearchString":{"type":"string","value":"a"},"SearchItem.Command":{"type":"long","value":3,"value":0}}';
    const d = decideUno(frame);
    if (!d.ok) throw new Error("refused");
    expect(d.viewOnly).toBe(true);
    expect(d.args).toBe('{"SearchItem.SearchString":{"type":"string","value":"a"},"SearchItem.Command":{"type":"long","value":0}}');
    expect(d.args.match(/"value"/g)!.length).toBe(2);
    // The other way round it is a replacement: not for a read-only view.
    const replace = decideUno('.uno:ExecuteSearch {"SearchItem.Command":{"type":"long","value":0,"value":3}}');
    expect(replace).toMatchObject({ ok: true, viewOnly: false, args: '{"SearchItem.Command":{"type":"long","value":3}}' });
  });

  test("a context menu's entry with its arguments in the command's URL passes as the JSON form would, checked and serialised anew", () => {
    expect(decideUno(".uno:SpellCheckApplySuggestion?ApplyRule:string=Spelling_xin chào")).toEqual({
      ok: true,
      command: ".uno:SpellCheckApplySuggestion",
      args: '{"ApplyRule":{"type":"string","value":"Spelling_xin chào"}}',
      viewOnly: false,
    });
    expect(decideUno(".uno:SpellCheckIgnoreAll?Type:string=Spelling")).toMatchObject({ ok: true, args: '{"Type":{"type":"string","value":"Spelling"}}' });
    expect(decideUno(".uno:LanguageStatus?Language:string=Current_Vietnamese")).toMatchObject({ ok: true });
    // "More…" opens LibreOffice's language dialog; an argument off the list, twice, or of another type is refused.
    expect(decideUno(".uno:LanguageStatus?Language:string=*")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(".uno:Bold?x:string=1")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(".uno:SpellCheckIgnoreAll?Type:string=Spelling&Type:string=Grammar")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(".uno:InsertTable?Columns:long=x")).toMatchObject({ ok: false, reason: "badargs" });
    expect(decideUno(".uno:InsertTable?Columns:long=3&Rows:long=2")).toMatchObject({ ok: true, args: '{"Columns":{"type":"long","value":3},"Rows":{"type":"long","value":2}}' });
    expect(decideUno(".uno:InsertDoc?Name:string=file:///etc/passwd")).toMatchObject({ ok: false, reason: "notallowed", command: ".uno:InsertDoc" });
  });

  test("read-only views may find, select, copy and move; everything else changes the document", () => {
    for (const c of [".uno:Copy", ".uno:SelectAll", ".uno:GoToEndOfDoc", '.uno:GoToCell {"ToPoint":{"type":"string","value":"B2"}}']) expect(decideUno(c)).toMatchObject({ ok: true, viewOnly: true });
    for (const c of [".uno:Bold", ".uno:Undo", ".uno:Paste", ".uno:InsertPage"]) expect(decideUno(c)).toMatchObject({ ok: true, viewOnly: false });
  });

  test("every UNO command the editor's interface sends is on the list", () => {
    // The interface's sources name commands in three ways: as a command it runs, as a state it
    // watches, and as the id of a button whose click runs another command. The last two are listed
    // here, so that a new command in the interface fails this test until it is allowed.
    const notRun = new Set([
      ".uno:StatePageNumber", ".uno:StateWordCount", ".uno:StateTableCell", ".uno:LanguageStatus", ".uno:ModifiedStatus",
      ".uno:ViewRowColumnHeaders", ".uno:ViewAnnotations", // commandvalues, not uno
      ".uno:HyperlinkDialog", ".uno:InsertGraphic", ".uno:Orientation", ".uno:PageMargin", ".uno:LineSpacing", ".uno:BasicShapes", ".uno:CharmapControl",
      ".uno:ReplyComment", // answered with InsertAnnotation (LibreOffice 7.4's own reply loses the text)
    ]);
    const root = path.resolve(import.meta.dir, "../browser");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const named = new Set(files.flatMap((f) => readFileSync(path.join(root, f), "utf8").match(/\.uno:[A-Za-z0-9_.-]+/g) ?? []));
    const missing = [...named].filter((c) => !notRun.has(c) && !isAllowedUnoName(c));
    expect(missing).toEqual([]);
    expect(named.size).toBeGreaterThan(60);
  });
});

describe("the door: context menus offer only what the view may run", () => {
  const menu = JSON.stringify({
    menu: [
      { text: "Cu~t", type: "command", command: ".uno:Cut", enabled: "true" },
      { text: "~Copy", type: "command", command: ".uno:Copy", enabled: "true" },
      { type: "separator" },
      { type: "separator" },
      { text: "Macros...", type: "command", command: ".uno:MacroDialog", enabled: "true" },
      { text: "Insert", type: "menu", menu: [{ text: "File...", type: "command", command: ".uno:InsertDoc" }, { type: "separator" }] },
      { text: "Format", type: "menu", menu: [{ text: "Bold", type: "command", command: ".uno:Bold" }] },
      { type: "separator" },
      { text: "Macro", type: "command", command: ".uno:RunMacro" },
      { text: "xin chào", type: "command", command: ".uno:SpellCheckApplySuggestion?ApplyRule:string=Spelling_xin chào" },
      { text: "Thêm…", type: "command", command: ".uno:LanguageStatus?Language:string=*" },
    ],
  });

  test("an editor is offered the allowed entries; empty submenus and extra separators go", () => {
    expect(JSON.parse(filterContextMenu(menu, false)!)).toEqual({
      menu: [
        { text: "Cu~t", type: "command", command: ".uno:Cut", enabled: "true" },
        { text: "~Copy", type: "command", command: ".uno:Copy", enabled: "true" },
        { type: "separator" },
        { text: "Format", type: "menu", menu: [{ text: "Bold", type: "command", command: ".uno:Bold" }] },
        { type: "separator" },
        { text: "xin chào", type: "command", command: ".uno:SpellCheckApplySuggestion?ApplyRule:string=Spelling_xin chào" },
      ],
    });
  });

  test("a read-only view is offered what it may run", () => {
    expect(JSON.parse(filterContextMenu(menu, true)!)).toEqual({ menu: [{ text: "~Copy", type: "command", command: ".uno:Copy", enabled: "true" }] });
    expect(isOfferedUno(".uno:Bold", true)).toBe(false);
    expect(isOfferedUno(".uno:ExecuteSearch", true)).toBe(true);
  });

  test("what is not a menu is dropped", () => {
    expect(filterContextMenu("not json", false)).toBeNull();
    expect(filterContextMenu('{"x":1}', false)).toBeNull();
  });
});
