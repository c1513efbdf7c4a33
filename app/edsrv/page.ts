// The editor page ed.html (Collabora's cool.html): GET or POST, form fields access_token,
// access_token_ttl (Unix ms of expiry, 0 = none), ui_defaults, css_variables, postmessage_origin; query WOPISrc,
// lang, closebutton (read by the page script). The token is embedded in the page as a data attribute
// of <html>, never in a URL the browser shows. The CSP's frame-ancestors holds
// SVC_ONLINE_FRAME_ANCESTORS, SVC_EMBED_ALLOWED_ORIGINS, this server's host and the WOPI host.

import type { Config } from "../config";
import { matchGroup, type AliasGroup } from "../alias-groups";
import type { BrowserClient } from "./browser-bundle";
import { wopiAuthFrom } from "./wopi-client";
import { languageOf, TEXTS, type Language } from "../i18n";
import { VI_OFFICE, VI_OFFICE_FIXES } from "../i18n/vi-office";

const html = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** Collabora's uiDefaultsToJSON: "UIMode=classic;TextRuler=false;UITheme=dark" → JSON. */
export function uiDefaultsToJson(value: string): Record<string, unknown> {
  const out: Record<string, any> = {};
  const components: Record<string, string> = { Text: "text", Spreadsheet: "spreadsheet", Presentation: "presentation", Drawing: "drawing" };
  for (const item of value.split(";")) {
    const eq = item.indexOf("=");
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim(), val = item.slice(eq + 1).trim();
    const bool = ["false", "False", "0"].includes(val) ? "false" : "true";
    if (key === "UIMode") out.uiMode = ["tabbed", "notebookbar"].includes(val) ? "notebookbar" : "classic";
    else if (key === "UITheme") out.darkTheme = val === "dark" ? "true" : "false";
    else if (key === "SavedUIState") out.savedUIState = bool;
    else if (key === "SaveAsMode") out.saveAsMode = val;
    else if (key === "TouchscreenHint" || key === "OnscreenKeyboardHint") out[key[0]!.toLowerCase() + key.slice(1)] = val;
    else {
      const m = /^(Text|Spreadsheet|Presentation|Drawing)(Ruler|Sidebar|Statusbar|Toolbar)$/.exec(key);
      if (m) (out[components[m[1]!]!] ??= {})[`Show${m[2]}`] = bool;
    }
  }
  return out;
}

/**
 * Collabora's form field `css_variables` ("--co-primary-element=#0082c9;--co-primary-text=#fff;…",
 * as Nextcloud's connector sends its theme) → a <style> of those CSS variables on :root, which the
 * editor's styles use (ed.css). As Collabora's FileServer does, only `--co-` names are taken; the
 * values are limited to what a colour, a length or a font name needs, so that nothing the host
 * sends can close the <style> or reach outside it. ":" is taken as well as "=".
 */
