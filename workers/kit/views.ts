// The document's views: making one for each person, its language, the part it shows, and its
// leaving (one `views.delete`: everything the kit keeps for a view is in its record, state.ts).

import { LOK_DOCTYPE } from "../lok";
import { clientZoomInRange, type KitRequestOf, type KitResult } from "../kit-protocol";
import { engineIdle } from "../kit-loop";
import { forgetView, windowsOf } from "./windows";
import { pump } from "./callbacks";
import { closeDialogs } from "./dialogs";
import { afterWorkOf } from "./office-posts";
import { addViewRecord, kit, log, num, requireDoc, setLook, status as statusOf, useView, views } from "./state";

/** A 1920×1080 px screen at 100 % (15 twips a pixel): larger than any first view of the editor. */
const FIRST_SCREEN_TWIPS = { width: 1920 * 15, height: 1080 * 15 };

/**
 * A view's rendering options, as Collabora's kit gives them: the person's name, which the engine
 * writes as the author of their comments and tracked changes, and spell checking as they type
 * (red underlines, from the hunspell dictionaries installed).
 */
function viewOptions(author: string): string {
  const options: Record<string, { type: string; value: unknown }> = { ".uno:SpellOnline": { type: "boolean", value: true } };
  if (author) options[".uno:Author"] = { type: "string", value: author };
  return JSON.stringify(options);
}

/** A view's language as LibreOffice takes it (a BCP 47 tag: "vi-VN"). */
function languageTag(lang: unknown): string {
  const tag = String(lang ?? "");
  if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag)) throw new Error("lang must be a BCP 47 language tag");
  return tag;
}

function addView(readOnly: boolean, author: string, lang: string): number {
  const d = requireDoc();
  let viewId: number;
  if (!kit.firstViewTaken) {
    // The view made by the load is the first session's.
    kit.firstViewTaken = true;
    viewId = d.getView();
  } else {
    viewId = d.createView();
    d.setView(viewId);
  }
  // The language before anything is made for the view (Collabora's createViewWithOptions): the
  // view's first states come from an idle ~1 s later, and a status bar's "Page 1 of 1" made before
  // the page's own `viewlanguage` arrived stayed English until the caret moved.
  if (lang) d.setViewLanguage(viewId, lang);
  // Listen first, then initialise (Collabora's order): initialising emits the view's first cursor,
  // which a callback registered afterwards can miss.
  d.registerQueuedCallback(viewId);
  d.initializeForRendering(viewOptions(author));
  addViewRecord(viewId, readOnly, lang);
  if (kit.docType === LOK_DOCTYPE.SPREADSHEET) {
    // A sheet's first column and row headers grow the view's tiled area and invalidate the whole
    // sheet: asked by the page just after its first tiles, every one of them was asked again.
    // Asked here for a large first screen, before the view has painted, that invalidation is
    // dropped (unpainted) and the page's own header requests, for a smaller area, change nothing.
    d.getCommandValues(`.uno:ViewRowColumnHeaders?x=0&y=0&width=${FIRST_SCREEN_TWIPS.width}&height=${FIRST_SCREEN_TWIPS.height}`);
    pump();
  }
  log("info", "kit_view_added", { view_id: viewId, read_only: readOnly, views: d.getViewsCount() });
  return viewId;
}

/** `view`: a new view for one person (read-only or not, named as the author of their comments, in their language). */
export function view(req: KitRequestOf<"view">): KitResult<"view"> {
  const author = typeof req.author === "string" ? req.author.slice(0, 256) : "";
  return { viewId: addView(req.readOnly === true, author, req.lang === undefined ? "" : languageTag(req.lang)) };
}

/** `viewlanguage`: the language of what LibreOffice makes for this view (the spelling context menu…), from the session's `lang`. */
export function viewlanguage(req: KitRequestOf<"viewlanguage">): KitResult<"viewlanguage"> {
  const d = useView(req.viewId);
  const viewId = req.viewId;
  const lang = languageTag(req.lang);
  d.setViewLanguage(viewId, lang);
  setLook(viewId, { lang });
  // LibreOffice 7.4 took a view's language into its resources only when the view became the
  // current one (SfxLokHelper::setView), which does nothing for the view already current:
  // another view is made current for a moment (a new one, dropped at once, when this is the
  // only one). 25.2 applies it at once (the Vietnamese spelling menu test passes without the
  // switch on 25.2 and fails without it on 7.4): the switch is kept for engines before 25.
  if (!kit.languageNeedsViewSwitch) return {};
  const other = [...views.keys()].find((v) => v !== viewId);
  if (other !== undefined) {
    d.setView(other);
    d.setView(viewId);
  } else {
    const temporary = d.createView();
    d.setView(viewId);
    d.destroyView(temporary);
    d.setView(viewId);
  }
  return {};
}

