// The interface's texts that are formats (a number or two put into words), by language: code,
// so they travel in ui.js, while the interface's plain texts come with the page in its language
// only (page.ts, browser/interface/texts.ts). index.ts joins them to en.ts's and vi.ts's tables.

export const EN_UI_FORMATS = {
  tableColumnsRows: (c: number, r: number) => c + " × " + r + " table",
  matches: (n: number) => (n === 1 ? "1 match" : n + " matches"),
  page: (a: number, b: number) => "Page " + a + " of " + b,
  sheet: (a: number, b: number) => "Sheet " + a + " of " + b,
  slideOf: (a: number, b: number) => "Slide " + a + " of " + b,
  words: (w: number, c: number) => w + (w === 1 ? " word, " : " words, ") + c + (c === 1 ? " character" : " characters"),
};

export const VI_UI_FORMATS: typeof EN_UI_FORMATS = {
  tableColumnsRows: (c: number, r: number) => "Bảng " + c + " × " + r,
  matches: (n: number) => n + " kết quả",
  page: (a: number, b: number) => "Trang " + a + "/" + b,
  sheet: (a: number, b: number) => "Trang tính " + a + "/" + b,
  slideOf: (a: number, b: number) => "Trang chiếu " + a + "/" + b,
  words: (w: number, c: number) => w + " từ, " + c + " ký tự",
};
