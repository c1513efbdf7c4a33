// The tabs of text documents, and what every family shares: the clipboard and formatting group,
// character formatting, shapes, text box, special characters, charts, tables.

import type { UnoArguments } from "../../protocol/frames";
import { ask } from "./ask";
import { arg, button, closeMenus, colour, el, longArg, menuButton, type MenuEntry, picker, popupButton, run, sep, setOptions, showValue, stringArg, toggleButton } from "./controls";
import { addTo } from "./ribbon";
import { api, watch } from "./state";
import { T } from "./texts";
import { listen } from "./dom";

/** The font list of a text document's toolbar, once built; filled once the first screen is painted (ui.ts). */
let fontList: HTMLSelectElement | undefined;
export const fontPicker = (): HTMLSelectElement | undefined => fontList;

/** Writer's paragraph styles (their programmatic names, which .uno:StyleApply takes in every language). */
const PARAGRAPH_STYLES = Object.keys(T.styleNames);

/**
 * Cut and copy through the browser's clipboard events on the document's input (editor/clipboard.ts
 * fills the system clipboard with the engine's selection); paste and paste as unformatted text read
 * the system clipboard (the browser asks the person the first time) and paste it as a paste event
 * would. The engine's own clipboard is not the person's: its .uno:Paste would paste what it last held.
 */
function clipboardButton(cmd: string, label: string, action: () => void): HTMLButtonElement {
  return button(cmd, label, { click: () => { api.focus(); action(); } });
}
async function pasteFromClipboard(plain: boolean): Promise<void> {
  const clip = navigator.clipboard;
  if (!clip) return;
  try {
    if (!plain && clip.read) {
      for (const item of await clip.read()) {
        const type = item.types.find((t) => t === "text/html") || item.types.find((t) => t === "image/png") || item.types.find((t) => t === "text/plain");
        if (!type) continue;
        const bytes = new Uint8Array(await (await item.getType(type)).arrayBuffer());
        api.paste(type === "image/png" ? type : type + ";charset=utf-8", bytes);
        return;
      }
    }
    const text = await clip.readText();
    if (text) api.paste("text/plain;charset=utf-8", new TextEncoder().encode(text));
  } catch {
    // the person refused, or nothing to paste
  }
}

/** Paste, cut, copy, paste as unformatted text, clone formatting, clear direct formatting. */
export function clipboardGroup(clearCommand: string): HTMLElement[] {
  return [
    clipboardButton(".uno:Paste", T.paste, () => { void pasteFromClipboard(false); }),
    clipboardButton(".uno:Cut", T.cut, () => { document.execCommand("cut"); }),
    clipboardButton(".uno:Copy", T.copy, () => { document.execCommand("copy"); }),
    clipboardButton(".uno:PasteUnformatted", T.pasteSpecial, () => { void pasteFromClipboard(true); }),
    toggleButton(".uno:FormatPaintbrush", T.formatPaintbrush),
    button(clearCommand, T.clearFormatting, { icon: "setdefault" }),
  ];
}

export function textFormatting(withStyles: boolean, withScripts: boolean): HTMLElement[] {
  const items: HTMLElement[] = [];
  if (withStyles) {
    const stylePicker = picker(T.style, "tb-style", applyStyle);
    setOptions(stylePicker, PARAGRAPH_STYLES, undefined, T.styleNames);
    watch(".uno:StyleApply", (v) => { showValue(stylePicker, v); });
    items.push(stylePicker, stylesGallery());
  }
  const fonts = (fontList = picker(T.font, "tb-font", (v) => { run(".uno:CharFontName", { "CharFontName.FamilyName": stringArg(v) }); }));
  const sizePicker = picker(T.size, "tb-size", (v) => { run(".uno:FontHeight", { "FontHeight.Height": arg("float", Number(v)) }); });
  setOptions(sizePicker, ["8", "9", "10", "10.5", "11", "12", "14", "16", "18", "20", "24", "28", "32", "36", "48", "72"]);
  watch(".uno:CharFontName", (v) => { showValue(fonts, v); });
  watch(".uno:FontHeight", (v) => { showValue(sizePicker, v); });
  items.push(fonts, sizePicker, sep(),
    toggleButton(".uno:Bold", T.bold),
    toggleButton(".uno:Italic", T.italic),
    toggleButton(".uno:Underline", T.underline),
    toggleButton(".uno:Strikeout", T.strike));
  if (withScripts) items.push(toggleButton(".uno:SuperScript", T.superscript), toggleButton(".uno:SubScript", T.subscript));
  items.push(colour(".uno:Color", T.color, (c) => { run(".uno:Color", { Color: longArg(c) }); }));
  return items;
}

