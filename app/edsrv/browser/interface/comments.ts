// Comments: the engine's own, listed from .uno:ViewAnnotations and changed with UNO commands.

import { ask } from "./ask";
import { button, div, el, run, stringArg } from "./controls";
import { api, UI, type Comment } from "./state";
import { T } from "./texts";
import { aria } from "./dom";

let commentsPanel: HTMLElement | null = null;

/** A frame this wide shows a document's comments from the start (the panel beside the page, as Collabora does). */
const PANEL_OPENS_AT_PX = 1000;
/** The person opened or closed the panel: the page no longer decides for them. */
let panelChosen = false;

export function buildComments(): HTMLElement[] {
  const panel = (commentsPanel = el("aside", { id: "comments", "aria-label": T.comments, hidden: "" }));
  document.body.append(panel);
  const toggle = button("comments", T.comments, { view: true, icon: "showannotations", click: () => {
    panelChosen = true;
    panel.hidden = !panel.hidden;
    if (!panel.hidden) refreshComments();
  } });
  const badge = el("span", { "class": "tb-count", hidden: "" });
  toggle.append(badge);
  api.on("commandvalues", (f) => {
    const j = f.json as { comments?: Comment[] };
    if (!j.comments) return;
    UI.comments = j.comments.map(withPlainText);
    renderComments();
    // Our kit asks for no comments in the tiles (NO_TILED_ANNOTATIONS): the commented text is
    // marked here instead, as Collabora draws it, from each comment's anchor (Writer's textRange).
    api.marks("comments", UI.comments.flatMap((c) => api.frames.rects(c.textRange)));
    api.marks("comment", []);
    // Comments were invisible until the person found the panel: their number is on its button,
    // and on a wide screen the panel opens by itself for a document that has some.
    badge.textContent = UI.comments.length ? String(UI.comments.length) : "";
    badge.hidden = UI.comments.length === 0;
    aria(toggle, "label", UI.comments.length ? `${T.comments} (${UI.comments.length})` : T.comments);
    if (!panelChosen && UI.comments.length && window.innerWidth >= PANEL_OPENS_AT_PX) panel.hidden = false;
  });
  // Asked once the first screen is painted (it does not delay it), and again whenever the engine
  // says a comment was added, changed or removed (by this person or another).
  api.on("firstpaint", () => { api.send(api.frames.commandValues(".uno:ViewAnnotations")); });
  api.on("comment", () => { refreshComments(); });
  return [
    button(".uno:InsertAnnotation", T.addComment, { click: () => {
      ask(T.addComment, [{ label: T.commentText }]).then((v) => {
        if (v && v[0]) { run(".uno:InsertAnnotation", { Text: stringArg(v[0]) }); refreshComments(); }
      });
    } }),
    toggle,
  ];
}

/**
 * A comment's text as the panel shows it: LibreOffice 25.2 sends it as HTML only, read here as
 * text (never inserted as markup: it is what another person typed).
 */
function withPlainText(c: Comment): Comment {
  if (c.text !== undefined || c.html === undefined) return c;
  const doc = new DOMParser().parseFromString(c.html, "text/html");
  // One paragraph a line: the body's blocks, or its text when it has none.
  const blocks = [...doc.body.children];
  const text = blocks.length ? blocks.map((e) => e.textContent ?? "").join("\n") : (doc.body.textContent ?? "");
  return { ...c, text };
}

/**
 * LibreOffice's own reply (.uno:ReplyComment) loses the reply's text (7.4, and 25.2 still, measured 2026-11-27): its answer window
 * overwrites it with a quote of the comment. A reply is therefore a new comment inserted with
 * the cursor at the comment's anchor, which the engine threads as its reply, naming whom it answers.
 */
function replyTo(c: Comment, text: string): void {
  toComment(c);
  run(".uno:InsertAnnotation", { Text: stringArg("@" + (c.author || "") + ": " + text) });
}
/**
 * Puts the cursor at a comment's anchor. LibreOffice (7.4, and 25.2 still) resolves the comment last
 * inserted or edited, whatever the Id given: at its anchor, the cursor makes it the current one.
 */
function toComment(c: Comment): void {
  const r = String(c.anchorPos || "").split(",").map(Number);
  if (r.length < 4 || isNaN(r[0]!)) return;
  const x = r[0]! + 1, y = r[1]! + Math.round(r[3]! / 2);
  api.send(api.frames.mouse("buttondown", x, y, 1, 1, 0));
  api.send(api.frames.mouse("buttonup", x, y, 1, 1, 0));
}
let refreshPending: ReturnType<typeof setTimeout> | null = null;
/** The list asked again shortly (a burst of changes asks once). */
function refreshComments(): void {
  if (refreshPending) return;
  refreshPending = setTimeout(() => { refreshPending = null; api.send(api.frames.commandValues(".uno:ViewAnnotations")); }, 300);
}
function renderComments(): void {
  const panel = commentsPanel!;
  panel.replaceChildren(el("h2", { text: T.comments }));
  if (!UI.comments.length) panel.append(el("p", { text: T.noComments }));
  UI.comments.forEach((c) => {
    const act = (cmd: string, label: string) =>
      el("button", { "class": "edit-only", text: label, on: { click: () => {
        if (cmd === ".uno:ReplyComment") {
          ask(T.reply, [{ label: T.commentText }]).then((v) => { if (v && v[0]) { replyTo(c, v[0]); refreshComments(); } });
        } else { toComment(c); run(cmd, { Id: stringArg(String(c.id)) }); refreshComments(); }
      } } });
    // The text of the comment a person points at or tabs to is marked more strongly.
    const mark = (on: boolean) => () => { api.marks("comment", on ? api.frames.rects(c.textRange) : []); };
    panel.append(el("article", { "class": "comment" + (c.resolved === "true" ? " resolved" : ""), "data-id": String(c.id),
      on: { mouseenter: mark(true), mouseleave: mark(false), focusin: mark(true), focusout: mark(false) } }, [
      el("div", { "class": "comment-head", text: (c.author || "") + (c.resolved === "true" ? " · " + T.resolved : "") }),
      el("div", { "class": "comment-text", text: c.text || "" }),
      div("comment-actions", [act(".uno:ReplyComment", T.reply), act(".uno:ResolveComment", c.resolved === "true" ? T.reopen : T.resolve), act(".uno:DeleteComment", T.remove)]),
    ]));
  });
}
