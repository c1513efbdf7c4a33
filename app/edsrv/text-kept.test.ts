// A .txt opened in the editor and saved comes back in its own encoding, with its byte order mark
// or without one, with its own line ends (issue 46): LibreOffice's text export alone writes UTF-8
// with a mark and "\n", so a file that had no mark came back three bytes longer.

import { describe, expect, test } from "bun:test";
import { TYPED } from "./testing/corpus-roundtrip";
import { roundTripWorld } from "./testing/round-trip-world";
import { scaled } from "../testing/until";

const world = roundTripWorld("edsrv-text");
let seq = 0;

const utf16le = (s: string) => new Uint8Array(Buffer.from(s, "utf16le"));
const bytesOf = (...parts: (string | Uint8Array)[]) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p)))));

// The editor types TYPED as a paragraph of its own after the last one.
const CASES: { name: string; original: Uint8Array; expected: Uint8Array }[] = [
  {
    name: "UTF-8 without a mark, CRLF, no final line end",
    original: bytesOf("Hợp đồng số 12\r\nBên A: Công ty Lâm"),
    expected: bytesOf("Hợp đồng số 12\r\nBên A: Công ty Lâm\r\n", TYPED),
  },
  {
    name: "ASCII without a mark, LF, a final line end",
    original: bytesOf("line one\nline two\n"),
    expected: bytesOf("line one\nline two\n", TYPED, "\n"),
  },
  {
    name: "UTF-8 with a mark",
    original: bytesOf(new Uint8Array([0xef, 0xbb, 0xbf]), "Giá: 5.000 đ\n"),
    expected: bytesOf(new Uint8Array([0xef, 0xbb, 0xbf]), "Giá: 5.000 đ\n", TYPED, "\n"),
  },
  {
    name: "UTF-16LE with a mark",
    original: utf16le("\uFEFFŽluťoučký kůň\r\n"),
    expected: utf16le(`\uFEFFŽluťoučký kůň\r\n${TYPED}\r\n`),
  },
];

describe("a text file keeps its encoding, its byte order mark or lack of one, and its line ends", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const { stored } = await world.roundTrip(`txt${++seq}`, `note${seq}.txt`, c.original);
      // Compared as hex: a difference shows where.
      expect(Buffer.from(stored).toString("hex")).toBe(Buffer.from(c.expected).toString("hex"));
    }, scaled(60_000));
  }
});
