// The tabs of spreadsheets, the formula bar, and the sheet tabs' actions.

import type { UnoArguments } from "../../protocol/frames";
import { ask } from "./ask";
import { arg, button, colour, el, icon, longArg, named, picker, run, sep, stringArg, toggleButton } from "./controls";
import { addTo, ribbon } from "./ribbon";
import { buildHeaders } from "./sheet-headers";
import { api, S, UI, watch } from "./state";
import { T } from "./texts";
import { chart, clipboardGroup, insertImage, insertLink, shapes, specialCharacters, spelling, textFormatting } from "./toolbar-text";
import { byId, focused, listen } from "./dom";

const NUMBER_FORMATS = [[".uno:NumberFormatStandard", T.general], [".uno:NumberFormatDecimal", T.number], [".uno:NumberFormatPercent", T.percent], [".uno:NumberFormatDate", T.date], [".uno:NumberFormatCurrency", T.currency]] as const;
/** The formats Calc reports at the cell cursor (`statechanged: .uno:NumberFormatPercent=true`…); none is General. */
const REPORTED_FORMATS = [".uno:NumberFormatPercent", ".uno:NumberFormatDate", ".uno:NumberFormatCurrency", ".uno:NumberFormatDecimal"];
/** The picker's last entry: every format, in LibreOffice's Format Cells dialog. */
const MORE_FORMATS = ".uno:FormatCellDialog";

/**
 * The number format picker: it shows the format of the cell at the cursor, as Calc reports it,
 * and its last entry opens Format Cells for every other format.
 */
function numberFormatPicker(): HTMLSelectElement {
  const show = () => { nf.value = REPORTED_FORMATS.find((c) => UI.state[c] === "true") ?? ".uno:NumberFormatStandard"; };
  const nf = picker(T.numberFormat, "tb-numfmt", (v) => { if (v) run(v); show(); });
  NUMBER_FORMATS.forEach((f) => { nf.append(new Option(f[1], f[0])); });
  nf.append(new Option(T.moreFormats, MORE_FORMATS));
  for (const c of REPORTED_FORMATS) watch(c, show);
  show();
  return nf;
}

export function buildSheet(): void {
  // Calc's "clear direct formatting" is .uno:ResetAttributes (Writer's and Impress's .uno:SetDefault).
  addTo("home", ...clipboardGroup(".uno:ResetAttributes"), sep(), ...textFormatting(false, false));
  addTo("home", colour(".uno:BackgroundColor", T.fill, (c) => { run(".uno:BackgroundColor", { BackgroundColor: longArg(c) }); }));
  addTo("home", sep(),
    toggleButton(".uno:AlignLeft", T.left),
    toggleButton(".uno:AlignHorizontalCenter", T.center),
    toggleButton(".uno:AlignRight", T.right),
    toggleButton(".uno:ToggleMergeCells", T.merge),
    toggleButton(".uno:WrapText", T.wrap));
  const nf = numberFormatPicker();
  const borders = picker(T.borders, "tb-borders", (v) => { if (v) run(".uno:SetBorderStyle", borderArgs(v)); borders.value = ""; });
  [["", T.borders], ["all", T.bordersAll], ["outer", T.bordersOuter], ["none", T.bordersNone]].forEach((f) => { borders.append(new Option(f[1], f[0])); });
  addTo("home", nf, borders);
  addTo("insert",
    button(".uno:InsertRowsBefore", T.rowAbove),
    button(".uno:InsertRowsAfter", T.rowBelow),
    button(".uno:InsertColumnsBefore", T.colLeft),
    button(".uno:InsertColumnsAfter", T.colRight),
    button(".uno:DeleteRows", T.deleteRow),
    button(".uno:DeleteColumns", T.deleteCol),
    sep(), insertImage(), chart(), shapes(), sep(), insertLink(), specialCharacters());
  // LibreOffice's own dialogs (interface/dialogs.ts shows them).
  addTo("format",
    button(".uno:FormatCellDialog", T.formatCellsDialog),
    button(".uno:ConditionalFormatDialog", T.conditionalFormatDialog),
    button(".uno:PageFormatDialog", T.pageDialog));
  addTo("data",
    button(".uno:SortAscending", T.sortAsc),
    button(".uno:SortDescending", T.sortDesc),
    // Not a toggle: LibreOffice 7.4 reports no state for the autofilter.
    button(".uno:DataFilterAutoFilter", T.autofilter),
    toggleButton(".uno:FreezePanes", T.freeze), sep(),
    button(".uno:DataSort", T.sortDialog),
    button(".uno:DataFilterStandardFilter", T.standardFilterDialog),
    button(".uno:Validation", T.validityDialog));
  addTo("review", spelling());
  buildFormulaBar();
  buildValidityButton();
  buildSheetTabs();
  buildHeaders();
}

