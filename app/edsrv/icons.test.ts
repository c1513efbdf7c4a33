// The editor's icons come from LibreOffice's Colibre theme (issue 23, item 1).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, strToU8, zipSync } from "fflate";
import { CLOSEST_ICON, COLIBRE_SVG_ZIP, IconTheme } from "./icons";
import { KEY_EDITS, KEY_MOVES, RULES } from "./protocol/uno-commands";

describe("icons from the Colibre theme", () => {
  test("every command the editor offers has a picture from the theme, its own or the closest command's", async () => {
    const theme = await IconTheme.open(COLIBRE_SVG_ZIP);
    for (const command of [".uno:Bold", ".uno:Italic", ".uno:Underline", ".uno:Undo", ".uno:Redo", ".uno:Save", ".uno:InsertTable", ".uno:InsertGraphic", ".uno:SortAscending", ".uno:FreezePanes", ".uno:DuplicatePage",
      // The tabbed toolbar's (issue 23, item 2).
      ".uno:FormatPaintbrush", ".uno:SetDefault", ".uno:ResetAttributes", ".uno:SuperScript", ".uno:SubScript", ".uno:PasteUnformatted", ".uno:LineSpacing",
      ".uno:SpacePara1", ".uno:SpacePara15", ".uno:SpacePara2", ".uno:InsertObjectChart", ".uno:AssignLayout", ".uno:BasicShapes", ".uno:DrawText", ".uno:Text",
      ".uno:CharmapControl", ".uno:InsertSymbol", ".uno:InsertPageHeader", ".uno:InsertPageFooter", ".uno:AttributePageSize", ".uno:Orientation", ".uno:PageMargin",
      ".uno:SpellOnline", ".uno:ControlCodes", ".uno:ToggleSheetGrid", ".uno:Paste", ".uno:Cut", ".uno:Copy", "rect", "ellipse", "arrowshapes", "starshapes",
      "upsearch", "downsearch", "searchdialog", "selectall", "closedoc", "recsearch", "moveup", "movedown", "setdefault", "renametable",
      ...Object.keys(CLOSEST_ICON)]) {
      const icon = theme.icon(command);
      expect({ command, svg: icon ? strFromU8(icon.svg).includes("<svg") : false }).toEqual({ command, svg: true });
    }
  });

  test("every command the door lets through (a context menu's entry included) has a picture in both sizes: a menu never asks for one the theme lacks", async () => {
    const theme = await IconTheme.open(COLIBRE_SVG_ZIP);
    // Shape names with a dot are drawn from the toolbar's own names (rect, ellipse…), tested above;
    // the commands keys run (moving, selecting, small edits: key-door.ts) are in no menu.
    const keys = new Set<string>([...KEY_MOVES, ...KEY_EDITS]);
    const names = Object.keys(RULES).filter((n) => !n.includes(".") && !keys.has(n));
    const missing = names.filter((n) => !theme.icon(`.uno:${n}`, "sc") || !theme.icon(`.uno:${n}`, "lc"));
    expect(missing).toEqual([]);
    expect(names.length).toBeGreaterThan(100);
  });

  test("a small menu icon and a large toolbar icon are different pictures of one command", async () => {
    const theme = await IconTheme.open(COLIBRE_SVG_ZIP);
    expect(theme.icon("bold", "sc")!.etag).not.toBe(theme.icon("bold", "lc")!.etag);
  });

  test("an alias in links.txt is followed to its picture; a name that could hide a path is no icon", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "icons-"));
    const zip = path.join(dir, "theme.zip");
    writeFileSync(zip, zipSync({ "cmd/lc_real.svg": strToU8("<svg>real</svg>"), "links.txt": strToU8("cmd/lc_alias.svg cmd/lc_real.svg\n") }));
    const theme = await IconTheme.open(zip);
    expect(strFromU8(theme.icon(".uno:Alias")!.svg)).toBe("<svg>real</svg>");
    expect(theme.icon("../lc_real")).toBeNull();
    expect(theme.icon("nothing")).toBeNull();
  });

  test("without the theme on the machine nothing fails: there are no pictures", async () => {
    const theme = await IconTheme.open("/nonexistent/theme.zip");
    expect(theme.available).toBe(false);
    expect(theme.icon("bold")).toBeNull();
  });
});