export function cssVariablesStyle(value: string): string {
  const declarations: string[] = [];
  for (const item of value.split(";").slice(0, 64)) {
    const m = /^\s*(--co-[a-z0-9-]{1,64})\s*[=:]\s*([#a-zA-Z0-9 .,%()'-]{1,120})\s*$/.exec(item);
    if (m) declarations.push(`${m[1]}:${m[2]}`);
  }
  return declarations.length ? `<style>:root{${declarations.join(";")}}</style>` : "";
}

/** `connectCspSource`: the hash of connect.js, inlined in the page's <head>, which opens the document socket before anything else of the page is fetched. */
export function cspFor(config: Config, requestHost: string, wopiSrc: string | null, connectCspSource: string): string {
  const ancestors = new Set<string>();
  for (const a of config.online.frameAncestors.split(/[\s,]+/).filter(Boolean)) ancestors.add(a);
  // Pages allowed to create embed sessions are the ones that frame the editor: one list to keep.
  for (const a of config.embed.allowedOrigins) ancestors.add(a === "*" ? "*" : a.replace(/\/+$/, ""));
  const own = (config.online.serverName || requestHost).replace(/^https?:\/\//, "").replace(/\/.*$/, "").replace(/:\d+$/, "");
  if (own) ancestors.add(`${own}:*`);
  // The people list's avatars (CheckFileInfo's UserExtraInfo.avatar) load from the WOPI host's own
  // origin only (a Nextcloud's /avatar/…), or come as data: URLs: no other origin gets an image request.
  let hostOrigin = "";
  if (wopiSrc) {
    try {
      const u = new URL(wopiSrc);
      ancestors.add(`${u.hostname}:*`);
      if (u.protocol === "http:" || u.protocol === "https:") hostOrigin = " " + u.origin;
    } catch {
      // not a URL: nothing to add
    }
  }
  return [
    "default-src 'none'",
    `script-src 'self' ${connectCspSource}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${hostOrigin}`,
    "connect-src 'self' ws: wss:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${[...ancestors].join(" ")}`,
  ].join("; ");
}

/**
 * What the page says while it opens and when it cannot, and its top bar, in the page's language
 * (the `lang` parameter: Vietnamese for vi*, English otherwise), from the one language table
 * (app/i18n). The script reads the failure texts from data-text-* attributes.
 */
const PAGE_TEXTS = { en: TEXTS.en.page, vi: TEXTS.vi.page };

/** The interface's texts (app/i18n, `ui`) of each language as a JSON block the page reads (interface/texts.ts). */
const uiTextsScript = (() => {
  const scripts = new Map<Language, string>();
  return (language: Language) => {
    let script = scripts.get(language);
    if (!script) scripts.set(language, (script = `<script type="application/json" id="ui-texts">${JSON.stringify(TEXTS[language].ui).replace(/</g, "\\u003c")}</script>\n`));
    return script;
  };
})();

/**
 * LibreOffice's strings that its Vietnamese translation lacks or gets wrong, with svc's Vietnamese
 * (app/i18n/vi-office.ts), as data in a Vietnamese page only (the page's interface reads it:
 * browser/editor/office-text.ts); an English page, and ui.js, carry none of it. A JSON
 * script is not run, so the page's CSP needs nothing for it.
 */
const officeTextsScript = (() => {
  let script: string | null = null;
  return () => (script ??= `<script type="application/json" id="office-texts">${JSON.stringify({ ...VI_OFFICE, ...VI_OFFICE_FIXES }).replace(/</g, "\\u003c")}</script>\n`);
})();


/**
 * The opening indicator's look, inline in the page: shown from the first frame, before ed.css and
 * ui.css arrive (they follow it in the body, so they hold back only what comes after them).
 */
const LOADING_STYLE = "#loading{position:fixed;top:45%;left:50%;transform:translate(-50%,-50%);display:flex;gap:10px;align-items:center;max-width:80%;padding:12px 18px;background:#fff;border:1px solid #ccc;border-radius:6px;box-shadow:0 2px 8px rgba(0,0,0,.15);z-index:10;font:14px system-ui,sans-serif}"
  + "#loading[hidden]{display:none}#loading .spinner{flex:none;width:18px;height:18px;border:3px solid #ccd;border-top-color:#1a5fb4;border-radius:50%;animation:spin .8s linear infinite}"
  + "@keyframes spin{to{transform:rotate(360deg)}}@media (prefers-reduced-motion:reduce){#loading .spinner{animation-duration:3s}}";
/** The page's language: Vietnamese for a `lang` of vi*, English otherwise. */
const pageLanguage = (lang: string | null): Language => languageOf(lang);

export interface PageInput {
  form: Record<string, string>;
  query: URLSearchParams;
  requestHost: string;
}

export type PageResult = { status: 200 | 403; headers: Record<string, string>; body: string };

export function renderPage(config: Config, groups: AliasGroup[], client: Pick<BrowserClient, "connectScript" | "connectCspSource">, input: PageInput): PageResult {
  const wopiSrc = input.query.get("WOPISrc") ?? input.form.WOPISrc ?? null;
  const headers: Record<string, string> = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": cspFor(config, input.requestHost, wopiSrc, client.connectCspSource),
  };
  if (!wopiSrc || !matchGroup(groups, wopiSrc)) {
    return {
      status: 403,
      headers,
      body: '<!doctype html><html><head><meta charset="utf-8"><title>Unauthorized WOPI host</title></head><body><h1>Unauthorized WOPI host</h1><p>This document cannot be opened: its storage host is not allowed on this editing server.</p></body></html>',
    };
  }
  const auth = wopiAuthFrom((k) => input.form[k]);
  const ui = uiDefaultsToJson(input.form.ui_defaults ?? "");
  // What connect.js needs to open the socket, on <html>: it runs before <body> is parsed.
  const connection: Record<string, string> = {
    "access-token": auth.token,
    "access-token-ttl": auth.ttl,
    "no-auth-header": auth.noAuthHeader ? "1" : "0",
  };
  const data: Record<string, string> = {
    "ui-defaults": Buffer.from(JSON.stringify(ui)).toString("base64"),
    "postmessage-origin": input.form.postmessage_origin ?? "",
    "frame-ancestors": config.online.frameAncestors,
  };
  const language = pageLanguage(input.query.get("lang"));
  const texts = PAGE_TEXTS[language];
  // In kebab case: HTML lowers an attribute's name, so `data-text-notSaved` would be read back as
  // dataset.textNotsaved; `data-text-not-saved` is dataset.textNotSaved, the name the script uses.
  for (const [k, v] of Object.entries(texts)) data[`text-${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}`] = v;
  const dataAttrs = (d: Record<string, string>) => Object.entries(d).map(([k, v]) => `data-${k}="${html(v)}"`).join(" ");
  const attrs = dataAttrs(data);
  const body = `<!doctype html>
<html lang="${language}" ${dataAttrs(connection)}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(texts.title)}</title>
<script>${client.connectScript}</script>
<style>${LOADING_STYLE}</style>
</head>
<body ${attrs}>
<div id="loading" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span><span id="loading-text">${html(texts.opening)}</span></div>
<link rel="stylesheet" href="ed.css">
<link rel="stylesheet" href="ui.css">
${cssVariablesStyle(input.form.css_variables ?? "")}
<div id="toolbar"><span id="docname"></span><span id="modified" hidden title="${html(texts.modified)}">&#9679;</span><span id="state"></span><button id="undo" class="tb" type="button" title="${html(texts.undo)} (Ctrl+Z)" aria-label="${html(texts.undo)}" data-icon="undo"><img src="icons/lc_undo.svg" alt="" width="24" height="24"></button><button id="redo" class="tb" type="button" title="${html(texts.redo)} (Ctrl+Y)" aria-label="${html(texts.redo)}" data-icon="redo"><img src="icons/lc_redo.svg" alt="" width="24" height="24"></button><button id="save" class="tb" type="button" title="${html(texts.save)} (Ctrl+S)" aria-label="${html(texts.save)}" data-icon="save"><img src="icons/lc_save.svg" alt="" width="24" height="24"></button><button id="close" class="tb" type="button" title="${html(texts.close)}" aria-label="${html(texts.close)}" data-icon="closedoc" hidden><img src="icons/lc_closedoc.svg" alt="" width="24" height="24"></button></div>
<div id="message" hidden></div>
<div id="viewport" tabindex="-1"><div id="sizer"><canvas id="canvas"></canvas><div id="overlays"><div id="selection"></div><div id="cellcursor" hidden></div><div id="cursor" hidden></div></div></div><textarea id="ime" autocomplete="off" autocapitalize="off" spellcheck="false"></textarea></div>
<div id="parts" role="tablist" hidden></div>
${uiTextsScript(language)}${language === "vi" ? officeTextsScript() : ""}<script src="ed.js"></script>
<script src="ui.js"></script>
</body>
</html>
`;
  return { status: 200, headers, body };
}
