// The documents bench:build and bench:event-loop build and fill, so that both measure the same
// work: a 10-page report in svcscript, and the 1,000-row data for fixtures/templates/invoice.docx.
import path from "node:path";

export const INVOICE_TEMPLATE = path.resolve(import.meta.dir, "../fixtures/templates/invoice.docx");

export const INVOICE_DATA = {
  number: "HD-1",
  date: "22/11/2026",
  customer: { name: "Công ty Ánh Dương", address: "Hà Nội" },
  items: Array.from({ length: 1000 }, (_, i) => ({ name: `Mặt hàng ${i + 1}`, qty: i + 1, price: "10.000" })),
  total: "10.000.000",
};

/** A 10-page report: headings, paragraphs, a 200-row table (no `outputs`: the caller names them). */
export function reportScript() {
  const body: unknown[] = [];
  for (let chapter = 1; chapter <= 8; chapter++) {
    body.push({ type: "heading", level: 1, text: `Chương ${chapter}: Kết quả hoạt động` });
    for (let p = 0; p < 6; p++) {
      body.push({ type: "paragraph", runs: [{ text: "Doanh thu quý tăng trưởng ổn định; ", bold: true }, { text: "chi phí vận hành giảm nhờ tự động hóa quy trình. ".repeat(6) }] });
    }
  }
  body.push({
    type: "table",
    columns: [30, 60, 30, 40],
    header: ["Mã", "Sản phẩm", "Số lượng", "Thành tiền"],
    rows: Array.from({ length: 200 }, (_, i) => [`SP${i + 1}`, `Sản phẩm số ${i + 1}`, String(10 + i), `${(i + 1) * 12500}`]),
  });
  return { type: "text", properties: { title: "Báo cáo 10 trang" }, body };
}
