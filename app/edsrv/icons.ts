// The editor's icons: LibreOffice's own Colibre theme, as Debian installs it
// (images_colibre_svg.zip), named after the `.uno:` commands the page sends, as Collabora Online
// draws its toolbars. The theme's directory is read once at start, each picture inflated once when
// first asked for, and served with an ETag; an icon the theme has no picture for is drawn with the closest command's.

import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { inflateSync, strFromU8 } from "fflate";
import { zipEntries, type ZipEntry } from "../zip-guard";

export const COLIBRE_SVG_ZIP = "/usr/lib/libreoffice/share/config/images_colibre_svg.zip";

/** `lc`: the large command icons (24 px) of toolbars; `sc`: the small ones (16 px) of menus. */
export type IconSize = "lc" | "sc";

export interface Icon {
  svg: Uint8Array;
  etag: string;
}

/**
 * Commands the page offers whose name has no icon of its own in Colibre, drawn with the closest
 * command's (a picture for every control, never a glyph).
 */
export const CLOSEST_ICON: Record<string, string> = {
  backcolor: "backgroundcolor",
  charbackcolor: "backcolor",
  datafilterautofilter: "datafilterautofilter",
  deletecomment: "deleteannotation",
  replycomment: "insertannotation",
  resolvecomment: "ok",
  numberformatstandard: "numberformatstandard",
  enterstring: "text",
  executesearch: "recsearch",
  stylesapply: "designerdialog",
  styleapply: "designerdialog",
  paragraphstyles: "designerdialog",
  insertpage: "insertpage",
  deletepage: "deletepage",
  statewordcount: "wordcountdialog",
  conditionalformatmanagerdialog: "conditionalformatdialog",
  sidebarshow: "sidebar",
  sidebarhide: "sidebar",
  showtrackedchanges: "showtrackedchanges",
  slideshow: "presentation",
  download: "exportto",
  print: "print",
  close: "closedoc",
  find: "recsearch",
  zoomin: "zoomin",
  zoomout: "zoomout",
  comments: "showannotations",
  people: "addressbooksource",
  more: "morecontrols",
  fitwidth: "zoompagewidth",
  fitpage: "zoompage",
  // Commands of LibreOffice's context menus and the page's own controls without a picture of
  // their own (the page asked for them and got 404s).
  spellcheckignore: "spelling",
  spellcheckignoreall: "spelling",
  spellcheckapplysuggestion: "spelling",
  languagestatus: "languagemenu",
  clearcontents: "delete",
  gotostart: "gotostartofdoc",
  gotocell: "navigator",
  sethyperlink: "inserthyperlink",
  attributepage: "pagedialog",
  pagelrmargin: "pagemargin",
  pageulmargin: "pagemargin",
  insertpara: "text",
};

/** What an icon name may be: a command without `.uno:`, lower case (nothing a path could hide in). */
const ICON_NAME = /^[a-z0-9]{1,64}$/;

export class IconTheme {
  /** Pictures inflated so far, by entry name (`cmd/lc_bold.svg`). */
  private readonly inflated = new Map<string, Icon>();

  /** An empty theme (no zip on this machine): the page falls back to its labels. */
  static empty(): IconTheme {
    return new IconTheme("none", new Uint8Array(), new Map(), new Map());
  }

  /**
   * Reads the theme's directory once (its 3 MB file kept in memory, a few milliseconds); a picture
   * is inflated the first time it is asked for. Inflating all 2,500 command icons at start took
   * half a second of the editing server's start.
   */
  static async open(zipPath = COLIBRE_SVG_ZIP): Promise<IconTheme> {
    if (!existsSync(zipPath)) return IconTheme.empty();
    const zip = new Uint8Array(readFileSync(zipPath));
    const entries = new Map(((await zipEntries(zipPath)) ?? []).map((e) => [e.name, e] as const));
    // links.txt: "<alias> <target>" per line (one picture under several names).
    const links = new Map<string, string>();
    const linksEntry = entries.get("links.txt");
    if (linksEntry) {
      for (const line of strFromU8(inflateEntry(zip, linksEntry)).split("\n")) {
        const [alias, target] = line.trim().split(/\s+/);
        if (alias && target) links.set(alias, target);
      }
    }
    const st = statSync(zipPath);
    return new IconTheme(`${st.size}-${Math.round(st.mtimeMs)}`, zip, entries, links);
  }

  /** Names this theme's file (its size and time), for the hash of the page's assets. */
  get stamp(): string {
    return this.zipStamp;
  }

  private constructor(
    private readonly zipStamp: string,
    private readonly zip: Uint8Array,
    private readonly entries: Map<string, ZipEntry>,
    private readonly links: Map<string, string>,
  ) {}

  /** Whether the theme has pictures at all. */
  get available(): boolean {
    return this.entries.size > 0;
  }

  /** The picture of a command (`bold` for `.uno:Bold`), or of its closest command; null when neither has one. */
  icon(command: string, size: IconSize = "lc"): Icon | null {
    const name = command.replace(/^\.uno:/i, "").toLowerCase();
    if (!ICON_NAME.test(name)) return null;
    const closest = CLOSEST_ICON[name];
    return this.picture(`cmd/${size}_${name}.svg`) ?? (closest ? this.picture(`cmd/${size}_${closest}.svg`) : null);
  }

  /** An entry's picture, an alias followed to what it names. */
  private picture(entryName: string): Icon | null {
    const cached = this.inflated.get(entryName);
    if (cached) return cached;
    for (let hops = 0, at: string | undefined = entryName; at && hops < 8; hops++, at = this.links.get(at)) {
      const entry = this.entries.get(at);
      if (!entry) continue;
      const svg = inflateEntry(this.zip, entry);
      const icon = { svg, etag: `"${createHash("sha256").update(svg).digest("base64url").slice(0, 16)}"` };
      this.inflated.set(entryName, icon);
      return icon;
    }
    return null;
  }
}

/** One entry's bytes: after its local header (30 bytes, its name and extra field), stored or deflated. */
function inflateEntry(zip: Uint8Array, e: ZipEntry): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const at = e.localOffset;
  const dataStart = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const data = zip.subarray(dataStart, dataStart + e.compressedSize);
  return e.method === 0 ? data.slice() : inflateSync(data, { out: new Uint8Array(e.uncompressedSize) });
}
