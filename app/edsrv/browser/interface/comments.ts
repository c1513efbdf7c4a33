// Comments: the engine's own, listed from .uno:ViewAnnotations and changed with UNO commands.

import { commandValuesCommand, mouseCommand } from "../../protocol/frames";
import { ask } from "./ask";
import { arg, button, el, run } from "./controls";
import { api, UI, type Comment } from "./state";
import { T } from "./texts";

let commentsPanel: HTMLElement | null = null;

export function buildComments(): HTMLElement[] {
  const panel = (commentsPanel = el("aside", { id: "comments", "aria-label": T.comments, hidden: "" }));
  document.body.appendChild(panel);
  api.on("commandvalues", (a) => {
    let j: { comments?: Comment[] };
    try { j = JSON.parse(a); } catch { return; }
    if (j.comments) { UI.comments = j.comments.map(withPlainText); renderComments(); }
  });
  return [
    button(".uno:InsertAnnotation", T.addComment, { click: () => {
      ask(T.addComment, [{ label: T.commentText }]).then((v) => {
        if (v && v[0]) { run(".uno:InsertAnnotation", { Text: arg("string", v[0]) }); refreshComments(); }
      });
    } }),
    button("comments", T.comments, { view: true, icon: "showannotations", click: () => { panel.hidden = !panel.hidden; if (!panel.hidden) refreshComments(); } }),
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
  run(".uno:InsertAnnotation", { Text: arg("string", "@" + (c.author || "") + ": " + text) });
}
/**
 * Puts the cursor at a comment's anchor. LibreOffice (7.4, and 25.2 still) resolves the comment last
 * inserted or edited, whatever the Id given: at its anchor, the cursor makes it the current one.
 */
function toComment(c: Comment): void {
  const r = String(c.anchorPos || "").split(",").map(Number);
  if (r.length < 4 || isNaN(r[0]!)) return;
  const x = r[0]! + 1, y = r[1]! + Math.round(r[3]! / 2);
  api.send(mouseCommand("buttondown", x, y, 1, 1, 0));
  api.send(mouseCommand("buttonup", x, y, 1, 1, 0));
}
function refreshComments(): void {
  setTimeout(() => { api.send(commandValuesCommand(".uno:ViewAnnotations")); }, 300);
}
function renderComments(): void {
  const panel = commentsPanel!;
  panel.innerHTML = "";
  panel.appendChild(el("h2", { text: T.comments }));
  if (!UI.comments.length) panel.appendChild(el("p", { text: T.noComments }));
  UI.comments.forEach((c) => {
    const act = (cmd: string, label: string) =>
      el("button", { type: "button", "class": "edit-only", text: label, on: { click: () => {
        if (cmd === ".uno:ReplyComment") {
          ask(T.reply, [{ label: T.commentText }]).then((v) => { if (v && v[0]) { replyTo(c, v[0]); refreshComments(); } });
        } else { toComment(c); run(cmd, { Id: arg("string", String(c.id)) }); refreshComments(); }
      } } });
    panel.appendChild(el("article", { "class": "comment" + (c.resolved === "true" ? " resolved" : ""), "data-id": String(c.id) }, [
      el("div", { "class": "comment-head", text: (c.author || "") + (c.resolved === "true" ? " · " + T.resolved : "") }),
      el("div", { "class": "comment-text", text: c.text || "" }),
      el("div", { "class": "comment-actions" }, [act(".uno:ReplyComment", T.reply), act(".uno:ResolveComment", T.resolve), act(".uno:DeleteComment", T.remove)]),
    ]));
  });
}
