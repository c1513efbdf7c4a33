// Looking is free (issue 45 item 3): opening one of LibreOffice's dialogs and leaving it with
// Cancel (or Escape, which the page sends as Cancel) leaves the document unmodified: no edit is
// counted, no version stored, no callback sent to the host. OK still applies and counts. Real
// kits and a loopback WOPI host.
import { describe, expect, test } from "bun:test";
import { scaled, until } from "../testing/until";
import { dialogActMayApply } from "./door";
import { documentsEnv, documentsHelpers } from "./testing/documents-env";
import type { TestSocket } from "./testing/ws-client";

const env = documentsEnv();
const { open, newDoc, brokerOf, settled } = documentsHelpers(env);

/** Opens Format > Paragraph and answers its window id. */
async function paragraphDialog(s: TestSocket): Promise<string> {
  const n = s.frames.length;
  s.send("uno .uno:ParagraphDialog");
  const described = await s.waitText('jsdialog: { "id": "ParagraphPropertiesDialog"', n);
  return String(JSON.parse(described.slice("jsdialog: ".length)).id);
}
const act = (windowId: string, e: Record<string, string>) => `dialogevent ${windowId} ${JSON.stringify(e)}`;

describe("looking is free", () => {
  test("Cancel, Close, Help and a cancelling response apply nothing; OK, Apply and a double click may", () => {
    const j = (e: Record<string, string>) => JSON.stringify({ data: "", type: "responsebutton", ...e });
    for (const leaving of [j({ id: "cancel", cmd: "click" }), j({ id: "close", cmd: "click" }), j({ id: "help", cmd: "click" }), j({ id: "__DIALOG__", cmd: "response", data: "0" }), j({ id: "__DIALOG__", cmd: "close" })]) {
      expect({ leaving, applies: dialogActMayApply(leaving) }).toEqual({ leaving, applies: false });
    }
    for (const applying of [j({ id: "ok", cmd: "click" }), j({ id: "apply", cmd: "click" }), j({ id: "__DIALOG__", cmd: "response", data: "1" }), j({ id: "list", cmd: "dblclick", type: "treeview" })]) {
      expect({ applying, applies: dialogActMayApply(applying) }).toEqual({ applying, applies: true });
    }
  });

  test("Format > Paragraph opened and cancelled leaves the document unmodified: no version, no modified state", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const windowId = await paragraphDialog(s);
    const n = s.frames.length;
    s.send(act(windowId, { id: "cancel", cmd: "click", data: "", type: "responsebutton" }));
    await settled(src);
    expect(brokerOf(src)!.modified).toBe(false);
    expect(s.texts().slice(n)).not.toContain("statechanged: .uno:ModifiedStatus=true");
    // Leaving stores nothing: the document closes without a PutFile.
    s.close();
    await until(() => brokerOf(src), (b) => b === undefined, "the document closed");
    expect(env.host.puts.filter((p) => p.fileId === src.split("/").pop())).toEqual([]);
  }, scaled(60_000));

  test("OK still counts as an edit", async () => {
    const src = newDoc();
    const s = await open(src, "tok_edit_1");
    const windowId = await paragraphDialog(s);
    const n = s.frames.length;
    s.send(act(windowId, { id: "ok", cmd: "click", data: "", type: "responsebutton" }));
    await s.waitText("statechanged: .uno:ModifiedStatus=true", n);
    expect(brokerOf(src)!.modified).toBe(true);
    s.close();
  }, scaled(60_000));
});
