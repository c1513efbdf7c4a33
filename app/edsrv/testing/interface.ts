// What the interface's browser tests share: pressing the toolbar's controls as a person does,
// waiting for the engine's state at the cursor, saving and reading the stored file.
import { strFromU8, unzipSync } from "fflate";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { hostSave } from "./chromium";
import type { EditorEnv } from "./editor-env";

export interface OpenedEditor {
  id: string;
  ctx: BrowserContext;
  page: Page;
  frame: Frame;
  close(): Promise<void>;
}

/** A fixture opened in the editor, in a 1400×900 browser of its own, the keyboard in the document. */
export async function openFixture(env: EditorEnv, fixture: string, token = "tok_alice", query = ""): Promise<OpenedEditor> {
  const f = env.newFile(fixture);
  const ctx = await env.browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const { page, frame } = await env.openEditor(ctx, f.src, token, query);
  await frame.focus("#ime");
  return { id: f.id, ctx, page, frame, close: () => ctx.close() };
}

/** The toolbar control of a command (its `data-cmd`). */
export const control = (cmd: string) => `[data-cmd="${cmd}"]`;

/** Selects the toolbar tab that holds a command's control, as a person does before pressing it (the tabs are ribbon.ts's). */
export async function showTabOf(frame: Frame, cmd: string): Promise<void> {
  const tab = await frame.evaluate((sel) => {
    const panel = document.querySelector(sel)?.closest<HTMLElement>("[data-tab-panel]");
    return panel && panel.hidden ? panel.dataset.tabPanel! : null;
  }, control(cmd));
  if (tab) await frame.click(`.tb-tab[data-tab="${tab}"]`);
  // A control that does not fit the row is in the "more" menu at its end.
  if (await frame.evaluate((sel) => { const m = document.getElementById("tb-more-menu"); return !!m && m.hidden && !!m.querySelector(sel); }, control(cmd))) await frame.click(control("more"));
}

/** Clicks a toolbar control (on its tab); the interface gives the keyboard back to the document afterwards. */
export async function press(frame: Frame, cmd: string): Promise<void> {
  await showTabOf(frame, cmd);
  await frame.click(control(cmd));
}

/** Until the engine reports `value` for a command at this view's cursor (`statechanged:`). */
export async function stateIs(frame: Frame, cmd: string, value: string): Promise<void> {
  await frame.waitForFunction(([c, v]) => (window as any).edUi.state[c!] === v, [cmd, value], { polling: 25 });
}

/** Until the engine has reported the document modified (what was typed went in). */
export async function modified(frame: Frame): Promise<void> {
  await frame.waitForFunction(() => window.edState.modified === true, undefined, { polling: 25 });
}

/** Saves through the host page's Action_Save and answers the bytes the WOPI host stored. */
export async function saveAndRead(env: EditorEnv, page: Page, fileId: string): Promise<Uint8Array> {
  const r = await hostSave(page);
  if (!r.success) throw new Error(`save failed: ${JSON.stringify(r)}`);
  return env.lastStored(fileId);
}

/** One part of a stored zip container, as text. */
export function part(bytes: Uint8Array, name: string): string {
  const f = unzipSync(bytes)[name];
  if (!f) throw new Error(`no ${name} in the stored file`);
  return strFromU8(f);
}

/** The part names of a stored zip container. */
export const partNames = (bytes: Uint8Array) => Object.keys(unzipSync(bytes));

/** Answers the in-page form (links, table size, names, comments) with these values. */
export async function answer(frame: Frame, values: string[]): Promise<void> {
  await frame.waitForSelector("form.ask");
  const inputs = await frame.$$("form.ask input");
  for (let i = 0; i < values.length; i++) await inputs[i]!.fill(values[i]!);
  await frame.click("form.ask button[type=submit]");
  await frame.waitForSelector("form.ask", { state: "detached" });
}
