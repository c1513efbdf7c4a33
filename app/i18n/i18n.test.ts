// The one language table (issue 23): every language has exactly the English table's keys, each a
// non-empty text (or a function where English has one), and the Vietnamese table is Vietnamese.
import { describe, expect, test } from "bun:test";
import { languageOf, TEXTS } from "./index";

/** Every key path of a table, with the kind of its value. */
function shape(t: unknown, at = ""): string[] {
  if (typeof t !== "object" || t === null) return [`${at}:${typeof t}`];
  return Object.entries(t).flatMap(([k, v]) => shape(v, at ? `${at}.${k}` : k)).sort();
}
function texts(t: unknown): string[] {
  if (typeof t === "string") return [t];
  if (typeof t === "function") return [String((t as (...a: unknown[]) => string)(1, 2))];
  return Object.values(t as object).flatMap(texts);
}

describe("the language table", () => {
  test("the word count says one word and one character in the singular (not \"1 words\")", () => {
    expect(TEXTS.en.ui.words(1, 1)).toBe("1 word, 1 character");
    expect(TEXTS.en.ui.words(2, 11)).toBe("2 words, 11 characters");
    expect(TEXTS.en.ui.words(0, 0)).toBe("0 words, 0 characters");
    expect(TEXTS.vi.ui.words(1, 1)).toBe("1 từ, 1 ký tự");
  });

  test("every language has the same keys as English, with the same kinds of value", () => {
    const en = shape(TEXTS.en);
    for (const [lang, table] of Object.entries(TEXTS)) expect({ lang, keys: shape(table) }).toEqual({ lang, keys: en });
    expect(en.length).toBeGreaterThan(200);
  });

  test("no text is empty, and a Vietnamese text differs from its English one unless it is a name", () => {
    for (const table of Object.values(TEXTS)) expect(texts(table).filter((s) => !s.trim())).toEqual([]);
    const en = texts(TEXTS.en), vi = texts(TEXTS.vi);
    // Same in both: the product's and formats' names, symbols, numbers.
    const same = en.filter((s, i) => s === vi[i] && /[a-z]{4}/.test(s) && !/^\(POST|^\(callback_history|^[A-Z]\w+( \(\w+\))?$|SVC_/.test(s));
    expect(same).toEqual([]);
  });

  test("a lang of vi* is Vietnamese, anything else English", () => {
    expect(["vi", "vi-VN", "VI"].map(languageOf)).toEqual(["vi", "vi", "vi"]);
    expect(["en", "en-US", "de", "", null, undefined, "video"].map(languageOf)).toEqual(["en", "en", "en", "en", "en", "en", "en"]);
  });
});
