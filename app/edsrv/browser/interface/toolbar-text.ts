// The toolbar of text documents, and the character formatting every family shares.

import { ask } from "./ask";
import { add, arg, button, colour, el, I, picker, run, sep, setOptions, showValue } from "./controls";
import { api, watch } from "./state";
import { T } from "./texts";

/** The font list, filled once the first screen is painted (ui.ts). */
export let fontPicker: HTMLSelectElement | undefined;

export function textFormatting(withStyles: boolean): HTMLElement[] {
  const items: HTMLElement[] = [];
  if (withStyles) {
    const stylePicker = picker(T.style, "tb-style", (v) => { run(".uno:StyleApply", { Style: arg("string", v), FamilyName: arg("string", "ParagraphStyles") }); });
    setOptions(stylePicker, ["Default Paragraph Style", "Text Body", "Title", "Subtitle", "Heading 1", "Heading 2", "Heading 3", "Quotations", "Preformatted Text"]);
    watch(".uno:StyleApply", (v) => { showValue(stylePicker, v); });
    items.push(stylePicker);
  }
  const fonts = (fontPicker = picker(T.font, "tb-font", (v) => { run(".uno:CharFontName", { "CharFontName.FamilyName": arg("string", v) }); }));
  const sizePicker = picker(T.size, "tb-size", (v) => { run(".uno:FontHeight", { "FontHeight.Height": arg("float", Number(v)) }); });
  setOptions(sizePicker, ["8", "9", "10", "10.5", "11", "12", "14", "16", "18", "20", "24", "28", "32", "36", "48", "72"]);
  watch(".uno:CharFontName", (v) => { showValue(fonts, v); });
  watch(".uno:FontHeight", (v) => { showValue(sizePicker, v); });
  items.push(fonts, sizePicker, sep(),
    button(".uno:Bold", T.bold, I.bold, { toggle: true }),
    button(".uno:Italic", T.italic, I.italic, { toggle: true }),
    button(".uno:Underline", T.underline, I.underline, { toggle: true }),
    button(".uno:Strikeout", T.strike, I.strike, { toggle: true }),
    colour(T.color, I.color, (c) => { run(".uno:Color", { Color: arg("long", c) }); }));
  return items;
}

export function paragraphAlign(): HTMLElement[] {
  return [
    button(".uno:LeftPara", T.left, I.left, { toggle: true }),
    button(".uno:CenterPara", T.center, I.center, { toggle: true }),
    button(".uno:RightPara", T.right, I.right, { toggle: true }),
    button(".uno:JustifyPara", T.justify, I.justify, { toggle: true }),
  ];
}

function insertImage(): HTMLButtonElement {
  const input = el("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp", hidden: "" });
  input.addEventListener("change", () => {
    const f = input.files && input.files[0];
    input.value = "";
    if (!f || !/^image\/(png|jpeg|gif|webp)$/.test(f.type)) return;
    // Sent as the file is: the engine keeps a JPEG a JPEG.
    f.arrayBuffer().then((buf) => { api.insertGraphic(f.type, new Uint8Array(buf)); api.focus(); });
  });
  document.body.appendChild(input);
  return button(".uno:InsertGraphic", T.image, I.image, { click: () => { input.click(); } });
}

export function buildText(): void {
  textFormatting(true).forEach(add);
  // Writer's highlighting is .uno:BackColor (Collabora's choice too): .uno:CharBackColor does nothing there.
  add(colour(T.highlight, I.highlight, (c) => { run(".uno:BackColor", { BackColor: arg("long", c) }); }));
  add(sep()); paragraphAlign().forEach(add);
  add(sep());
  add(button(".uno:DefaultBullet", T.bullets, I.bullets, { toggle: true }));
  add(button(".uno:DefaultNumbering", T.numbering, I.numbering, { toggle: true }));
  add(button(".uno:DecrementIndent", T.outdent, I.outdent));
  add(button(".uno:IncrementIndent", T.indent, I.indent));
  add(sep());
  add(button(".uno:InsertTable", T.table, I.table, { click: () => {
    ask(T.table, [{ label: T.tableSize, value: "3 x 3" }]).then((v) => {
      const m = v && /(\d+)\D+(\d+)/.exec(v[0]!);
      if (m) run(".uno:InsertTable", { Columns: arg("long", Math.min(64, Number(m[1]))), Rows: arg("long", Math.min(1000, Number(m[2]))) });
    });
  } }));
  add(insertImage());
  add(button(".uno:HyperlinkDialog", T.link, I.link, { click: () => {
    ask(T.link, [{ label: T.linkUrl, value: "https://" }, { label: T.linkText }]).then((v) => {
      if (v && v[0]) run(".uno:SetHyperlink", { "Hyperlink.Text": arg("string", v[1] || v[0]), "Hyperlink.URL": arg("string", v[0]) });
    });
  } }));
  add(button(".uno:InsertPagebreak", T.pagebreak, I.pagebreak));
  add(sep());
  add(button(".uno:TrackChanges", T.trackChanges, I.track, { toggle: true }));
  add(button(".uno:ShowTrackedChanges", T.showChanges, I.show, { toggle: true }));
  add(button(".uno:NextTrackedChange", T.nextChange, I.next));
  add(button(".uno:AcceptTrackedChange", T.accept, I.accept));
  add(button(".uno:RejectTrackedChange", T.reject, I.reject));
  add(button(".uno:AcceptAllTrackedChanges", T.acceptAll, I.acceptAll));
  add(button(".uno:RejectAllTrackedChanges", T.rejectAll, I.rejectAll));
}
