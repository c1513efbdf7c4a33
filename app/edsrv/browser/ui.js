// The editor's interface (docs/editing-server.md, "The interface"): one compact toolbar row for
// the document's family, a formula bar for sheets, a slide panel for decks, find and replace, zoom,
// download and print, comments, the people in the document and a status bar, in the page's
// language. Built only on ed.js's hooks (window.edApi): every control sends a UNO command and
// shows the engine's state at the cursor (`statechanged:`), so nothing here keeps its own idea of
// the document.
(function () {
  "use strict";
  var api = window.edApi, S = window.edState;
  if (!api) return;
  var lang = document.documentElement.lang === "vi" ? "vi" : "en";

  var TEXTS = {
    en: {
      toolbar: "Formatting", bold: "Bold", italic: "Italic", underline: "Underline", strike: "Strikethrough",
      font: "Font", size: "Font size", style: "Paragraph style", color: "Text colour", highlight: "Highlight colour",
      left: "Align left", center: "Centre", right: "Align right", justify: "Justify", bullets: "Bulleted list",
      numbering: "Numbered list", indent: "Increase indent", outdent: "Decrease indent", table: "Insert table",
      image: "Insert image", link: "Insert link", pagebreak: "Page break", linkUrl: "Link address", linkText: "Text to show",
      tableSize: "Table size (columns × rows)", trackChanges: "Record changes", showChanges: "Show changes",
      nextChange: "Next change", accept: "Accept change", reject: "Reject change", acceptAll: "Accept all changes",
      rejectAll: "Reject all changes", comments: "Comments", addComment: "Add comment", reply: "Reply", resolve: "Resolve",
      remove: "Delete", commentText: "Comment", noComments: "No comments.", resolved: "resolved",
      address: "Cell address", formula: "Formula", general: "General", number: "Number", percent: "Percent", date: "Date",
      currency: "Currency", fill: "Fill colour", merge: "Merge cells", wrap: "Wrap text", rowAbove: "Insert row above",
      rowBelow: "Insert row below", colLeft: "Insert column before", colRight: "Insert column after", deleteRow: "Delete rows",
      deleteCol: "Delete columns", sortAsc: "Sort ascending", sortDesc: "Sort descending", autofilter: "AutoFilter",
      freeze: "Freeze rows and columns", addSheet: "Add sheet", renameSheet: "Rename sheet", deleteSheet: "Delete sheet",
      sheetName: "Sheet name", numberFormat: "Number format", borders: "Borders", alignCells: "Alignment",
      newSlide: "New slide", duplicateSlide: "Duplicate slide", deleteSlide: "Delete slide", slideUp: "Move slide up",
      slideDown: "Move slide down", slideshow: "Start slideshow", slides: "Slides", slide: "Slide",
      zoomIn: "Zoom in", zoomOut: "Zoom out", fitWidth: "Fit width", fitPage: "Fit page", find: "Find", replace: "Replace",
      findNext: "Next match", findPrev: "Previous match", replaceOne: "Replace", replaceAll: "Replace all", close: "Close",
      matches: function (n) { return n === 1 ? "1 match" : n + " matches"; }, noMatch: "No matches",
      download: "Download as", print: "Print", people: "People in this document", you: "you", readonly: "read-only",
      page: function (a, b) { return "Page " + a + " of " + b; }, sheet: function (a, b) { return "Sheet " + a + " of " + b; },
      slideOf: function (a, b) { return "Slide " + a + " of " + b; }, words: function (w, c) { return w + " words, " + c + " characters"; },
      saving: "Saving…", saved: "Saved", notSaved: "Not saved — retrying", unsaved: "Unsaved changes", ok: "OK", cancel: "Cancel",
      contextMenu: "Context menu", downloadFailed: "The download could not be prepared.", more: "More",
    },
    vi: {
      toolbar: "Định dạng", bold: "Đậm", italic: "Nghiêng", underline: "Gạch chân", strike: "Gạch ngang",
      font: "Phông chữ", size: "Cỡ chữ", style: "Kiểu đoạn", color: "Màu chữ", highlight: "Màu tô sáng",
      left: "Căn trái", center: "Căn giữa", right: "Căn phải", justify: "Căn đều hai bên", bullets: "Danh sách dấu đầu dòng",
      numbering: "Danh sách đánh số", indent: "Tăng thụt lề", outdent: "Giảm thụt lề", table: "Chèn bảng",
      image: "Chèn ảnh", link: "Chèn liên kết", pagebreak: "Ngắt trang", linkUrl: "Địa chỉ liên kết", linkText: "Chữ hiển thị",
      tableSize: "Kích thước bảng (cột × hàng)", trackChanges: "Ghi lại thay đổi", showChanges: "Hiện thay đổi",
      nextChange: "Thay đổi tiếp theo", accept: "Chấp nhận thay đổi", reject: "Từ chối thay đổi", acceptAll: "Chấp nhận mọi thay đổi",
      rejectAll: "Từ chối mọi thay đổi", comments: "Bình luận", addComment: "Thêm bình luận", reply: "Trả lời", resolve: "Đánh dấu đã xử lý",
      remove: "Xoá", commentText: "Bình luận", noComments: "Chưa có bình luận.", resolved: "đã xử lý",
      address: "Địa chỉ ô", formula: "Công thức", general: "Chung", number: "Số", percent: "Phần trăm", date: "Ngày",
      currency: "Tiền tệ", fill: "Màu nền", merge: "Gộp ô", wrap: "Xuống dòng trong ô", rowAbove: "Chèn hàng phía trên",
      rowBelow: "Chèn hàng phía dưới", colLeft: "Chèn cột bên trái", colRight: "Chèn cột bên phải", deleteRow: "Xoá hàng",
      deleteCol: "Xoá cột", sortAsc: "Sắp xếp tăng dần", sortDesc: "Sắp xếp giảm dần", autofilter: "Lọc tự động",
      freeze: "Cố định hàng và cột", addSheet: "Thêm trang tính", renameSheet: "Đổi tên trang tính", deleteSheet: "Xoá trang tính",
      sheetName: "Tên trang tính", numberFormat: "Định dạng số", borders: "Đường viền", alignCells: "Căn lề",
      newSlide: "Trang chiếu mới", duplicateSlide: "Nhân bản trang chiếu", deleteSlide: "Xoá trang chiếu", slideUp: "Chuyển trang chiếu lên",
      slideDown: "Chuyển trang chiếu xuống", slideshow: "Trình chiếu", slides: "Trang chiếu", slide: "Trang chiếu",
      zoomIn: "Phóng to", zoomOut: "Thu nhỏ", fitWidth: "Vừa chiều rộng", fitPage: "Vừa trang", find: "Tìm", replace: "Thay thế",
      findNext: "Kết quả tiếp theo", findPrev: "Kết quả trước", replaceOne: "Thay thế", replaceAll: "Thay thế tất cả", close: "Đóng",
      matches: function (n) { return n + " kết quả"; }, noMatch: "Không tìm thấy",
      download: "Tải xuống dạng", print: "In", people: "Người trong tài liệu", you: "bạn", readonly: "chỉ xem",
      page: function (a, b) { return "Trang " + a + "/" + b; }, sheet: function (a, b) { return "Trang tính " + a + "/" + b; },
      slideOf: function (a, b) { return "Trang chiếu " + a + "/" + b; }, words: function (w, c) { return w + " từ, " + c + " ký tự"; },
      saving: "Đang lưu…", saved: "Đã lưu", notSaved: "Chưa lưu — đang thử lại", unsaved: "Có thay đổi chưa lưu", ok: "Đồng ý", cancel: "Huỷ",
      contextMenu: "Menu ngữ cảnh", downloadFailed: "Không chuẩn bị được tệp tải xuống.", more: "Thêm",
    },
  };
  var T = TEXTS[lang];
  var UI = window.edUi = { state: {}, matches: -1, comments: [], lastDownload: null, headers: null };
  var state = UI.state;      // ".uno:Bold" → "true", as the engine last reported for this view
  var watchers = {};         // ".uno:Bold" → functions that show it
  var family = null;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "on") for (var ev in attrs.on) e.addEventListener(ev, attrs.on[ev]);
      else if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function watch(cmd, fn) { (watchers[cmd] = watchers[cmd] || []).push(fn); if (state[cmd] !== undefined) fn(state[cmd]); }
  function arg(type, value) { return { type: type, value: value }; }
  function run(cmd, args) { api.uno(cmd, args); api.focus(); }

  // ---- controls
  /** A command button; `toggle` shows the command's on/off state at the cursor (aria-pressed). */
  function button(cmd, label, icon, opts) {
    opts = opts || {};
    var b = el("button", { type: "button", "class": "tb" + (opts.view ? "" : " edit-only"), "aria-label": label, title: label, "data-cmd": cmd });
    b.innerHTML = icon;
    if (opts.toggle) b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", function () { if (opts.click) opts.click(); else run(cmd, opts.args && opts.args()); });
    if (!opts.click) watch(cmd, function (v) {
      if (opts.toggle) b.setAttribute("aria-pressed", String(v === "true"));
      b.disabled = v === "disabled";
    });
    return b;
  }
  function picker(label, cls, onChange) {
    var s = el("select", { "class": "tb-select edit-only " + cls, "aria-label": label, title: label });
    s.addEventListener("change", function () { onChange(s.value); api.focus(); });
    return s;
  }
  function setOptions(s, values, current) {
    s.innerHTML = "";
    values.forEach(function (v) { s.appendChild(el("option", { value: v, text: v })); });
    if (current !== undefined) showValue(s, current);
  }
  function showValue(s, v) {
    if (v === undefined || v === null) return;
    if (v !== "" && !Array.prototype.some.call(s.options, function (o) { return o.value === v; })) s.appendChild(el("option", { value: v, text: v }));
    s.value = v;
  }
  /** A colour input; the engine takes colours as 0xRRGGBB numbers. */
  function colour(label, icon, onPick) {
    var wrap = el("label", { "class": "tb tb-colour edit-only", title: label });
    wrap.innerHTML = icon;
    var input = el("input", { type: "color", "aria-label": label, value: "#c01c28" });
    input.addEventListener("change", function () { onPick(parseInt(input.value.slice(1), 16)); api.focus(); });
    wrap.appendChild(input);
    return wrap;
  }
  function sep() { return el("span", { "class": "tb-sep", "aria-hidden": "true" }); }

  /** A small in-page form (links, table size, sheet names, comments): answers the values or null. */
  function ask(title, fields) {
    return new Promise(function (resolve) {
      var inputs = fields.map(function (f) { return el("input", { type: "text", value: f.value || "", "aria-label": f.label, placeholder: f.label }); });
      var form = el("form", { "class": "ask", role: "dialog", "aria-label": title }, [el("strong", { text: title })].concat(inputs.map(function (i, n) {
        return el("label", {}, [el("span", { text: fields[n].label }), i]);
      })).concat([el("div", { "class": "ask-buttons" }, [el("button", { type: "submit", text: T.ok }), el("button", { type: "button", "class": "ask-cancel", text: T.cancel })])]));
      function done(v) { form.remove(); resolve(v); api.focus(); }
      form.addEventListener("submit", function (e) { e.preventDefault(); done(inputs.map(function (i) { return i.value; })); });
      form.querySelector(".ask-cancel").addEventListener("click", function () { done(null); });
      form.addEventListener("keydown", function (e) { if (e.key === "Escape") { e.stopPropagation(); done(null); } });
      document.body.appendChild(form);
      inputs[0].focus();
      inputs[0].select();
    });
  }

  // Icons: short glyphs, so the page needs no icon font or image requests.
  var I = {
    bold: "<b>B</b>", italic: "<i>I</i>", underline: "<u>U</u>", strike: "<s>S</s>", color: "<span class='ic-a'>A</span>",
    highlight: "<span class='ic-hl'>ab</span>", left: "&#8676;", center: "&#8596;", right: "&#8677;", justify: "&#9776;",
    bullets: "&#8226;&#8801;", numbering: "1.&#8801;", indent: "&#8680;", outdent: "&#8678;", table: "&#9638;", image: "&#128444;",
    link: "<u>a</u>&#8599;", pagebreak: "&#11022;", track: "&#9998;&#8635;", show: "&#128065;", next: "&#8631;", accept: "&#10003;", reject: "&#10007;",
    acceptAll: "&#10003;&#10003;", rejectAll: "&#10007;&#10007;", comment: "&#128488;", fill: "<span class='ic-fill'>&#9634;</span>",
    merge: "&#8660;", wrap: "&#8629;", rowAbove: "&#8593;&#9636;", rowBelow: "&#8595;&#9636;", colLeft: "&#8592;&#9707;", colRight: "&#8594;&#9707;",
    delRow: "&#10006;&#9636;", delCol: "&#10006;&#9707;", sortAsc: "A&#8595;", sortDesc: "Z&#8595;", filter: "&#9207;", freeze: "&#10052;",
    zoomIn: "+", zoomOut: "&minus;", fitWidth: "&#8596;", fitPage: "&#9974;", find: "&#128269;", download: "&#11123;", print: "&#128438;",
    newSlide: "+&#9645;", dupSlide: "&#10697;", delSlide: "&#10006;&#9645;", up: "&#9650;", down: "&#9660;", show: "&#9654;",
  };

  // ---- the toolbar row of each family
  var ribbon = el("div", { id: "ribbon", role: "toolbar", "aria-label": T.toolbar });
  var fontPicker, sizePicker, stylePicker;
  function textFormatting(withStyles) {
    var items = [];
    if (withStyles) {
      stylePicker = picker(T.style, "tb-style", function (v) { run(".uno:StyleApply", { Style: arg("string", v), FamilyName: arg("string", "ParagraphStyles") }); });
      setOptions(stylePicker, ["Default Paragraph Style", "Text Body", "Title", "Subtitle", "Heading 1", "Heading 2", "Heading 3", "Quotations", "Preformatted Text"]);
      watch(".uno:StyleApply", function (v) { showValue(stylePicker, v); });
      items.push(stylePicker);
    }
    fontPicker = picker(T.font, "tb-font", function (v) { run(".uno:CharFontName", { "CharFontName.FamilyName": arg("string", v) }); });
    sizePicker = picker(T.size, "tb-size", function (v) { run(".uno:FontHeight", { "FontHeight.Height": arg("float", Number(v)) }); });
    setOptions(sizePicker, ["8", "9", "10", "10.5", "11", "12", "14", "16", "18", "20", "24", "28", "32", "36", "48", "72"]);
    watch(".uno:CharFontName", function (v) { showValue(fontPicker, v); });
    watch(".uno:FontHeight", function (v) { showValue(sizePicker, v); });
    items.push(fontPicker, sizePicker, sep(),
      button(".uno:Bold", T.bold, I.bold, { toggle: true }),
      button(".uno:Italic", T.italic, I.italic, { toggle: true }),
      button(".uno:Underline", T.underline, I.underline, { toggle: true }),
      button(".uno:Strikeout", T.strike, I.strike, { toggle: true }),
      colour(T.color, I.color, function (c) { run(".uno:Color", { Color: arg("long", c) }); }));
    return items;
  }
  function paragraphAlign() {
    return [
      button(".uno:LeftPara", T.left, I.left, { toggle: true }),
      button(".uno:CenterPara", T.center, I.center, { toggle: true }),
      button(".uno:RightPara", T.right, I.right, { toggle: true }),
      button(".uno:JustifyPara", T.justify, I.justify, { toggle: true }),
    ];
  }
  function insertImage() {
    var input = el("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp", hidden: "" });
    input.addEventListener("change", function () {
      var f = input.files && input.files[0];
      input.value = "";
      if (!f || !/^image\/(png|jpeg|gif|webp)$/.test(f.type)) return;
      // Sent as the file is: the engine keeps a JPEG a JPEG.
      f.arrayBuffer().then(function (buf) { api.insertGraphic(f.type, new Uint8Array(buf)); api.focus(); });
    });
    document.body.appendChild(input);
    return button(".uno:InsertGraphic", T.image, I.image, { click: function () { input.click(); } });
  }
  function buildText() {
    textFormatting(true).forEach(add);
    // Writer's highlighting is .uno:BackColor (Collabora's choice too): .uno:CharBackColor does nothing there.
    add(colour(T.highlight, I.highlight, function (c) { run(".uno:BackColor", { BackColor: arg("long", c) }); }));
    add(sep()); paragraphAlign().forEach(add);
    add(sep());
    add(button(".uno:DefaultBullet", T.bullets, I.bullets, { toggle: true }));
    add(button(".uno:DefaultNumbering", T.numbering, I.numbering, { toggle: true }));
    add(button(".uno:DecrementIndent", T.outdent, I.outdent));
    add(button(".uno:IncrementIndent", T.indent, I.indent));
    add(sep());
    add(button(".uno:InsertTable", T.table, I.table, { click: function () {
      ask(T.table, [{ label: T.tableSize, value: "3 x 3" }]).then(function (v) {
        var m = v && /(\d+)\D+(\d+)/.exec(v[0]);
        if (m) run(".uno:InsertTable", { Columns: arg("long", Math.min(64, Number(m[1]))), Rows: arg("long", Math.min(1000, Number(m[2]))) });
      });
    } }));
    add(insertImage());
    add(button(".uno:HyperlinkDialog", T.link, I.link, { click: function () {
      ask(T.link, [{ label: T.linkUrl, value: "https://" }, { label: T.linkText }]).then(function (v) {
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

  var NUMBER_FORMATS = [["", T.numberFormat], [".uno:NumberFormatStandard", T.general], [".uno:NumberFormatDecimal", T.number], [".uno:NumberFormatPercent", T.percent], [".uno:NumberFormatDate", T.date], [".uno:NumberFormatCurrency", T.currency]];
  function buildSheet() {
    textFormatting(false).forEach(add);
    add(colour(T.fill, I.fill, function (c) { run(".uno:BackgroundColor", { BackgroundColor: arg("long", c) }); }));
    add(sep());
    add(button(".uno:AlignLeft", T.left, I.left, { toggle: true }));
    add(button(".uno:AlignHorizontalCenter", T.center, I.center, { toggle: true }));
    add(button(".uno:AlignRight", T.right, I.right, { toggle: true }));
    add(button(".uno:ToggleMergeCells", T.merge, I.merge, { toggle: true }));
    add(button(".uno:WrapText", T.wrap, I.wrap, { toggle: true }));
    var nf = picker(T.numberFormat, "tb-numfmt", function (v) { if (v) run(v); nf.value = ""; });
    NUMBER_FORMATS.forEach(function (f) { nf.appendChild(el("option", { value: f[0], text: f[1] })); });
    add(nf);
    var borders = picker(T.borders, "tb-borders", function (v) { if (v) run(".uno:SetBorderStyle", borderArgs(v)); borders.value = ""; });
    [["", T.borders], ["all", "▦"], ["outer", "□"], ["none", "⬚"]].forEach(function (f) { borders.appendChild(el("option", { value: f[0], text: f[1] })); });
    add(borders);
    add(sep());
    add(button(".uno:InsertRowsBefore", T.rowAbove, I.rowAbove));
    add(button(".uno:InsertRowsAfter", T.rowBelow, I.rowBelow));
    add(button(".uno:InsertColumnsBefore", T.colLeft, I.colLeft));
    add(button(".uno:InsertColumnsAfter", T.colRight, I.colRight));
    add(button(".uno:DeleteRows", T.deleteRow, I.delRow));
    add(button(".uno:DeleteColumns", T.deleteCol, I.delCol));
    add(sep());
    add(button(".uno:SortAscending", T.sortAsc, I.sortAsc));
    add(button(".uno:SortDescending", T.sortDesc, I.sortDesc));
    // Not a toggle: LibreOffice 7.4 reports no state for the autofilter.
    add(button(".uno:DataFilterAutoFilter", T.autofilter, I.filter));
    add(button(".uno:FreezePanes", T.freeze, I.freeze, { toggle: true }));
    buildFormulaBar();
    buildSheetTabs();
    buildHeaders();
  }

  // ---- column letters and row numbers: the engine's own sizes and labels for what is visible
  var headers = null;
  function buildHeaders() {
    var viewport = $("viewport");
    var grid = el("div", { id: "sheetgrid" });
    viewport.parentNode.insertBefore(grid, viewport);
    var corner = el("div", { "class": "hdr-corner" });
    var cols = el("canvas", { id: "colheaders", "aria-hidden": "true" }), rows = el("canvas", { id: "rowheaders", "aria-hidden": "true" });
    grid.appendChild(corner); grid.appendChild(cols); grid.appendChild(rows); grid.appendChild(viewport);
    headers = { cols: cols, rows: rows, viewport: viewport, data: null, timer: null, asked: "" };
    viewport.addEventListener("scroll", function () { drawHeaders(); askHeaders(120); });
    window.addEventListener("resize", function () { askHeaders(50); });
    api.on("invalidatetiles", function () { askHeaders(300); });
    api.on("commandvalues", function (a) {
      if (a.indexOf('"commandName": ".uno:ViewRowColumnHeaders"') < 0 && a.indexOf('"commandName":".uno:ViewRowColumnHeaders"') < 0) return;
      try { headers.data = UI.headers = JSON.parse(a); } catch (e) { return; }
      drawHeaders();
    });
  }
  function askHeaders(ms) {
    if (!headers) return;
    clearTimeout(headers.timer);
    headers.timer = setTimeout(function () {
      var v = headers.viewport, tpp = api.zoom();
      var x = Math.floor(v.scrollLeft * tpp), y = Math.floor(v.scrollTop * tpp), w = Math.ceil(v.clientWidth * tpp), h = Math.ceil(v.clientHeight * tpp);
      api.send("commandvalues command=" + encodeURIComponent(".uno:ViewRowColumnHeaders?x=" + x + "&y=" + y + "&width=" + w + "&height=" + h));
    }, ms);
  }
  /** The engine gives each row's and column's end at its own 100 % (15 twips a pixel); the page draws at its zoom. */
  function drawHeaders() {
    if (!headers || !headers.data) return;
    var v = headers.viewport, k = 15 / api.zoom(), dpr = window.devicePixelRatio || 1;
    var draw = function (canvas, list, across, scroll, length) {
      var thick = across ? 20 : 40;
      canvas.width = (across ? length : thick) * dpr; canvas.height = (across ? thick : length) * dpr;
      canvas.style.width = (across ? length : thick) + "px"; canvas.style.height = (across ? thick : length) + "px";
      var c = canvas.getContext("2d");
      c.scale(dpr, dpr);
      c.fillStyle = "#f0f0f0"; c.fillRect(0, 0, across ? length : thick, across ? thick : length);
      c.strokeStyle = "#c0c0c0"; c.fillStyle = "#333"; c.font = "11px system-ui, sans-serif"; c.textAlign = "center"; c.textBaseline = "middle";
      var prev = null;
      (list || []).forEach(function (e) {
        var end = Number(e.size) * k - scroll;
        if (prev !== null && e.text !== 0 && e.text !== "0") {
          c.beginPath();
          if (across) { c.moveTo(end + 0.5, 0); c.lineTo(end + 0.5, thick); } else { c.moveTo(0, end + 0.5); c.lineTo(thick, end + 0.5); }
          c.stroke();
          var mid = (prev + end) / 2;
          if (end - prev > 8) { if (across) c.fillText(String(e.text), mid, thick / 2); else c.fillText(String(e.text), thick / 2, mid); }
        }
        prev = end;
      });
    };
    draw(headers.cols, headers.data.columns, true, v.scrollLeft, v.clientWidth);
    draw(headers.rows, headers.data.rows, false, v.scrollTop, v.clientHeight);
  }
  /** `.uno:SetBorderStyle` arguments as Collabora sends them: a thin black line where asked, none elsewhere. */
  function borderArgs(kind) {
    var line = function (on) {
      return { type: "com.sun.star.table.BorderLine2", value: { Color: arg("com.sun.star.util.Color", 0), InnerLineWidth: arg("short", 0), OuterLineWidth: arg("short", on ? 1 : 0), LineDistance: arg("short", 0), LineStyle: arg("short", 0), LineWidth: arg("unsigned long", 0) } };
    };
    var outer = kind !== "none", inner = kind === "all";
    return {
      OuterBorder: { type: "[]any", value: [line(outer), line(outer), line(outer), line(outer), arg("long", 0), arg("long", 0), arg("long", 0), arg("long", 0), arg("long", 0)] },
      InnerBorder: { type: "[]any", value: [line(inner), line(inner), arg("short", 0), arg("short", 127), arg("long", 0)] },
    };
  }
  function buildFormulaBar() {
    var address = el("input", { id: "address", type: "text", "aria-label": T.address, title: T.address, spellcheck: "false", autocomplete: "off" });
    var formula = el("input", { id: "formula", type: "text", "class": "edit-only-input", "aria-label": T.formula, title: T.formula, spellcheck: "false", autocomplete: "off" });
    var bar = el("div", { id: "formulabar" }, [address, el("span", { "class": "fx", "aria-hidden": "true", text: "fx" }), formula]);
    ribbon.after(bar);
    // A read-only view moves around with the address box but does not edit through the formula bar.
    formula.readOnly = !!S.readOnly;
    api.on("perm", function () { formula.readOnly = !!S.readOnly; });
    api.on("celladdress", function (a) { if (document.activeElement !== address) address.value = a.trim(); });
    api.on("cellformula", function (f) { if (document.activeElement !== formula) formula.value = f; });
    address.addEventListener("keydown", function (e) {
      if (e.key === "Enter") { e.preventDefault(); api.send("uno .uno:GoToCell " + JSON.stringify({ ToPoint: arg("string", address.value.trim()) })); api.focus(); }
      if (e.key === "Escape") api.focus();
    });
    formula.addEventListener("keydown", function (e) {
      if (e.key === "Enter") {
        // Entered as if typed into the cell: the engine keeps its own parsing, undo and recalculation.
        e.preventDefault();
        api.uno(".uno:EnterString", { StringName: arg("string", formula.value) });
        api.focus();
      } else if (e.key === "Escape") { api.focus(); }
    });
  }
  function buildSheetTabs() {
    var parts = $("parts");
    var bar = el("div", { id: "sheetactions", "class": "edit-only" }, [
      button(".uno:Insert", T.addSheet, "+", { click: function () {
        var n = (S.status && S.status.parts) || 1, names = (S.status && S.status.partNames) || [], i = n + 1;
        while (names.indexOf("Sheet" + i) >= 0) i++;
        run(".uno:Insert", { Name: arg("string", "Sheet" + i), Index: arg("long", n + 1) });
      } }),
      button(".uno:Name", T.renameSheet, "&#9998;", { click: renameSheet }),
      button(".uno:Remove", T.deleteSheet, "&#10006;", { click: function () {
        if (!S.status || S.status.parts < 2) return;
        run(".uno:Remove", { Index: arg("long", S.status.selectedPart + 1) });
      } }),
    ]);
    var tabbar = el("div", { id: "tabbar" });
    parts.parentNode.insertBefore(tabbar, parts);
    tabbar.appendChild(parts); tabbar.appendChild(bar);
    parts.addEventListener("dblclick", function (e) { if (e.target.closest && e.target.closest("button") && !S.readOnly) renameSheet(); });
  }
  function renameSheet() {
    if (!S.status) return;
    var i = S.status.selectedPart, name = (S.status.partNames || [])[i] || "";
    ask(T.renameSheet, [{ label: T.sheetName, value: name }]).then(function (v) {
      if (v && v[0] && v[0] !== name) run(".uno:Name", { Name: arg("string", v[0]), Index: arg("long", i + 1) });
    });
  }

  function buildPresentation() {
    textFormatting(false).forEach(add);
    add(sep()); paragraphAlign().forEach(add);
    add(button(".uno:DefaultBullet", T.bullets, I.bullets, { toggle: true }));
    add(sep());
    add(button(".uno:InsertPage", T.newSlide, I.newSlide));
    add(button(".uno:DuplicatePage", T.duplicateSlide, I.dupSlide));
    add(button(".uno:DeletePage", T.deleteSlide, I.delSlide));
    add(button("moveup", T.slideUp, I.up, { click: function () { moveSlide(-1); } }));
    add(button("movedown", T.slideDown, I.down, { click: function () { moveSlide(1); } }));
    add(button("slideshow", T.slideshow, I.show, { view: true, click: startSlideshow }));
    buildSlidePanel();
  }
  function moveSlide(d) {
    var st = S.status; if (!st) return;
    var i = st.selectedPart, to = d < 0 ? i - 1 : i + 2;
    if (to < 0 || to > st.parts) return;
    api.send("moveparts parts=" + i + " position=" + to);
    api.focus();
  }

  // ---- slide panel: thumbnails, painted by the engine for each slide
  var slidePanel = null, thumbs = {}, thumbTimer = null, thumbDirty = {};
  function buildSlidePanel() {
    slidePanel = el("nav", { id: "slides", "aria-label": T.slides });
    var main = el("div", { id: "main" });
    var viewport = $("viewport");
    viewport.parentNode.insertBefore(main, viewport);
    main.appendChild(slidePanel);
    main.appendChild(viewport);
    api.on("thumbnail", function (a) {
      var m = /^part=(\d+) width=(\d+) height=(\d+) (data:image\/png;base64,.*)$/.exec(a);
      if (!m) return;
      var img = thumbs[m[1]];
      if (img) { img.src = m[4]; img.dataset.loaded = "1"; }
    });
    api.on("invalidatetiles", function (a) {
      var n = a.split(",").map(function (x) { return x.trim(); });
      var p = n[0] === "EMPTY" ? n[1] : n[4];
      if (p === undefined || p === "") p = S.status ? String(S.status.selectedPart) : "0";
      thumbDirty[p] = true;
      scheduleThumbs(600);
    });
  }
  function renderSlidePanel(st) {
    if (!slidePanel) return;
    var count = st.parts;
    if (slidePanel.childElementCount !== count) {
      slidePanel.innerHTML = ""; thumbs = {};
      for (var i = 0; i < count; i++) {
        (function (i) {
          var img = el("img", { alt: "", width: "160" });
          var b = el("button", { type: "button", "class": "thumb", "aria-label": T.slide + " " + (i + 1), title: T.slide + " " + (i + 1) }, [el("span", { "class": "thumb-n", text: String(i + 1) }), img]);
          b.addEventListener("click", function () { api.switchPart(i); });
          thumbs[i] = img; thumbDirty[i] = true;
          slidePanel.appendChild(b);
        })(i);
      }
    }
    Array.prototype.forEach.call(slidePanel.children, function (b, i) { b.classList.toggle("active", i === st.selectedPart); b.setAttribute("aria-current", i === st.selectedPart ? "true" : "false"); });
    scheduleThumbs(50);
  }
  function scheduleThumbs(ms) {
    clearTimeout(thumbTimer);
    thumbTimer = setTimeout(function () {
      Object.keys(thumbDirty).forEach(function (p) { if (thumbs[p]) api.send("thumbnail part=" + p + " width=160"); });
      thumbDirty = {};
    }, ms);
  }

  // ---- slideshow: the deck full screen, one slide fitted, keys and clicks move on
  var showing = false, zoomBefore = 15;
  function startSlideshow() {
    if (showing) return;
    showing = true; zoomBefore = api.zoom();
    document.body.classList.add("slideshow");
    var v = $("viewport");
    var go = function () { fitPage(); };
    if (v.requestFullscreen) v.requestFullscreen().then(go, go); else go();
  }
  function stopSlideshow() {
    if (!showing) return;
    showing = false;
    document.body.classList.remove("slideshow");
    if (document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(function () {});
    api.setZoom(zoomBefore);
  }
  document.addEventListener("fullscreenchange", function () { if (!document.fullscreenElement && showing) stopSlideshow(); else if (showing) fitPage(); });
  window.addEventListener("keydown", function (e) {
    if (!showing) return;
    var st = S.status, i = st ? st.selectedPart : 0;
    if (["ArrowRight", "ArrowDown", "PageDown", " ", "Enter"].indexOf(e.key) >= 0) { if (st && i + 1 < st.parts) api.switchPart(i + 1); }
    else if (["ArrowLeft", "ArrowUp", "PageUp", "Backspace"].indexOf(e.key) >= 0) { if (i > 0) api.switchPart(i - 1); }
    else if (e.key === "Escape") stopSlideshow();
    else return;
    e.preventDefault(); e.stopImmediatePropagation();
  }, true);

  // ---- zoom: ed.js draws at `twips per CSS pixel` (15 = 100 %)
  var ZOOMS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 3, 4];
  function zoomPercent() { return Math.round((15 / api.zoom()) * 100); }
  function setZoomFactor(z) { api.setZoom(15 / Math.min(4, Math.max(0.25, z))); showZoom(); if (headers) askHeaders(0); }
  function zoomStep(d) {
    var z = 15 / api.zoom(), next = d > 0 ? ZOOMS.filter(function (x) { return x > z + 0.001; })[0] : ZOOMS.filter(function (x) { return x < z - 0.001; }).pop();
    if (next) setZoomFactor(next);
  }
  function fitWidth() {
    var st = S.status; if (!st) return;
    var px = api.viewportPx().w - 24;
    setZoomFactor((px * 15) / st.width);
  }
  function fitPage() {
    var st = S.status; if (!st) return;
    var box = api.viewportPx();
    // A text document's status is the whole document: a page is as tall as its width × √2 (A4)
    // unless the document is shorter.
    var h = st.type === "text" ? Math.min(st.height, st.width * 1.42) : st.height;
    setZoomFactor(Math.min(((box.w - 24) * 15) / st.width, ((box.h - 24) * 15) / h));
  }
  var zoomLabel = el("span", { id: "zoomlevel", "aria-live": "polite" });
  function showZoom() { zoomLabel.textContent = zoomPercent() + " %"; }
  $("viewport").addEventListener("wheel", function (e) {
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoomStep(e.deltaY < 0 ? 1 : -1);
  }, { passive: false });

  // ---- find and replace
  var findInput, replaceInput, findCount, findbar;
  function buildFindBar() {
    findInput = el("input", { type: "search", id: "find-text", "aria-label": T.find, placeholder: T.find, autocomplete: "off" });
    replaceInput = el("input", { type: "text", id: "replace-text", "class": "edit-only", "aria-label": T.replace, placeholder: T.replace, autocomplete: "off" });
    findCount = el("span", { id: "find-count", "aria-live": "polite" });
    findbar = el("div", { id: "findbar", role: "search", hidden: "" }, [
      findInput,
      button("findprev", T.findPrev, "&#8593;", { view: true, click: function () { search(0, true); } }),
      button("findnext", T.findNext, "&#8595;", { view: true, click: function () { search(0, false); } }),
      findCount,
      replaceInput,
      button("replace", T.replaceOne, T.replaceOne, { click: function () { search(2, false); } }),
      button("replaceall", T.replaceAll, T.replaceAll, { click: function () { search(3, false); } }),
      button("findclose", T.close, "&#10005;", { view: true, click: closeFind }),
    ]);
    var t = null;
    findInput.addEventListener("input", function () { clearTimeout(t); t = setTimeout(function () { if (findInput.value) search(1, false); else findCount.textContent = ""; }, 250); });
    findbar.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); closeFind(); }
      if (e.key === "Enter" && e.target === findInput) { e.preventDefault(); search(0, e.shiftKey); }
      if (e.key === "Enter" && e.target === replaceInput) { e.preventDefault(); search(2, false); }
    });
    api.on("searchresultselection", function (a) {
      var found; try { found = JSON.parse(a).searchResultSelection || []; } catch (e) { return; }
      UI.matches = found.length;
      findCount.textContent = T.matches(UI.matches);
      // Every match highlighted on the current part (the engine selects only one of them).
      var here = S.status && S.status.type !== "text" ? String(S.status.selectedPart) : null;
      var rects = [];
      found.forEach(function (m) {
        if (here !== null && m.part !== undefined && String(m.part) !== here) return;
        String(m.rectangles || "").split(";").forEach(function (t) {
          var n = t.split(",").map(Number);
          if (n.length >= 4 && !isNaN(n[0])) rects.push({ x: n[0], y: n[1], w: n[2], h: n[3] });
        });
      });
      api.marks("find", rects);
      if (rects[0]) api.reveal(rects[0]);
    });
    api.on("searchnotfound", function () { UI.matches = 0; findCount.textContent = T.noMatch; api.marks("find", []); });
    return findbar;
  }
  /** SvxSearchCmd: 0 find, 1 find all (highlights every match), 2 replace, 3 replace all. */
  function search(command, backward) {
    if (!findInput.value) return;
    var args = {
      "SearchItem.SearchString": arg("string", findInput.value),
      "SearchItem.ReplaceString": arg("string", replaceInput.value),
      "SearchItem.Backward": arg("boolean", !!backward),
      "SearchItem.Command": arg("long", command),
    };
    // Sent as is: finding is allowed in read-only views (the server lets find commands through).
    api.send("uno .uno:ExecuteSearch " + JSON.stringify(args));
  }
  function openFind(withReplace) {
    findbar.hidden = false;
    findbar.classList.toggle("with-replace", !!withReplace && !S.readOnly);
    (withReplace && !S.readOnly ? replaceInput : findInput).focus();
    findInput.select();
  }
  function closeFind() { findbar.hidden = true; findCount.textContent = ""; api.marks("find", []); api.focus(); }

  // ---- download and print
  var FORMATS = {
    text: ["docx", "odt", "pdf", "rtf", "txt", "html", "epub"],
    spreadsheet: ["xlsx", "ods", "pdf", "csv", "html"],
    presentation: ["pptx", "odp", "pdf"],
    drawing: ["odg", "pdf", "png"],
  };
  var wopiInfo = {};
  api.on("wopi", function (a) { try { wopiInfo = JSON.parse(a); } catch (e) { wopiInfo = {}; } applyWopi(); });
  var downloadPicker, printButton;
  function buildDownload() {
    downloadPicker = el("select", { "class": "tb-select", id: "download", "aria-label": T.download, title: T.download });
    downloadPicker.addEventListener("change", function () {
      var f = downloadPicker.value; downloadPicker.value = "";
      if (f) requestDownload(f, "export");
      api.focus();
    });
    printButton = button("print", T.print, I.print, { view: true, click: function () { requestDownload("pdf", "print"); } });
    return [downloadPicker, printButton];
  }
  function applyWopi() {
    if (!downloadPicker) return;
    downloadPicker.hidden = wopiInfo.HideExportOption === true || wopiInfo.DisableExport === true;
    printButton.hidden = wopiInfo.HidePrintOption === true || wopiInfo.DisablePrint === true || wopiInfo.DisableExport === true;
  }
  function fillDownload(type) {
    downloadPicker.innerHTML = "";
    downloadPicker.appendChild(el("option", { value: "", text: T.download + "…" }));
    (FORMATS[type] || []).forEach(function (f) { downloadPicker.appendChild(el("option", { value: f, text: f.toUpperCase() })); });
  }
  function requestDownload(format, purpose) {
    var name = (wopiInfo.BaseFileName || "document").replace(/\.[^.]*$/, "") + "." + format;
    api.send("downloadas name=" + encodeURIComponent(name) + " id=" + purpose + " format=" + format + " options=");
  }
  api.on("downloadas", function (a) {
    var m = /downloadid=([0-9a-f]+).*id=(\w+)/.exec(a);
    if (!m) return;
    var url = location.origin + "/ed/document/download/" + m[1];
    UI.lastDownload = { url: url, purpose: m[2] };
    if (m[2] === "print") {
      // The browser's PDF viewer prints it (a new tab: printing a PDF inside this frame is not portable).
      window.open(url + "?inline=1", "_blank", "noopener");
    } else {
      var a2 = el("a", { href: url, download: "" });
      document.body.appendChild(a2); a2.click(); a2.remove();
    }
  });
  api.on("error", function (a) { if (/cmd=downloadas/.test(a)) showNote(T.downloadFailed); });

  // ---- comments (the engine's own: listed from .uno:ViewAnnotations, changed with UNO commands)
  var commentsPanel = null;
  function buildComments() {
    commentsPanel = el("aside", { id: "comments", "aria-label": T.comments, hidden: "" });
    document.body.appendChild(commentsPanel);
    api.on("commandvalues", function (a) {
      var j; try { j = JSON.parse(a); } catch (e) { return; }
      if (j.comments) { UI.comments = j.comments; renderComments(); }
    });
    return [
      button(".uno:InsertAnnotation", T.addComment, I.comment, { click: function () {
        ask(T.addComment, [{ label: T.commentText }]).then(function (v) {
          if (v && v[0]) { run(".uno:InsertAnnotation", { Text: arg("string", v[0]) }); refreshComments(); }
        });
      } }),
      button("comments", T.comments, "&#128490;", { view: true, click: function () { commentsPanel.hidden = !commentsPanel.hidden; if (!commentsPanel.hidden) refreshComments(); } }),
    ];
  }
  /**
   * LibreOffice 7.4's own reply (.uno:ReplyComment) loses the reply's text: its answer window
   * overwrites it with a quote of the comment. A reply is therefore a new comment inserted with
   * the cursor at the comment's anchor, which the engine threads as its reply, naming whom it answers.
   */
  function replyTo(c, text) {
    toComment(c);
    run(".uno:InsertAnnotation", { Text: arg("string", "@" + (c.author || "") + ": " + text) });
  }
  /**
   * Puts the cursor at a comment's anchor. LibreOffice 7.4 resolves the comment last inserted or
   * edited, whatever the Id given: at its anchor, the cursor makes it the current one.
   */
  function toComment(c) {
    var r = String(c.anchorPos || "").split(",").map(Number);
    if (r.length < 4 || isNaN(r[0])) return;
    var at = " x=" + (r[0] + 1) + " y=" + (r[1] + Math.round(r[3] / 2)) + " count=1 buttons=1 modifier=0";
    api.send("mouse type=buttondown" + at);
    api.send("mouse type=buttonup" + at);
  }
  function refreshComments() { setTimeout(function () { api.send("commandvalues command=.uno:ViewAnnotations"); }, 300); }
  function renderComments() {
    commentsPanel.innerHTML = "";
    commentsPanel.appendChild(el("h2", { text: T.comments }));
    if (!UI.comments.length) commentsPanel.appendChild(el("p", { text: T.noComments }));
    UI.comments.forEach(function (c) {
      var act = function (cmd, label, extra) {
        return el("button", { type: "button", "class": "edit-only", text: label, on: { click: function () {
          if (cmd === ".uno:ReplyComment") {
            ask(T.reply, [{ label: T.commentText }]).then(function (v) { if (v && v[0]) { replyTo(c, v[0]); refreshComments(); } });
          } else { toComment(c); run(cmd, Object.assign({ Id: arg("string", String(c.id)) }, extra || {})); refreshComments(); }
        } } });
      };
      commentsPanel.appendChild(el("article", { "class": "comment" + (c.resolved === "true" ? " resolved" : ""), "data-id": String(c.id) }, [
        el("div", { "class": "comment-head", text: (c.author || "") + (c.resolved === "true" ? " · " + T.resolved : "") }),
        el("div", { "class": "comment-text", text: c.text || "" }),
        el("div", { "class": "comment-actions" }, [act(".uno:ReplyComment", T.reply), act(".uno:ResolveComment", T.resolve), act(".uno:DeleteComment", T.remove)]),
      ]));
    });
  }

  // ---- the engine's context menu on right click
  var menuEl = null;
  api.on("contextmenu", function (a) {
    var j; try { j = JSON.parse(a); } catch (e) { return; }
    closeMenu();
    if (!j.menu || !j.menu.length) return;
    menuEl = el("div", { id: "contextmenu", role: "menu", "aria-label": T.contextMenu });
    addMenuItems(menuEl, j.menu);
    document.body.appendChild(menuEl);
    var at = lastRightClick || { x: 40, y: 80 };
    menuEl.style.left = Math.min(at.x, window.innerWidth - menuEl.offsetWidth - 4) + "px";
    menuEl.style.top = Math.min(at.y, window.innerHeight - menuEl.offsetHeight - 4) + "px";
    var first = menuEl.querySelector("button:not([disabled])");
    if (first) first.focus();
  });
  function addMenuItems(box, items) {
    items.forEach(function (it) {
      if (it.type === "separator") { box.appendChild(el("div", { "class": "menu-sep", role: "separator" })); return; }
      var label = String(it.text || "").replace(/~/g, "");
      if (it.type === "menu") {
        var sub = el("div", { "class": "submenu", role: "menu", "aria-label": label });
        addMenuItems(sub, it.menu || []);
        box.appendChild(el("div", { "class": "menu-group" }, [el("button", { type: "button", role: "menuitem", "aria-haspopup": "true", text: label + " ▸" }), sub]));
        return;
      }
      if (!it.command) return;
      var b = el("button", { type: "button", role: "menuitem", text: label, "data-cmd": it.command });
      if (it.enabled === "false") b.disabled = true;
      if (it.checked === "true") b.setAttribute("aria-checked", "true");
      b.addEventListener("click", function () { closeMenu(); run(it.command); });
      box.appendChild(b);
    });
  }
  var lastRightClick = null;
  window.addEventListener("contextmenu", function (e) { lastRightClick = { x: e.clientX, y: e.clientY }; }, true);
  function closeMenu() { if (menuEl) { menuEl.remove(); menuEl = null; } }
  window.addEventListener("mousedown", function (e) { if (menuEl && !menuEl.contains(e.target)) closeMenu(); }, true);
  window.addEventListener("keydown", function (e) { if (menuEl && e.key === "Escape") { closeMenu(); api.focus(); } }, true);

  // ---- people in the document
  var people = el("div", { id: "people", role: "list", "aria-label": T.people });
  api.on("viewinfo", function (a) {
    var list; try { list = JSON.parse(a); } catch (e) { return; }
    people.innerHTML = "";
    list.forEach(function (v) {
      var name = v.username || v.userid || "?";
      var initials = name.split(/\s+/).filter(Boolean).slice(0, 2).map(function (w) { return w[0].toUpperCase(); }).join("");
      var title = name + (v.current ? " (" + T.you + ")" : "") + (v.readonly ? " — " + T.readonly : "");
      var chip = el("span", { "class": "person", role: "listitem", title: title, "aria-label": title, "data-view": String(v.viewid), text: initials });
      chip.style.background = api.viewColor(v.viewid);
      people.appendChild(chip);
    });
  });

  // ---- status bar
  var bar = {
    position: el("span", { id: "sb-position" }), count: el("span", { id: "sb-count" }),
    language: el("span", { id: "sb-language" }), save: el("span", { id: "sb-save", "aria-live": "polite" }),
  };
  var statusbar = el("div", { id: "statusbar", role: "status" }, [bar.position, bar.count, bar.language, bar.save, zoomLabel]);
  function numbers(v) { return (String(v).match(/\d[\d.,]*/g) || []).map(function (x) { return Number(x.replace(/[.,]/g, "")); }); }
  watch(".uno:StatePageNumber", function (v) { var n = numbers(v); if (n.length >= 2) bar.position.textContent = T.page(n[0], n[n.length - 1]); });
  watch(".uno:StateWordCount", function (v) { var n = numbers(v); if (n.length >= 2) bar.count.textContent = T.words(n[0], n[1]); });
  watch(".uno:StateTableCell", function (v) { bar.count.textContent = v; });
  watch(".uno:LanguageStatus", function (v) { bar.language.textContent = String(v).split(";")[0]; });
  var saveState = "";
  function showSave(s) { saveState = s; bar.save.textContent = s === "saving" ? T.saving : s === "saved" ? T.saved : s === "failed" ? T.notSaved : s === "unsaved" ? T.unsaved : ""; bar.save.dataset.state = s; }
  api.on("savesent", function () { showSave("saving"); });
  api.on("saveresult", function (a) {
    var r; try { r = JSON.parse(a); } catch (e) { return; }
    if (r.success) showSave(S.modified ? "unsaved" : "saved");
    else if (r.result !== "readonly") showSave("failed");
  });
  function partPosition(st) {
    if (st.type === "spreadsheet") bar.position.textContent = T.sheet(st.selectedPart + 1, st.parts);
    else if (st.type === "presentation" || st.type === "drawing") bar.position.textContent = T.slideOf(st.selectedPart + 1, st.parts);
  }

  var noteEl = null;
  function showNote(text) {
    if (!noteEl) { noteEl = el("div", { id: "note", role: "alert" }); document.body.appendChild(noteEl); }
    noteEl.textContent = text; noteEl.hidden = false;
    setTimeout(function () { noteEl.hidden = true; }, 5000);
  }

  // ---- engine state → controls
  function onState(a) {
    var cmd, value;
    if (a.charAt(0) === "{") {
      var j; try { j = JSON.parse(a); } catch (e) { return; }
      cmd = j.commandName; value = typeof j.state === "string" ? j.state : JSON.stringify(j.state);
    } else {
      var eq = a.indexOf("=");
      if (eq < 0) return;
      cmd = a.slice(0, eq); value = a.slice(eq + 1);
    }
    if (!cmd) return;
    if (cmd === ".uno:ModifiedStatus") { if (value === "true" && saveState !== "saving") showSave("unsaved"); else if (value === "false" && saveState) showSave("saved"); }
    state[cmd] = value;
    (watchers[cmd] || []).forEach(function (fn) { fn(value); });
  }
  api.on("statechanged", onState);

  function add(c) { ribbon.appendChild(c); }

  // ---- keyboard shortcuts of the interface (before the editor sends keys to the engine)
  window.addEventListener("keydown", function (e) {
    var mod = e.ctrlKey || e.metaKey;
    if (!mod || e.altKey) return;
    var k = e.key.toLowerCase(), handled = true;
    if (k === "f") openFind(false);
    else if (k === "h") openFind(true);
    else if (k === "=" || k === "+") zoomStep(1);
    else if (k === "-") zoomStep(-1);
    else if (k === "0") setZoomFactor(1);
    else if (k === "p") requestDownload("pdf", "print");
    else handled = false;
    if (handled) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);

  // ---- assembly, once the document's family is known
  var toolbar = $("toolbar");
  toolbar.after(ribbon);
  var findbarEl = buildFindBar();
  ribbon.after(findbarEl);
  document.body.appendChild(statusbar);
  api.on("firststatus", function (st) {
    if (!family) {
      family = st.type;
      document.body.classList.add("family-" + family);
      if (family === "text") buildText();
      else if (family === "spreadsheet") buildSheet();
      else if (family === "presentation" || family === "drawing") buildPresentation();
      add(sep());
      add(button("zoomout", T.zoomOut, I.zoomOut, { view: true, click: function () { zoomStep(-1); } }));
      add(button("zoomin", T.zoomIn, I.zoomIn, { view: true, click: function () { zoomStep(1); } }));
      add(button("fitwidth", T.fitWidth, I.fitWidth, { view: true, click: fitWidth }));
      add(button("fitpage", T.fitPage, I.fitPage, { view: true, click: fitPage }));
      add(sep());
      add(button("find", T.find, I.find, { view: true, click: function () { openFind(false); } }));
      if (family === "text") buildComments().forEach(add);
      buildDownload().forEach(add);
      fillDownload(family);
      applyWopi();
      toolbar.appendChild(people);
      showZoom();
      // A slide is shown whole, as in every presentation program (before the first tiles are asked).
      if (family === "presentation" || family === "drawing") fitPage();
    }
  });
  // The font list is long to make; asked once the first screen is painted, it does not delay it.
  api.on("firstpaint", function () { if (fontPicker) api.send("commandvalues command=.uno:CharFontName"); });
  api.on("status", function (a) {
    var st; try { st = JSON.parse(a); } catch (e) { return; }
    partPosition(st);
    if (slidePanel) renderSlidePanel(st);
    if (headers) askHeaders(0);
  });
  api.on("commandvalues", function (a) {
    var j; try { j = JSON.parse(a); } catch (e) { return; }
    if (j.commandName === ".uno:CharFontName" && j.commandValues && fontPicker) {
      var current = state[".uno:CharFontName"];
      setOptions(fontPicker, Object.keys(j.commandValues).sort(function (x, y) { return x.localeCompare(y); }), current);
    }
  });
})();