/** Applies a paragraph style by its programmatic name. */
const applyStyle = (name: string): void => { run(".uno:StyleApply", { Style: stringArg(name), FamilyName: stringArg("ParagraphStyles") }); };

/** The styles gallery: the most used paragraph styles, each shown in its own look. */
function stylesGallery(): HTMLElement {
  const g = el("div", { "class": "tb-gallery edit-only", role: "group", "aria-label": T.styles });
  ([["Title", "g-title"], ["Heading 1", "g-h1"], ["Heading 2", "g-h2"], ["Text Body", "g-body"]] as const).forEach(([name, cls]) => {
    const b = el("button", { "class": "tb-gallery-item " + cls, "data-style": name, title: T.style + ": " + T.styleNames[name], text: T.styleNames[name] });
    listen(b, "click", () => { applyStyle(name); });
    g.append(b);
  });
  return g;
}

export function paragraphAlign(): HTMLElement[] {
  return [
    toggleButton(".uno:LeftPara", T.left),
    toggleButton(".uno:CenterPara", T.center),
    toggleButton(".uno:RightPara", T.right),
    toggleButton(".uno:JustifyPara", T.justify),
  ];
}

export function lineSpacing(): HTMLElement {
  return menuButton(".uno:LineSpacing", T.lineSpacing, [
    { cmd: ".uno:SpacePara1", label: T.spacing1 },
    { cmd: ".uno:SpacePara15", label: T.spacing15 },
    { cmd: ".uno:SpacePara2", label: T.spacing2 },
  ]);
}

/**
 * A shape inserted at once, at its default size (Ctrl held, KEY_MOD1: Collabora's way; without it
 * the engine waits for the shape to be drawn with the mouse).
 */
const atOnce = (): UnoArguments => ({ KeyModifier: arg("unsigned short", 8192) });
const shape = (cmd: string, label: string, icon: string): MenuEntry => ({ cmd, label, icon, args: atOnce() });
export function shapes(): HTMLElement {
  return menuButton(".uno:BasicShapes", T.shapes, [
    shape(".uno:BasicShapes.rectangle", T.rectangle, "rect"),
    shape(".uno:BasicShapes.ellipse", T.ellipse, "ellipse"),
    shape(".uno:ArrowShapes.right-arrow", T.arrow, "arrowshapes"),
    shape(".uno:StarShapes.star5", T.star, "starshapes"),
  ]);
}
export function textBox(cmd: string): HTMLElement {
  return button(cmd, T.textBox, { icon: "text", args: atOnce });
}

/** Special characters, inserted as the engine's own symbol insertion does (no dialog). */
export function specialCharacters(): HTMLElement {
  const chars = ["©", "®", "™", "€", "£", "¥", "§", "¶", "°", "±", "×", "÷", "–", "—", "…", "«", "»", "→", "←", "✓"];
  const entries: MenuEntry[] = chars.map((c) => ({ cmd: ".uno:InsertSymbol", label: c, args: { Symbols: stringArg(c) } }));
  // Without a character, LibreOffice's Special Characters dialog (every character of every font).
  entries.push({ cmd: ".uno:InsertSymbol", label: T.moreCharacters, icon: "charmapcontrol" });
  const b = menuButton(".uno:CharmapControl", T.specialChar, entries);
  b.setAttribute("data-menu-cmds", ".uno:InsertSymbol");
  return b;
}

/** A chart from the selected cells or a default one, through LibreOffice's chart wizard (a dialog). */
export function chart(): HTMLElement {
  return button(".uno:InsertObjectChart", T.chart);
}

/** The table picker's size: columns × rows. */
const TABLE_GRID = { columns: 10, rows: 8 };

/**
 * Insert table: a grid to pick its size with the pointer or the arrow keys (the highlighted
 * columns × rows named as they change), and "Insert table…" for LibreOffice's own dialog (any
 * size, a name, a style).
 */
