// HTML pasted into a document names its pictures and styles by URL, and LibreOffice's HTML import
// reads what they name: a `file:` URL (or a relative one, resolved against the kit's folder) would
// put any readable picture of the server's disk into the document. The engines make no network
// request (profile.ts), but local files are not the network. So a pasted page keeps only what it
// carries itself: pictures as `data:image/…`, and links only to the targets `.uno:SetHyperlink`
// allows (web pages, mail, phone numbers, anchors: isAllowedLinkTarget, the one rule).

import { isAllowedLinkTarget } from "../app/edsrv/protocol/uno-commands";

/** Attributes that name something LibreOffice may load or follow. */
const URL_ATTRIBUTES = /([\s/](?:src|href|background|lowsrc|dynsrc|data|poster|action|srcset|longdesc|usemap|codebase|cite|xlink:href)\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)/gi;
/** What a picture, a stylesheet or another resource in pasted HTML may be loaded from: its own content, or the web (which the engines cannot reach). */
const ALLOWED_RESOURCE = /^(data:image\/(png|jpeg|gif|webp|bmp);|https?:\/\/)/i;
/** Attributes that are a link's target: what `.uno:SetHyperlink` allows, the one rule (app/edsrv/protocol/uno-commands.ts). */
const LINK_ATTRIBUTES = /^[\s/](?:href|xlink:href)\s*=\s*$/i;

/** Decodes the character references a URL could hide its scheme behind (`file&#58;`, `&colon;`). */
function decodeReferences(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&colon;/gi, ":")
    .replace(/&tab;|&newline;/gi, "");
}

function allowed(raw: string, link = false): boolean {
  // Browsers and importers skip whitespace and control characters inside a scheme ("fi\tle:").
  const value = decodeReferences(raw.replace(/^["']|["']$/g, "")).replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  return link ? isAllowedLinkTarget(value) : ALLOWED_RESOURCE.test(value);
}

/** The pasted HTML with every URL that is not its own content or the web emptied. */
export function confinePastedHtml(html: string): string {
  return html
    .replace(URL_ATTRIBUTES, (whole, name: string, value: string) => (allowed(value, LINK_ATTRIBUTES.test(name)) ? whole : `${name}""`))
    // CSS inside style attributes and <style>: url(...) and @import.
    .replace(/url\(\s*("[^"]*"|'[^']*'|[^)]*)\s*\)/gi, (whole, value: string) => (allowed(value.trim()) ? whole : "url()"))
    .replace(/@import[^;]*;?/gi, "");
}
