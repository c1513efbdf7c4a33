// A small document costs what it is (issue 44 item 5): the engine time a conversion or an
// extraction may take grows with the document sent, within the edition's job time. Seen: the
// thumbnail of a 112 KB xlsx with 20,000 conditional formats and a 1.9 KB xlsx of slow formulas
// each held a worker (community: the only slot) for the whole 60 s before 504. What makes a small
// file slow has no end of forms (conditional formats whose formulas run on every painted cell,
// formulas without a cached result that read a whole column, and the ones nobody has found yet),
// so the bound is on the time, not on each form: a budget of BASE_MS plus PER_MIB_MS for every
// MiB of the file and UNPACKED_PER_MIB_MS for every MiB its package declares unpacked (what the
// engine parses). Past it, the worker is ended like at any timeout and the answer is the spec's
// 504 `timeout`, with detail.reason "document_budget" saying it was the document's own budget.
//
// Measured on this machine kind (LibreOffice 25.2, 2 cores), the corpus's slowest files against
// their budgets (app/docbuilder/document-budget.test.ts): a 2.4 MB xlsx of 300,000 lines to pdf
// 48 s (budget past the 60 s job time), War and Peace (3.1 MB of text) 19 s to pdf and 11 s for
// its thumbnail (past 60 s), a 356 KB odt unpacking to 7.4 MB 20 s to pdf (budget 46 s), an 872-page
// docx 7 s. The two seen above now end after about 31 s instead of 60 s. The budget holds
// for synchronous and asynchronous requests alike: a document over it needs more than twice what
// the corpus's slowest documents of its size need.

// First set at 20 s + 15 s/MiB + 3 s/MiB: in the full suite on 2 cores (two test files at once,
// kits and Chromium beside), a 715 KB odp of the corpus took more than its 35 s and was refused;
// the constants below leave such a document its whole job time and end a tiny one at about 30 s.

import { stat } from "node:fs/promises";
import { ServiceError } from "../errors";
import { zipEntries } from "../zip-guard";

/** What any document may take, however small: a load, a layout, a first page. */
export const BASE_MS = 30_000;
/** More for each MiB sent. */
export const PER_MIB_MS = 40_000;
/** More for each MiB a package unpacks to. */
export const UNPACKED_PER_MIB_MS = 5_000;

const MIB = 1024 * 1024;

export interface DocumentSize {
  bytes: number;
  /** What a zip package's parts declare unpacked; the file's own size otherwise. */
  unpacked: number;
}

/** The file's size and, for a zip package, what its central directory declares unpacked. */
export async function documentSize(file: string): Promise<DocumentSize> {
  const bytes = (await stat(file)).size;
  const entries = await zipEntries(file).catch(() => null);
  const unpacked = entries ? entries.reduce((n, e) => n + e.uncompressedSize, 0) : bytes;
  return { bytes, unpacked };
}

/** The engine time a document of this size may take. */
export function documentBudgetMs(size: DocumentSize): number {
  return Math.round(BASE_MS + (size.bytes / MIB) * PER_MIB_MS + (size.unpacked / MIB) * UNPACKED_PER_MIB_MS);
}

/** The 504 of a run ended by its document's budget (not by the edition's job time). */
export function budgetTimeout(size: DocumentSize, budgetMs: number): ServiceError {
  return new ServiceError(
    "timeout",
    `Tài liệu ${Math.ceil(size.bytes / 1024)} KB đã dùng hết ${Math.round(budgetMs / 1000)} giây xử lý dành cho một tài liệu cỡ này (công thức, định dạng có điều kiện hoặc nội dung tốn kém bất thường so với kích thước): hãy đơn giản hóa tài liệu (ví dụ lưu kèm kết quả công thức, bớt định dạng có điều kiện) rồi gửi lại.`,
    { reason: "document_budget", budget_seconds: Math.round(budgetMs / 1000), size_bytes: size.bytes, unpacked_bytes: size.unpacked },
  );
}

/**
 * The run options of a request on this document: the shorter of the edition's running time and
 * the document's budget, and the error that says which one ended it.
 */
export function budgeted(runTimeoutMs: number, size: DocumentSize): { runTimeoutMs: number; timeoutError?: () => ServiceError } {
  const budget = documentBudgetMs(size);
  if (budget >= runTimeoutMs) return { runTimeoutMs };
  return { runTimeoutMs: budget, timeoutError: () => budgetTimeout(size, budget) };
}
