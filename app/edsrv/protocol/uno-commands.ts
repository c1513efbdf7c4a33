// The editing server's door: the UNO commands a page may have LibreOffice run, each with the
// arguments it may carry and whether a read-only view may send it. Anything else is refused.
//
// Why an allow list: LibreOffice runs whatever `.uno:` command it is handed, and many of them name
// a file or a URL (`.uno:InsertDoc` inserted /etc/passwd and another customer's open document),
// start macros or the Basic IDE (which left a co-editor's typing stuck for good), open
// LibreOffice's own windows, or end the engine (`.uno:Open`, `.uno:SaveAs`). The page we serve
// sends a known, small set (app/edsrv/browser/); Collabora's kit filters the same way.
//
// Why arguments are parsed once and forwarded re-serialised: a check and LibreOffice must read the
// same thing. `{"Command":{"type":"long","value":3,"value":0}}` read as find (the last `value`) by
// JSON.parse and as replace-all (the first) by LibreOffice's parser turned a read-only view into
// an editor. What LibreOffice receives is JSON.stringify of exactly the object that was checked.
//
// This module runs in the editing server and in the kit (a second wall by name); no Node API here.

import { z } from "zod";

/** The longest argument text of a command: a comment or a formula, not a document. */
export const MAX_UNO_ARGUMENT_BYTES = 64 * 1024;

const typed = <T extends z.ZodType>(type: string, value: T) => z.strictObject({ type: z.literal(type), value });
const text = (max: number) => typed("string", z.string().max(max));
const long = (min: number, max: number) => typed("long", z.number().int().min(min).max(max));
const bool = typed("boolean", z.boolean());
/** A colour as LibreOffice takes it: 0xRRGGBB, or -1 for "automatic". */
const colour = long(-1, 0xffffff);
/** Lengths in 1/100 mm: up to 10 m. */
const length = (min = 0) => long(min, 1_000_000);
/** Ctrl held while inserting a shape or a text box: inserted at once at its default size. */
const keyModifier = { KeyModifier: typed("unsigned short", z.number().int().min(0).max(0xffff)) };
/**
 * What a link may point at: a web page, a mail address, a phone number or a place in the document.
 * Never a file or a script (`file:`, `javascript:`, `vnd.sun.star.script:`, `macro:`…). THE rule
 * for every way a link enters a document: `.uno:SetHyperlink`, pasted HTML (workers/pasted-html.ts)
 * and a dialog's URL field (dialog-events.ts).
 */