export function insertTable(): HTMLElement {
  const size = el("div", { "class": "tb-table-size", "aria-live": "polite" });
  const grid = el("div", { "class": "tb-table-grid", role: "grid", "aria-label": T.tableSize });
  const popup = el("div", { "class": "tb-popup tb-table-picker", role: "dialog", "aria-label": T.table }, [grid, size]);
  const cells: HTMLButtonElement[] = [];
  let at = { c: 1, r: 1 };
  const light = (c: number, r: number) => {
    at = { c, r };
    cells.forEach((b) => {
      const bc = Number(b.dataset.c), br = Number(b.dataset.r);
      b.classList.toggle("on", bc <= c && br <= r);
      b.tabIndex = bc === c && br === r ? 0 : -1;
    });
    size.textContent = T.tableColumnsRows(c, r);
  };
  const insert = (c: number, r: number) => {
    closeMenus();
    run(".uno:InsertTable", { Columns: longArg(c), Rows: longArg(r) });
  };
  for (let r = 1; r <= TABLE_GRID.rows; r++) {
    const row = el("div", { role: "row", "class": "tb-table-row" });
    for (let c = 1; c <= TABLE_GRID.columns; c++) {
      const b = el("button", { role: "gridcell", "class": "tb-table-cell", "aria-label": T.tableColumnsRows(c, r), "data-size": `${c}x${r}`, tabindex: "-1" });
      b.dataset.c = String(c);
      b.dataset.r = String(r);
      listen(b, "mouseenter", () => { light(c, r); });
      listen(b, "focus", () => { light(c, r); });
      listen(b, "click", () => { insert(c, r); });
      cells.push(b);
      row.append(b);
    }
    grid.append(row);
  }
  listen(grid, "keydown", (e) => {
    const move: Record<string, [number, number]> = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
    const m = move[e.key];
    if (!m) return;
    e.preventDefault();
    const c = Math.max(1, Math.min(TABLE_GRID.columns, at.c + m[0])), r = Math.max(1, Math.min(TABLE_GRID.rows, at.r + m[1]));
    cells[(r - 1) * TABLE_GRID.columns + (c - 1)]!.focus();
  });
  const more = el("button", { "class": "tb-table-more", "data-cmd": ".uno:InsertTable", text: T.insertTableDialog });
  listen(more, "click", () => { closeMenus(); run(".uno:InsertTable"); });
  popup.append(more);
  light(1, 1);
  return popupButton(".uno:InsertTable", T.table, popup, { focusFirst: () => { light(1, 1); return cells[0]!; } });
}

export function insertLink(): HTMLElement {
  return button(".uno:HyperlinkDialog", T.link, { click: () => {
    ask(T.link, [{ label: T.linkUrl, value: "https://" }, { label: T.linkText }]).then((v) => {
      if (v && v[0]) run(".uno:SetHyperlink", { "Hyperlink.Text": stringArg(v[1] || v[0]), "Hyperlink.URL": stringArg(v[0]) });
    });
  } });
}

export function insertImage(): HTMLButtonElement {
  const input = el("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp", hidden: "" });
  listen(input, "change", () => {
    const f = input.files && input.files[0];
    input.value = "";
    if (!f || !/^image\/(png|jpeg|gif|webp)$/.test(f.type)) return;
    // Sent as the file is: the engine keeps a JPEG a JPEG.
    f.arrayBuffer().then((buf) => { api.insertGraphic(f.type, new Uint8Array(buf)); api.focus(); });
  });
  document.body.append(input);
  const b = button(".uno:InsertGraphic", T.image, {
    click: () => {
      // A host that keeps the pictures (EnableInsertRemoteImage with DisableInsertLocalImage) is asked instead (host-ui.ts).
      if (b.dataset.host) api.uiAction(b.dataset.host);
      else input.click();
    },
  });
  return b;
}

/** Automatic spell checking (each view has it on from the start: workers/kit/views.ts). */
export function spelling(): HTMLElement {
  return toggleButton(".uno:SpellOnline", T.spelling);
}

const pageStyle = (on: boolean): UnoArguments => ({ PageStyle: stringArg("Default Page Style"), On: arg("boolean", on) });
/** Page sizes in 1/100 mm, as Writer's sidebar sets them. */
const PAGE_SIZES: [string, number, number][] = [["A4", 21000, 29700], ["A5", 14800, 21000], ["A3", 29700, 42000], ["Letter", 21590, 27940], ["Legal", 21590, 35560]];
/** Margins in 1/100 mm (Collabora's presets: normal 0.79", narrow 0.5", wide 1" × 2"). */
const MARGINS: [keyof typeof T, number, number, number, number][] = [["marginNormal", 2000, 2000, 2000, 2000], ["marginNarrow", 1270, 1270, 1270, 1270], ["marginWide", 5080, 5080, 2540, 2540]];

