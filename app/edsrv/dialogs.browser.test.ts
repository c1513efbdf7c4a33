// LibreOffice's dialogs in the browser (issue 33, item 1): a person opens a dialog from the
// toolbar, changes it with the page's own controls (found by their labels, as a screen reader
// finds them), presses OK, and the stored file holds the change. Real editing server, real kits
// with the full LibreOffice, Debian's Chromium, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Frame, Locator } from "playwright-core";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { openFixture, part, press, saveAndRead } from "./testing/interface";
import { scaled, until } from "../testing/until";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** Opens a dialog with its toolbar button and answers it once LibreOffice has described it. */
async function openDialog(frame: Frame, cmd: string, dialogId: string): Promise<Locator> {
  await press(frame, cmd);
  const dialog = frame.locator(`.jsd-dialog[data-dialog="${dialogId}"]`);
  await dialog.waitFor();
  return dialog;
}

/** Presses OK and waits for LibreOffice to close the dialog. */
async function ok(dialog: Locator): Promise<void> {
  await dialog.getByRole("button", { name: "OK", exact: true }).click();
  await dialog.waitFor({ state: "detached" });
}

/** Types a value into a field found by its label, as a person does (then leaves the field). */
async function setField(dialog: Locator, label: string, value: string): Promise<void> {
  const field = dialog.getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press("Tab");
}

describe("LibreOffice's dialogs in a text document", () => {
  test("Format > Paragraph: the indent before the text and the spacing below the paragraph are stored", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.docx");
    const dialog = await openDialog(frame, ".uno:ParagraphDialog", "ParagraphPropertiesDialog");
    expect(await dialog.getByRole("tab", { name: "Indents & Spacing" }).getAttribute("aria-selected")).toBe("true");
    await setField(dialog, "Before text:", "1");
    await setField(dialog, "Below paragraph:", "0.25");
    // LibreOffice took the value and shows it in its own form.
    await until(() => dialog.getByLabel("Before text:", { exact: true }).inputValue(), (v) => v === "1.00″", "the indent shown as LibreOffice formats it");
    await ok(dialog);
    const xml = part(await saveAndRead(env, page, id), "word/document.xml");
    expect(xml).toMatch(/<w:ind w:left="1440"/);
    expect(xml).toMatch(/<w:spacing [^>]*w:after="360"/);
    await close();
  }, scaled(90_000));
});