/** `.uno:SetBorderStyle` arguments as Collabora sends them: a thin black line where asked, none elsewhere. */
function borderArgs(kind: string): UnoArguments {
  const line = (on: boolean) => ({
    type: "com.sun.star.table.BorderLine2",
    value: { Color: arg("com.sun.star.util.Color", 0), InnerLineWidth: arg("short", 0), OuterLineWidth: arg("short", on ? 1 : 0), LineDistance: arg("short", 0), LineStyle: arg("short", 0), LineWidth: arg("unsigned long", 0) },
  });
  const outer = kind !== "none", inner = kind === "all";
  return {
    OuterBorder: { type: "[]any", value: [line(outer), line(outer), line(outer), line(outer), longArg(0), longArg(0), longArg(0), longArg(0), longArg(0)] },
    InnerBorder: { type: "[]any", value: [line(inner), line(inner), arg("short", 0), arg("short", 127), longArg(0)] },
  };
}

function buildFormulaBar(): void {
  const address = el("input", { id: "address", type: "text", ...named(T.address), spellcheck: "false", autocomplete: "off" });
  const formula = el("input", { id: "formula", type: "text", "class": "edit-only-input", ...named(T.formula), spellcheck: "false", autocomplete: "off" });
  const bar = el("div", { id: "formulabar" }, [address, Object.assign(icon("functiondialog", "sc"), { className: "fx" }), formula]);
  ribbon.after(bar);
  // A read-only view moves around with the address box but does not edit through the formula bar.
  formula.readOnly = !!S.readOnly;
  api.on("perm", () => { formula.readOnly = !!S.readOnly; });
  api.on("celladdress", (f) => { if (focused() !== address) address.value = f.address; });
  api.on("cellformula", (f) => { if (focused() !== formula) formula.value = f.formula; });
  listen(address, "keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); api.send(api.frames.uno(".uno:GoToCell", { ToPoint: stringArg(address.value.trim()) })); api.focus(); }
    if (e.key === "Escape") api.focus();
  });
  listen(formula, "keydown", (e) => {
    if (e.key === "Enter") {
      // Entered as if typed into the cell: the engine keeps its own parsing, undo and recalculation.
      e.preventDefault();
      api.uno(".uno:EnterString", { StringName: stringArg(formula.value) });
      api.focus();
    } else if (e.key === "Escape") { api.focus(); }
  });
}

/**
 * A cell with a validity list shows a drop-down button at its right edge, as LibreOffice does
 * (it says so for the cell cursor's cell: `validitylistbutton: col, row, 1`); a click opens the list
 * (`.uno:DataSelect`, what Alt+Down runs), whose entries come as a drop-down (interface/dialogs.ts).
 */
function buildValidityButton(): void {
  const cell = byId("cellcursor")!;
  const drop = el("button", { id: "validity-list", "class": "edit-only", ...named(T.validityList), hidden: "" });
  drop.textContent = "\u25BE";
  cell.append(drop);
  listen(drop, "mousedown", (e) => { e.preventDefault(); e.stopPropagation(); });
  listen(drop, "click", () => { api.uno(".uno:DataSelect"); api.focus(); });
  api.on("validitylistbutton", (f) => { drop.hidden = !f.shown; });
  api.on("cellcursor", (f) => { if (!f.rect) drop.hidden = true; });
}

function buildSheetTabs(): void {
  const parts = byId("parts")!;
  const bar = el("div", { id: "sheetactions", "class": "edit-only" }, [
    button(".uno:Insert", T.addSheet, { click: () => {
      const n = (S.status && S.status.parts) || 1, names = (S.status && S.status.partNames) || [];
      let i = n + 1;
      while (names.indexOf("Sheet" + i) >= 0) i++;
      run(".uno:Insert", { Name: stringArg("Sheet" + i), Index: longArg(n + 1) });
    } }),
    button(".uno:Name", T.renameSheet, { icon: "renametable", click: renameSheet }),
    button(".uno:Remove", T.deleteSheet, { click: () => {
      if (!S.status || S.status.parts < 2) return;
      run(".uno:Remove", { Index: longArg(S.status.selectedPart + 1) });
    } }),
  ]);
  const tabbar = el("div", { id: "tabbar" });
  parts.parentNode!.insertBefore(tabbar, parts);
  tabbar.append(parts, bar);
  listen(parts, "dblclick", (e) => {
    const target = e.target as Element;
    if (target.closest && target.closest("button") && !S.readOnly) renameSheet();
  });
}

function renameSheet(): void {
  if (!S.status) return;
  const i = S.status.selectedPart, name = (S.status.partNames || [])[i] || "";
  ask(T.renameSheet, [{ label: T.sheetName, value: name }]).then((v) => {
    if (v && v[0] && v[0] !== name) run(".uno:Name", { Name: stringArg(v[0]), Index: longArg(i + 1) });
  });
}