export const LINK_TARGET = /^(https?:\/\/|mailto:|tel:|#)/i;
/** Whether a link may point at `url` (LINK_TARGET), after what a URL parser skips: whitespace and control characters. */
export function isAllowedLinkTarget(url: string): boolean {
  return LINK_TARGET.test(url.replace(/[\u0000-\u0020\u007f-\u009f]/g, ""));
}
/** A link a person gives (LINK_TARGET). Never a file or a script. */
const hyperlinkUrl = typed("string", z.string().max(4096).refine(isAllowedLinkTarget, "a link must be http(s), mailto, tel or #"));
/** One side of a border (`.uno:SetBorderStyle`), as Collabora's client sends it. */
const borderLine = z.strictObject({
  type: z.literal("com.sun.star.table.BorderLine2"),
  value: z.strictObject({
    Color: typed("com.sun.star.util.Color", z.number().int().min(-1).max(0xffffff)),
    InnerLineWidth: typed("short", z.number().int().min(0).max(1000)),
    OuterLineWidth: typed("short", z.number().int().min(0).max(1000)),
    LineDistance: typed("short", z.number().int().min(0).max(1000)),
    LineStyle: typed("short", z.number().int().min(0).max(20)),
    LineWidth: typed("unsigned long", z.number().int().min(0).max(10000)),
  }),
});
const borderPart = z.union([borderLine, typed("short", z.number().int().min(-1).max(1000)), typed("long", z.number().int().min(-1).max(1000))]);
const border = typed("[]any", z.array(borderPart).max(12));

type Args = Record<string, z.ZodType>;

interface UnoRule {
  /** The arguments it may carry (each optional); none when absent. */
  args?: Args;
  /** A read-only view may send it: it does not change the document (or only with `readOnlyWhen`). */
  readOnly?: boolean | ((args: Record<string, { value?: unknown }>) => boolean);
}

/** SvxSearchCmd: 0 find, 1 find all; 2 replace and 3 replace all change the document. */
const FIND_ONLY = new Set([0, 1]);

/** Commands without arguments that change the document (buttons of the toolbar and of LibreOffice's context menus). */
const PLAIN_EDITS = [
  // text formatting, paragraphs, lists
  "Bold", "Italic", "Underline", "Strikeout", "SuperScript", "SubScript", "Shadowed", "Grow", "Shrink",
  "LeftPara", "CenterPara", "RightPara", "JustifyPara", "SpacePara1", "SpacePara15", "SpacePara2",
  "DefaultBullet", "DefaultNumbering", "DecrementIndent", "IncrementIndent", "SetDefault", "ResetAttributes",
  "FormatPaintbrush", "InsertPara", "InsertPagebreak", "InsertColumnBreak", "InsertObjectChart",
  // clipboard and history (the engine's own clipboard; the person's goes through `paste`)
  "Cut", "Paste", "PasteUnformatted", "Undo", "Redo", "Delete", "ClearContents",
  // tracked changes
  "TrackChanges", "ShowTrackedChanges", "NextTrackedChange", "PreviousTrackedChange", "AcceptTrackedChange", "RejectTrackedChange",
  "AcceptAllTrackedChanges", "RejectAllTrackedChanges",
  // tables and cells (Writer and Calc)
  "InsertRowsBefore", "InsertRowsAfter", "InsertColumnsBefore", "InsertColumnsAfter", "DeleteRows", "DeleteColumns",
  "DeleteTable", "MergeCells", "ToggleMergeCells", "WrapText", "AlignLeft", "AlignHorizontalCenter", "AlignRight",
  "AlignTop", "AlignVCenter", "AlignBottom", "SortAscending", "SortDescending", "DataFilterAutoFilter", "FreezePanes",
  "NumberFormatStandard", "NumberFormatDecimal", "NumberFormatPercent", "NumberFormatDate", "NumberFormatCurrency",
  "DeleteNote", "DeleteAllNotes", "ShowNote", "HideNote",
  // slides and drawing objects
  "InsertPage", "DuplicatePage", "DeletePage", "HideSlide", "ShowSlide", "BringToFront", "SendToBack", "Forward", "Backward",
  "FormatGroup", "FormatUngroup", "RemoveHyperlink",
  // view settings kept with the document
  "SpellOnline", "ControlCodes", "ToggleSheetGrid",
];

/**
 * LibreOffice's dialogs (sent to the page as JSDialog, or as tunnelled windows): what a person
 * changes in one reaches the document only through the dialog's own OK, which the kit runs as
 * a dialog event (sendDialogEvent). None names a file: dialogs that pick one (Insert > Image,
 * Insert > Document, Hyperlink's file tab) are not here, and the engine could not read another
 * folder anyway (workers/confine.ts). A kit whose engine lacks the dialog libraries refuses these.
 */
export const DIALOG_COMMANDS = [
  // Writer
  "ParagraphDialog", "FontDialog", "PageDialog", "BulletsAndNumberingDialog", "TableDialog", "FormatColumns",
  "EditStyle", "InsertBreak", "WordCountDialog",
  // Calc
  "FormatCellDialog", "PageFormatDialog", "ConditionalFormatDialog", "ConditionalFormatManagerDialog",
  "DataSort", "DataFilterStandardFilter", "Validation", "ColumnWidth", "RowHeight", "InsertCell", "DeleteCell",
  // drawing objects and slides
  "TransformDialog", "FormatArea", "FormatLine", "OutlineBullet",
  // everywhere
  "SearchDialog", "SpellingAndGrammarDialog", "ThesaurusDialog",
  // the sidebar and its decks (described as JSDialog too)
  "SidebarDeck.PropertyDeck", "SidebarDeck.StyleListDeck", "SidebarShow", "SidebarHide",
];

/** Commands without arguments that only move, select or copy. */
const PLAIN_READS = ["Copy", "SelectAll", "GoToStart", "GoToEnd", "GoToStartOfDoc", "GoToEndOfDoc"];

/**
 * What LibreOffice's shortcut keys run besides the commands above (its accelerator configuration,
 * read by app/edsrv/key-door.ts): moving and selecting with the keyboard, and the small edits of
 * typing. A key whose command is on no list here never reaches the engine (Ctrl+K, the Hyperlink
 * dialog; Ctrl+P, Print; Alt+F11, Macros; Ctrl+Shift+F5, the Navigator…).
 */
export const KEY_MOVES = [
  "CharLeftSel", "CharRightSel", "WordLeftSel", "WordRightSel", "LineUpSel", "LineDownSel", "Deselect", "Escape", "Cancel",
  "GoLeft", "GoRight", "GoUp", "GoDown", "GoLeftSel", "GoRightSel", "GoUpSel", "GoDownSel",
  "GoUpBlock", "GoDownBlock", "GoUpBlockSel", "GoDownBlockSel", "GoToStartSel", "GoToCurrentCell",
  "GoLeftToStartOfData", "GoRightToEndOfData", "GoUpToStartOfData", "GoDownToEndOfData",
  "GoLeftToStartOfDataSel", "GoRightToEndOfDataSel", "GoUpToStartOfDataSel", "GoDownToEndOfDataSel",
  "GoToEndOfData", "GoToEndOfDataSel", "GoToStartOfRow", "GoToEndOfRow", "GoToStartOfRowSel", "GoToEndOfRowSel",
  "GoToStartOfLine", "GoToEndOfLine", "GoToStartOfPara", "GoToNextPara", "GoToNextWord", "GoToPrevWord",
  "StartOfLineSel", "EndOfLineSel", "StartOfParaSel", "EndOfParaSel", "StartOfDocumentSel", "EndOfDocumentSel",
  "GoToStartOfNextPage", "GoToStartOfPrevPage", "GoToStartOfNextPageSel", "GoToStartOfPrevPageSel",
  "PageUp", "PageDown", "PageUpSel", "PageDownSel", "NextPage", "PreviousPage", "SelectData", "SelectRow", "SelectArrayFormula",
  "JumpToHeader", "JumpToFooter", "JumpToNextTable", "JumpToPrevTable", "JumpToNextFrame", "JumpToFootnoteOrAnchor",
  "JumpToNextUnprotected", "JumpToPreviousUnprotected", "NextAnnotation", "PreviousAnnotation", "EnterGroup", "LeaveGroup",
  "SetInputMode", "ZoomPlus", "ZoomMinus",
];
export const KEY_EDITS = [
  "SwBackspace", "ShiftBackspace", "DelToStartOfWord", "DelToEndOfWord", "DelToStartOfSentence", "DelToEndOfSentence",
  "InsertLinebreak", "InsertHardHyphen", "InsertSoftHyphen", "InsertNonBreakingSpace", "InsertNarrowNobreakSpace", "InsertZWSP",
  "InsertCurrentDate", "InsertCurrentTime", "InsertMode", "FillDown", "ToggleRelative", "ChangeCaseRotateCase",
  "UnderlineDouble", "SmallCaps", "ParaLeftToRight", "ParaRightToLeft", "RemoveBullets", "AlignBlock",
  "CommonAlignLeft", "CommonAlignRight", "CommonAlignHorizontalCenter", "CommonAlignJustified",
  "OutlineUp", "OutlineDown", "OutlineLeft", "OutlineRight", "MoveUp", "MoveDown",
  "Group", "Ungroup", "Combine", "Dismantle",
  // a cell's validity list (Alt+Down): opens LibreOffice's selection list; picking writes the cell
  "DataSelect",
];

export const RULES: Record<string, UnoRule> = {
  ...Object.fromEntries(PLAIN_EDITS.map((n) => [n, {}])),
  ...Object.fromEntries(PLAIN_READS.map((n) => [n, { readOnly: true }])),
  ...Object.fromEntries(DIALOG_COMMANDS.map((n) => [n, {}])),
  ...Object.fromEntries(KEY_MOVES.map((n) => [n, { readOnly: true }])),
  ...Object.fromEntries(KEY_EDITS.map((n) => [n, {}])),
  StyleApply: { args: { Style: text(256), FamilyName: typed("string", z.enum(["ParagraphStyles", "CharacterStyles", "CellStyles", "PageStyles"])) } },
  CharFontName: { args: { "CharFontName.FamilyName": text(256) } },
  FontHeight: { args: { "FontHeight.Height": typed("float", z.number().min(1).max(999)) } },
  Color: { args: { Color: colour } },
  BackColor: { args: { BackColor: colour } },
  CharBackColor: { args: { CharBackColor: colour } },
  BackgroundColor: { args: { BackgroundColor: colour } },
  InsertSymbol: { args: { Symbols: text(16) } },
  InsertTable: { args: { Columns: long(1, 64), Rows: long(1, 1000) } },
  SetHyperlink: { args: { "Hyperlink.Text": text(4096), "Hyperlink.URL": hyperlinkUrl } },
  AttributePageSize: { args: { "AttributePageSize.Width": length(1), "AttributePageSize.Height": length(1) } },
  AttributePage: { args: { "AttributePage.Landscape": bool } },
  PageLRMargin: { args: { "Page.Left": length(), "Page.Right": length() } },
  PageULMargin: { args: { "Page.Upper": length(), "Page.Lower": length() } },
  InsertPageHeader: { args: { PageStyle: text(256), On: bool } },
  InsertPageFooter: { args: { PageStyle: text(256), On: bool } },
  AssignLayout: { args: { WhatLayout: long(0, 100) } },
  "BasicShapes.rectangle": { args: keyModifier },
  "BasicShapes.ellipse": { args: keyModifier },
  "ArrowShapes.right-arrow": { args: keyModifier },
  "StarShapes.star5": { args: keyModifier },
  Text: { args: keyModifier },
  DrawText: { args: keyModifier },
  InsertAnnotation: { args: { Text: text(32 * 1024) } },
  ResolveComment: { args: { Id: text(32) } },
  DeleteComment: { args: { Id: text(32) } },
  SetBorderStyle: { args: { OuterBorder: border, InnerBorder: border } },
  EnterString: { args: { StringName: text(32 * 1024) } },
  Insert: { args: { Name: text(256), Index: long(1, 10_000) } },
  Name: { args: { Name: text(256), Index: long(1, 10_000) } },
  Remove: { args: { Index: long(1, 10_000) } },
  GoToCell: { args: { ToPoint: text(64) }, readOnly: true },
  // LibreOffice's spelling menu (its context menu on a misspelt word), with the arguments in the
  // command's URL as LibreOffice writes them there: `?ApplyRule:string=Spelling_word`.
  SpellCheckApplySuggestion: { args: { ApplyRule: typed("string", z.string().max(256).regex(/^(Spelling|Grammar)_/)) } },
  SpellCheckIgnore: { args: { Type: typed("string", z.enum(["Spelling", "Grammar"])) } },
  SpellCheckIgnoreAll: { args: { Type: typed("string", z.enum(["Spelling", "Grammar"])) } },
  // A language for the selection, the paragraph or the document; not "More…" (`*`, a dialog).
  LanguageStatus: { args: { Language: typed("string", z.string().max(128).regex(/^(Current|Paragraph|Default)_[^*]+$/)) } },
  ExecuteSearch: {
    args: {
      "SearchItem.SearchString": text(1024),
      "SearchItem.ReplaceString": text(1024),
      "SearchItem.Backward": bool,
      "SearchItem.Command": long(0, 3),
    },
    readOnly: (a) => FIND_ONLY.has(Number(a["SearchItem.Command"]?.value ?? 0)),
  },
};

const ARGUMENTS = new Map(Object.entries(RULES).map(([name, rule]) => [name, z.strictObject(Object.fromEntries(Object.entries(rule.args ?? {}).map(([k, v]) => [k, v.optional()])))]));

/** `.uno:Bold` → "Bold"; null for a name outside the `.uno:` namespace or with a `?query`. */
function shortName(command: string): string | null {
  const m = /^\.uno:([A-Za-z0-9_.-]{1,64})$/.exec(command);
  return m ? m[1]! : null;
}

/** Whether the command opens one of LibreOffice's dialogs (InsertSymbol and InsertTable do without their arguments). */
export function isDialogCommand(command: string, args: string): boolean {
  const n = shortName(command);
  return n !== null && (DIALOG_COMMANDS.includes(n) || ((n === "InsertSymbol" || n === "InsertTable") && !args));
}

/**
 * Commands on the list that change the document and ask first in a dialog of their own: inserting
 * a chart opens the chart wizard. Their windows are the view's own (the kit closes any window
 * nobody asked for). (Calc's Delete, its Backspace, asks nothing under LibreOfficeKit: measured.)
 */
const ASKING_EDITS = ["InsertObjectChart"];

/** Whether the command may open a window of LibreOffice's that is the view's own: a dialog command, or an edit that asks first. */
export function opensWindow(command: string, args: string): boolean {
  const n = shortName(command);
  return isDialogCommand(command, args) || (n !== null && ASKING_EDITS.includes(n));
}

/**
 * The dialogs LibreOffice 25.2 runs in a loop of its own (a synchronous Execute that returns only
 * when the dialog is answered), by the kind of document, as measured by a census of every
 * window-opening command of this list (docs/benchmarks-history.md, 2026-11-29, fifth session;
 * workers/kit-own-loop-dialogs.test.ts). The kit posts every window-opening command to the
 * office's own loop (workers/kit/office-posts.ts), so these work like the others and every other
 * person is served while one is open. Two of them are never open at once (own-loop-dialogs.ts):
 * the second one's loop would run inside the first's, whose answer could then not take effect
 * before the second closed.
 */
const OWN_LOOP_DIALOGS: Readonly<Record<string, readonly string[]>> = {
  spreadsheet: ["Validation"],
  presentation: ["ParagraphDialog", "FontDialog", "OutlineBullet"],
  drawing: ["ParagraphDialog", "FontDialog", "OutlineBullet"],
};

/**
 * Dialogs nobody could answer under LibreOfficeKit in a document of this kind, refused by the kit.
 * Edit Style in a deck (25.2) runs a loop of its own and is announced both painted and described,
 * yet no close, Cancel or OK that LibreOfficeKit can send reaches it (measured): it would stay open
 * until its person left, and a view destroyed under a dialog's loop ends the engine. (Run inside
 * the kit's call, as before, it held every co-editor for 30 s until the watchdog ended the engine.)
 * Our page never sends it; a Writer document's Edit Style is a described dialog that works.
 */
const UNANSWERABLE_DIALOGS: Readonly<Record<string, readonly string[]>> = {
  presentation: ["EditStyle"],
  drawing: ["EditStyle"],
};

const listedFor = (table: Readonly<Record<string, readonly string[]>>, command: string, documentKind: string): boolean => {
  const n = shortName(command);
  return n !== null && (table[documentKind]?.includes(n) ?? false);
};

/** Whether LibreOffice runs this command's dialog in a loop of its own in a document of this kind (OWN_LOOP_DIALOGS). */
export const runsOwnLoop = (command: string, documentKind: string): boolean => listedFor(OWN_LOOP_DIALOGS, command, documentKind);

/** Whether nobody could answer this command's dialog in a document of this kind (UNANSWERABLE_DIALOGS). */
export const isUnanswerableDialog = (command: string, documentKind: string): boolean => listedFor(UNANSWERABLE_DIALOGS, command, documentKind);

/** Whether the door lets this command through for some view (the kit's second wall checks names only). */
export function isAllowedUnoName(command: string): boolean {
  const n = shortName(command);
  return n !== null && Object.hasOwn(RULES, n);
}

/** Whether a view of this permission may be offered the command (a context menu's entry, arguments in its URL or none). */
export function isOfferedUno(command: string, readOnly: boolean): boolean {
  const d = decideUno(command);
  if (!d.ok) return false;
  const rule = RULES[shortName(d.command)!]!;
  return !readOnly || d.viewOnly || typeof rule.readOnly === "function";
}

export type UnoDecision =
  | { ok: true; command: string; /** What LibreOffice is given: the checked object, serialised anew ("" for none). */ args: string; viewOnly: boolean }
  | { ok: false; reason: "malformed" | "notallowed" | "badargs" | "toolarge"; command: string };

/**
 * Decides one `uno` frame: `.uno:Name` or `.uno:Name {"Arg":{"type":"…","value":…}}`. The command
 * must be on the list, its arguments exactly of the kinds listed for it. `command` in a refusal is
 * the name only when it is a well-formed one (it is logged and sent back; never the raw text).
 */
export function decideUno(frameText: string): UnoDecision {
  // The URL form first (a context menu's entry): everything after `?` is its arguments, spaces included.
  const q = frameText.indexOf("?");
  const sp = frameText.indexOf(" ");
  const urlForm = q >= 0 && (sp < 0 || q < sp);
  const cut = urlForm ? q : sp;
  const raw = cut < 0 ? frameText : frameText.slice(0, cut);
  const rest = cut < 0 ? "" : frameText.slice(cut + 1).trim();
  const name = shortName(raw);
  const command = name !== null ? raw : "";
  if (name === null) return { ok: false, reason: "malformed", command };
  if (!Object.hasOwn(RULES, name)) return { ok: false, reason: "notallowed", command };
  if (rest.length > MAX_UNO_ARGUMENT_BYTES) return { ok: false, reason: "toolarge", command };
  let parsed: unknown = {};
  if (urlForm) {
    const fromUrl = urlArguments(rest);
    if (!fromUrl) return { ok: false, reason: "badargs", command };
    parsed = fromUrl;
  } else if (rest) {
    try {
      parsed = JSON.parse(rest);
    } catch {
      return { ok: false, reason: "badargs", command };
    }
  }
  const checked = ARGUMENTS.get(name)!.safeParse(parsed);
  if (!checked.success) return { ok: false, reason: "badargs", command };
  const args = checked.data as Record<string, { value?: unknown }>;
  const rule = RULES[name]!;
  const viewOnly = typeof rule.readOnly === "function" ? rule.readOnly(args) : rule.readOnly === true;
  return { ok: true, command, args: Object.keys(args).length ? JSON.stringify(args) : "", viewOnly };
}

/**
 * A command URL's arguments, `Name:type=value&Name:type=value`, as the JSON form has them: string,
 * boolean and the number types, values as LibreOffice writes them. Null for anything else, or a
 * name given twice.
 */
function urlArguments(query: string): Record<string, { type: string; value: unknown }> | null {
  const out: Record<string, { type: string; value: unknown }> = {};
  for (const part of query.split("&")) {
    const m = /^([A-Za-z][A-Za-z0-9_.]{0,63}):(string|boolean|long|short|unsigned short|double|float)=(.*)$/s.exec(part);
    if (!m || Object.hasOwn(out, m[1]!)) return null;
    const [, key, type, value] = m as unknown as [string, string, string, string];
    if (type === "string") out[key] = { type, value };
    else if (type === "boolean" && (value === "true" || value === "false")) out[key] = { type, value: value === "true" };
    else if (type !== "boolean" && /^-?\d+(\.\d+)?$/.test(value)) out[key] = { type, value: Number(value) };
    else return null;
  }
  return out;
}

interface ContextMenuItem {
  type?: string;
  command?: string;
  menu?: ContextMenuItem[];
  [key: string]: unknown;
}

/**
 * LibreOffice's context menu (`contextmenu:` JSON) with only the entries this view may run: the
 * rest would be refused, so they are not offered. Empty submenus and doubled or dangling
 * separators go too. Null when the payload is not a menu.
 */
export function filterContextMenu(json: string, readOnly: boolean): string | null {
  let menu: { menu?: ContextMenuItem[] };
  try {
    menu = JSON.parse(json);
  } catch {
    return null;
  }
  if (!menu || !Array.isArray(menu.menu)) return null;
  const keep = (items: ContextMenuItem[]): ContextMenuItem[] => {
    const out: ContextMenuItem[] = [];
    for (const it of items) {
      if (it.type === "separator") {
        if (out.length && out[out.length - 1]!.type !== "separator") out.push(it);
      } else if (it.type === "menu") {
        const sub = keep(Array.isArray(it.menu) ? it.menu : []);
        if (sub.length) out.push({ ...it, menu: sub });
      } else if (typeof it.command === "string" && isOfferedUno(it.command, readOnly)) {
        out.push(it);
      }
    }
    while (out.length && out[out.length - 1]!.type === "separator") out.pop();
    return out;
  };
  return JSON.stringify({ ...menu, menu: keep(menu.menu) });
}
