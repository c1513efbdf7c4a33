// LibreOffice's strings as the page shows them. In a Vietnamese page, what LibreOffice's own vi
// translation leaves in English or gets wrong comes from svc's reviewed overlay
// (app/i18n/vi-office.ts), the accelerator letters that translation appends ("Huỷ (C)",
// "Sau văn bản (T):") are dropped (the page has no mnemonics), and an extended tip still in
// English is not shown. An English page shows LibreOffice's text as it is.

const vietnamese = document.documentElement.lang === "vi";

/** The overlay, which a Vietnamese page carries as data (app/edsrv/page.ts): English and wrong Vietnamese → Vietnamese. */
const OVERLAY: Readonly<Record<string, string>> = vietnamese ? JSON.parse(document.getElementById("office-texts")?.textContent || "{}") : {};

/** " (T)" before an optional ":" or "…" at the end of a Vietnamese label. */
const ACCELERATOR = /\s\([A-Z0-9]\)(?=\s*(?::|…|\.\.\.)?\s*$)/;

function overlay(t: string): string {
  const found = OVERLAY[t];
  if (found !== undefined) return found;
  // The same label with or without its trailing ":" or "...".
  const m = /^(.*?)(:|\.\.\.|…)$/.exec(t);
  if (m) {
    const base = OVERLAY[m[1]!];
    if (base !== undefined) return base + (m[2] === ":" ? ":" : "…");
  }
  return t.replace(ACCELERATOR, "");
}

/** A label, title or list entry of LibreOffice's, without its mnemonic marks ("~Before text:" → "Before text:"), in the page's language. */
export function officeText(t: string | undefined): string {
  const plain = (t || "").replace(/~/g, "");
  return vietnamese && plain ? overlay(plain.trim()) : plain;
}

/** An extended tip of LibreOffice's: in a Vietnamese page, none rather than an English one (ASCII only, three words or more). */
export function officeTip(t: string | undefined): string {
  const text = officeText(t);
  return vietnamese && !/[^\x00-\x7f]/.test(text) && text.split(/\s+/).length >= 3 ? "" : text;
}
