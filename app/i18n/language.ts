// Which table a `lang` picks (its own module: api.js and the editor page take it without the tables).

export type Language = "en" | "vi";

/** Vietnamese for a `lang` of vi*, English otherwise. */
export function languageOf(lang: string | null | undefined): Language {
  return /^vi\b/i.test(lang ?? "") ? "vi" : "en";
}
