// Entity declarations in a package's XML parts ("billion laughs", issue 44 item 5). An XML part
// may open with a DOCTYPE whose internal subset declares entities; an entity whose value names
// other entities multiplies at every level, so a few hundred bytes expand to gigabytes while the
// engine parses. A 4.6 KB docx whose SVG picture nested such declarations held a worker for the
// whole 60 s job time. The XML budget (zip-guard.ts) judges sizes and ratios, which such a part
// passes: only its declarations tell. Every XML part of a package is read here, the pictures
// (word/media/*.svg, Pictures/*.svg) included, since they are known by their first bytes.
//
// OOXML and ODF parts never declare entities; SVG pictures sometimes do, harmlessly: Adobe
// Illustrator names its namespaces with short literal entities (<!ENTITY ns_svg "http://…">).
// So what is refused is what can cost or read, not every declaration:
// - an entity whose value refers to another entity ("&" or "%" in it): the amplification;
// - a parameter entity (<!ENTITY % …>), which can build declarations out of others;
// - an external entity (SYSTEM or PUBLIC): its value is another file, read at parse time;
// - a literal value past MAX_ENTITY_VALUE, or more than MAX_ENTITIES declarations in one part:
//   a large value referred to many times grows quadratically without any nesting.
// What passes expands at most MAX_ENTITY_VALUE bytes per reference, and the references are
// themselves bytes of the part the XML budget has bounded.

import { ServiceError } from "./errors";

/** Longest literal value an entity may have: Illustrator's namespace URIs are under 80 bytes. */
export const MAX_ENTITY_VALUE = 1024;
/** Most entity declarations one part may hold: Illustrator declares about a dozen. */
export const MAX_ENTITIES = 64;

const NEEDLE = Buffer.from("<!ENTITY", "latin1");
/** How much of an unfinished declaration waits for the next chunk before it counts as too long. */
const MAX_DECLARATION = MAX_ENTITY_VALUE + 512;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Reads one XML part chunk by chunk and refuses it (422 corrupt_source, xml_entities) at the
 * first entity declaration that can amplify or read a file. Only the bytes of "<!ENTITY" are
 * looked for (native search), so a part without any costs one scan.
 */
export class EntityDeclarations {
  private count = 0;
  private carry: Buffer = Buffer.alloc(0);
  constructor(private readonly part: string) {}

  feed(chunk: Buffer): void {
    const text = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    let at = text.indexOf(NEEDLE);
    while (at >= 0) {
      const end = this.declaration(text, at);
      if (end === null) {
        // Unfinished: the rest waits for the next chunk (a declaration is short, or refused).
        if (text.length - at > MAX_DECLARATION) throw refusal(this.part, "a declaration longer than a harmless one can be");
        this.carry = Buffer.from(text.subarray(at));
        return;
      }
      at = text.indexOf(NEEDLE, end);
    }
    // The needle itself may fall across two chunks.
    this.carry = Buffer.from(text.subarray(Math.max(0, text.length - (NEEDLE.length - 1))));
  }

  /** Judges the declaration starting at `at`; where it ends, or null when the text stops first. */
  private declaration(text: Buffer, at: number): number | null {
    let i = at + NEEDLE.length;
    const skip = () => {
      while (i < text.length && isSpace(text[i])) i++;
    };
    skip();
    if (i >= text.length) return null;
    if (text[i] === 0x25) throw refusal(this.part, "a parameter entity (<!ENTITY % …>)");
    while (i < text.length && !isSpace(text[i]) && text[i] !== 0x22 && text[i] !== 0x27) i++; // the name
    skip();
    if (i >= text.length) return null;
    const q = text[i]!;
    if (q !== 0x22 && q !== 0x27) throw refusal(this.part, "an external entity (SYSTEM or PUBLIC: its value is another file)");
    const close = text.indexOf(q, i + 1);
    if (close < 0) return null;
    const value = text.subarray(i + 1, close);
    if (value.length > MAX_ENTITY_VALUE) throw refusal(this.part, `an entity value of ${value.length} bytes (at most ${MAX_ENTITY_VALUE})`);
    if (value.includes(0x26) || value.includes(0x25)) throw refusal(this.part, "an entity whose value refers to other entities (the expansion multiplies at each level)");
    if (++this.count > MAX_ENTITIES) throw refusal(this.part, `more than ${MAX_ENTITIES} entity declarations`);
    return close + 1;
  }
}

function refusal(part: string, what: string): ServiceError {
  return new ServiceError(
    "corrupt_source",
    `Tệp nguồn có phần XML ${part} khai báo thực thể (DOCTYPE/ENTITY) có thể nhân lên thành hàng GB khi đọc hoặc đọc tệp khác (${what}): tài liệu văn phòng thật không cần như vậy; hãy lưu lại hình (SVG) hoặc tài liệu bằng ứng dụng khác rồi gửi tệp mới.`,
    { reason: "xml_entities", part, found: what },
  );
}