/**
 * The page's size and orientation as last chosen here (A4 portrait until then): LibreOffice 7.4 has
 * no orientation command of its own (Collabora's .uno:Orientation with isLandscape came later), so
 * both are set as its page dialog does: the size (width and height swapped for landscape) and the
 * page's landscape flag.
 */
const page = { size: [21000, 29700] as [number, number], landscape: false };
function setPage(): void {
  const [a, b] = page.size, w = page.landscape ? Math.max(a, b) : Math.min(a, b), h = page.landscape ? Math.min(a, b) : Math.max(a, b);
  api.uno(".uno:AttributePageSize", { "AttributePageSize.Width": longArg(w), "AttributePageSize.Height": longArg(h) });
  run(".uno:AttributePage", { "AttributePage.Landscape": arg("boolean", page.landscape) });
}

export function buildText(): void {
  addTo("home", ...clipboardGroup(".uno:SetDefault"), sep(), ...textFormatting(true, true));
  // Writer's highlighting is .uno:BackColor (Collabora's choice too): .uno:CharBackColor does nothing there.
  addTo("home", colour(".uno:BackColor", T.highlight, (c) => { run(".uno:BackColor", { BackColor: longArg(c) }); }));
  addTo("home", sep(), ...paragraphAlign(), sep(),
    toggleButton(".uno:DefaultBullet", T.bullets),
    toggleButton(".uno:DefaultNumbering", T.numbering),
    button(".uno:DecrementIndent", T.outdent),
    button(".uno:IncrementIndent", T.indent),
    lineSpacing());
  addTo("insert", insertTable(), insertImage(), chart(), shapes(), textBox(".uno:DrawText"), sep(),
    insertLink(), specialCharacters(), sep(),
    button(".uno:InsertPagebreak", T.pagebreak),
    // Only turned on here: turning one off asks for confirmation in a dialog the page cannot show.
    button(".uno:InsertPageHeader", T.header, { args: () => pageStyle(true) }),
    button(".uno:InsertPageFooter", T.footer, { args: () => pageStyle(true) }));
  // LibreOffice's own dialogs (interface/dialogs.ts shows them).
  addTo("format",
    button(".uno:FontDialog", T.characterDialog),
    button(".uno:ParagraphDialog", T.paragraphDialog),
    button(".uno:BulletsAndNumberingDialog", T.bulletsDialog),
    button(".uno:PageDialog", T.pageDialog));
  addTo("layout",
    menuButton(".uno:AttributePageSize", T.pageSize, PAGE_SIZES.map(([name, w, h]) => ({ cmd: ".uno:AttributePageSize", label: name,
      click: () => { page.size = [w, h]; setPage(); } }))),
    menuButton(".uno:Orientation", T.orientation, [
      { cmd: ".uno:Orientation", label: T.portrait, click: () => { page.landscape = false; setPage(); } },
      { cmd: ".uno:Orientation", label: T.landscape, click: () => { page.landscape = true; setPage(); } },
    ]),
    menuButton(".uno:PageMargin", T.margins, MARGINS.map(([key, l, r, t, b]) => ({ cmd: ".uno:PageMargin", label: T[key] as string, click: () => {
      api.uno(".uno:PageLRMargin", { "Page.Left": longArg(l), "Page.Right": longArg(r) });
      run(".uno:PageULMargin", { "Page.Upper": longArg(t), "Page.Lower": longArg(b) });
    } }))),
  );
  addTo("review", spelling(), sep());
}

/** Review tab of text documents: tracked changes (the class is what the host's HideChangeTrackingControls hides, host-ui.ts). */
export function trackedChanges(): HTMLElement[] {
  const controls = [
    toggleButton(".uno:TrackChanges", T.trackChanges),
    toggleButton(".uno:ShowTrackedChanges", T.showChanges),
    button(".uno:NextTrackedChange", T.nextChange),
    button(".uno:AcceptTrackedChange", T.accept),
    button(".uno:RejectTrackedChange", T.reject),
    button(".uno:AcceptAllTrackedChanges", T.acceptAll),
    button(".uno:RejectAllTrackedChanges", T.rejectAll),
  ];
  controls.forEach((b) => { b.classList.add("tracked-changes"); });
  return controls;
}