/** `unview`: a view leaves, once the input its user sent before leaving is in. */
export async function unview(req: KitRequestOf<"unview">): Promise<KitResult<"unview">> {
  useView(req.viewId); // an unknown view fails at once, not after the wait
  // Input posted to this view is worked through later; destroyed first, it is lost.
  await engineIdle();
  if (windowsOf(req.viewId).length) {
    closeDialogs(req.viewId);
    await engineIdle();
  }
  // Selected again: a tile request (not ordered) may have switched the current view meanwhile.
  const d = useView(req.viewId);
  const viewId = req.viewId;
  d.unregisterCallback();
  views.delete(viewId);
  forgetView(viewId);
  // A dialog loop of this view's that runs under another person's has not returned yet: the view
  // goes once it has (office-posts.ts); it is nobody's meanwhile.
  afterWorkOf(viewId, () => {
    if (d.getViewsCount() > 1) d.destroyView(viewId);
    const rest = views.keys().next().value;
    if (rest !== undefined) d.setView(rest);
  });
  return { views: views.size };
}

/** `status`: the document as this view sees it. */
export function status(req: KitRequestOf<"status">): KitResult<"status"> {
  return statusOf(useView(req.viewId));
}

/** `part`: the sheet or slide this view shows. */
export function part(req: KitRequestOf<"part">): KitResult<"part"> {
  const d = useView(req.viewId);
  const part = num(req.part, "part");
  if (part < 0 || part >= d.getParts()) throw new Error("part out of range");
  if (d.getPart() !== part) d.setPart(part);
  return statusOf(d);
}

/**
 * `visiblearea`: what the view's page shows (twips). LibreOffice reads it where the desktop reads
 * the window: a new chart goes beside the selected data inside it (not over the data at the
 * sheet's corner), Page Up/Down move by its height, an inserted shape lands in it.
 */
export function visiblearea(req: KitRequestOf<"visiblearea">): KitResult<"visiblearea"> {
  const d = useView(req.viewId);
  const [x, y, width, height] = [num(req.x, "x"), num(req.y, "y"), num(req.width, "width"), num(req.height, "height")];
  if (x < 0 || y < 0 || width < 1 || height < 1) throw new Error("visible area out of range");
  d.setClientVisibleArea(x, y, width, height);
  return {};
}

/**
 * `clientzoom`: the scale this view's page draws at. A sheet places its cursor and selection on
 * the grid of its view's zoom (100 % unless told): at 75 % a selection of two rows ended 2.5 px
 * below the grid line painted, each row being a whole number of pixels at the tiles' scale.
 */
export function clientzoom(req: KitRequestOf<"clientzoom">): KitResult<"clientzoom"> {
  const pixels = num(req.pixels, "pixels"), twips = num(req.twips, "twips");
  if (!clientZoomInRange(pixels, twips)) throw new Error("zoom out of range");
  useView(req.viewId).setClientZoom(pixels, pixels, twips, twips);
  return {};
}

/** `moveparts`: reorders slides: the given parts are selected, then moved (or copied) to before `position`. */
export async function moveparts(req: KitRequestOf<"moveparts">): Promise<KitResult<"moveparts">> {
  const d = useView(req.viewId);
  const parts = Array.isArray(req.parts) ? req.parts.map((p) => num(p, "part")) : [];
  const position = num(req.position, "position");
  const n = d.getParts();
  if (!parts.length || parts.some((p) => p < 0 || p >= n) || position < 0 || position > n) throw new Error("parts out of range");
  await engineIdle();
  // LibreOffice copies nothing here (it ignores the flag; 7.4 and 25.2): a copy is .uno:DuplicatePage.
  if (req.duplicate === true) throw new Error("duplicating parts is not supported");
  for (let p = 0; p < n; p++) d.selectPart(p, parts.includes(p) ? 1 : 0);
  // The engine inserts the selection after the slide it is given (-1: before the first) and
  // reads a slide past the last one as a null page (the kit crashed on "move the last down").
  d.moveSelectedParts(position - 1, false);
  await engineIdle();
  // The view stays on the slide it showed, wherever it went: the first one moved, as a person
  // who moved a slide expects to keep looking at it.
  const landed = position - parts.filter((p) => p < position).length;
  const view = useView(req.viewId);
  // Left selected, the moved slides would all go with the next "delete slide": only the slide
  // shown stays selected. Impress makes the selected slide the shown one a little later (100 ms
  // after a move, measured at the kit): with none selected it went back to another slide.
  const shown = landed >= 0 && landed < view.getParts() ? landed : view.getPart();
  for (let p = 0; p < view.getParts(); p++) view.selectPart(p, p === shown ? 1 : 0);
  if (view.getPart() !== shown) view.setPart(shown);
  return statusOf(view);
}
