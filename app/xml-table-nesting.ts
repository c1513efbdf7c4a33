// How deep tables nest in a package's XML, read as the parts inflate (app/zip-guard.ts feeds it,
// beside the entity declarations of xml-entities.ts): a document of tables nested past
// MAX_TABLE_NESTING is refused before the engine lays it out.

import { ServiceError } from "./errors";

/**
 * The most tables a document may nest one inside another's cell. The engine's layout cost grows
 * far faster than the depth: a docx of one table nested 100 deep converted in 0.3 s, 200 deep in
 * 6.6 s (LibreOffice 7.4, measured; the xml is a few KB), and a few more levels multiply it again,
 * with nothing to show for it. A real document nests a few levels; 50 is far past any of the
 * corpus's.
 */
export const MAX_TABLE_NESTING = 50;

/**
 * Counts how deep tables nest in an XML part, chunk by chunk: Word's <w:tbl> and ODF's
 * <table:table> (any prefix), each closed by its end tag; refuses the part (422 corrupt_source,
 * table_nesting) at the first table past MAX_TABLE_NESTING. Only tags are read (no parser): a
 * tag split between two chunks is carried over to the next.
 */
export class TableNesting {
  private depth = 0;
  private carry: Buffer = Buffer.alloc(0);
  constructor(private readonly part: string, private readonly max = MAX_TABLE_NESTING) {}

  feed(chunk: Buffer): void {
    let text = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    // An unfinished tag at the end waits for the next chunk (bounded: a table tag is short).
    const open = text.lastIndexOf(0x3c);
    if (open >= 0 && text.indexOf(0x3e, open) < 0 && text.length - open < 4096) {
      this.carry = Buffer.from(text.subarray(open));
      text = text.subarray(0, open);
    } else this.carry = Buffer.alloc(0);
    // The local names are looked for in the bytes (native search), each followed by what may end
    // a tag name, and a tag read only where one is: a regular expression tried at every "<", or a
    // look at every "table" of an ODF sheet (table:table-cell…), cost 5-150 ms on a large document.
    const events: [number, 1 | -1][] = [];
    for (const needle of TABLE_NEEDLES) {
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
        const tag = tableTagAt(text, at, at + (needle[0] === 0x74 && needle[1] === 0x62 ? 3 : 5));
        if (tag) events.push([at, tag === "open" ? 1 : -1]);
      }
    }
    events.sort((x, y) => x[0] - y[0]);
    for (const [, step] of events) {
      this.depth = Math.max(0, this.depth + step);
      if (this.depth > this.max) throw tooDeep(this.part, this.max);
    }
  }
}

/** Word's tbl and ODF's table, each followed by a character that ends a tag name. */
const TABLE_NEEDLES = ["tbl", "table ", "table>", "table\n", "table\t", "table\r"].map((n) => Buffer.from(n, "latin1"));

const isNameChar = (c: number | undefined) => c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d);
const isTagEnd = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x3e || c === 0x2f;

/** Whether the local name found at [at, end) is a table element's start tag, end tag, or neither (self-closing: neither). */
function tableTagAt(text: Buffer, at: number, end: number): "open" | "close" | null {
  if (end >= text.length || !isTagEnd(text[end])) return null;
  let i = at - 1;
  if (text[i] === 0x3a) {
    // a prefix: "w:", "table:", "t:"…
    i--;
    while (i >= 0 && isNameChar(text[i])) i--;
  }
  const before = text[i];
  if (before === 0x2f && text[i - 1] === 0x3c) return "close";
  if (before !== 0x3c) return null;
  const gt = text.indexOf(0x3e, end);
  return gt > 0 && text[gt - 1] === 0x2f ? null : "open";
}

function tooDeep(part: string, max: number): ServiceError {
  return new ServiceError(
    "corrupt_source",
    `Tệp nguồn có bảng lồng trong bảng quá ${max} tầng (phần ${part}): bộ xử lý tài liệu tốn thời gian tăng vọt theo mỗi tầng lồng mà không hiển thị thêm gì; hãy bỏ bớt các bảng lồng nhau (đưa nội dung của bảng con ra ngoài bảng cha) rồi gửi lại tệp.`,
    { reason: "table_nesting", part, limit_depth: max },
  );
}
