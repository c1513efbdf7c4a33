// LibreOffice's chart wizard in the browser (issue 45, item A): shown step by step as LibreOffice
// means it (one page at a time, a step list, Back/Next/Finish in view), its fields filled and no
// raw placeholders; Finish inserts a chart that the stored xlsx keeps. Real editing server, real
// kits with the full LibreOffice, Debian's Chromium, a loopback WOPI host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import type { Locator, Page } from "playwright-core";
import { startEditorEnv, type EditorEnv } from "./testing/editor-env";
import { openFixture, partNames, press, saveAndRead } from "./testing/interface";
import { goTo } from "./testing/stored";
import { scaled, until } from "../testing/until";

let env: EditorEnv;
beforeAll(async () => {
  env = await startEditorEnv();
});
afterAll(async () => {
  await env?.close();
});

/** The step the wizard's step list marks as the current one. */
const currentStep = (dialog: Locator) => dialog.getByRole("navigation", { name: "Steps" }).locator('[aria-current="step"]').textContent();

/** Until the wizard shows `step` as its current one. */
const stepIs = (dialog: Locator, step: string) => until(() => currentStep(dialog), (s) => s === step, `the wizard at step ${step}`);

/** A control wholly inside the browser's window (not below the fold). */
async function inView(page: Page, control: Locator): Promise<boolean> {
  const box = await control.boundingBox();
  const size = page.viewportSize()!;
  return !!box && box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;
}

describe("the chart wizard", () => {
  test("opens at step 1 with a step list; Next and Back move; the range is filled; Finish stores a chart beside the data, not over it", async () => {
    const { id, page, frame, close } = await openFixture(env, "hello.xlsx");
    await goTo(frame, "A1:C4");
    await press(frame, ".uno:InsertObjectChart");
    const dialog = frame.locator('.jsd-dialog[data-dialog="CHART2_HID_SCH_WIZARD_ROADMAP"]');
    await dialog.waitFor();
    const steps = await dialog.getByRole("navigation", { name: "Steps" }).getByRole("listitem").allTextContents();
    expect(steps).toEqual(["1. Chart Type", "2. Data Range", "3. Data Series", "4. Chart Elements"]);
    expect(await currentStep(dialog)).toBe("1. Chart Type");
    // Only the current step's page is shown.
    expect(await dialog.getByText("Choose a Chart Type", { exact: true }).isVisible()).toBe(true);
    expect(await dialog.getByText("Choose a Data Range", { exact: true }).isVisible()).toBe(false);
    for (const name of ["< Back", "Next >", "Finish", "Cancel"]) expect(await inView(page, dialog.getByRole("button", { name, exact: true }))).toBe(true);

    await dialog.getByRole("button", { name: "Next >", exact: true }).click();
    await stepIs(dialog, "2. Data Range");
    expect(await dialog.getByText("Choose a Chart Type", { exact: true }).isVisible()).toBe(false);
    // The range selected before the wizard opened, in LibreOffice's form.
    await until(() => dialog.getByLabel("Data range:", { exact: true }).inputValue(), (v) => /\$A\$1:\$C\$4$/.test(v), "the data range filled");
    // The range chooser shows LibreOffice's picture, not a blank pill.
    expect(await dialog.getByRole("button", { name: "Select data range" }).locator("img").count()).toBe(1);

    await dialog.getByRole("button", { name: "< Back", exact: true }).click();
    await stepIs(dialog, "1. Chart Type");
    await dialog.getByRole("button", { name: "Next >", exact: true }).click();
    await stepIs(dialog, "2. Data Range");
    await dialog.getByRole("button", { name: "Next >", exact: true }).click();
    await stepIs(dialog, "3. Data Series");
    // No raw placeholder of LibreOffice's anywhere in the wizard.
    expect(await dialog.innerText()).not.toMatch(/%[A-Z]{3,}/);
    expect(await inView(page, dialog.getByRole("button", { name: "Finish", exact: true }))).toBe(true);

    await dialog.getByRole("button", { name: "Finish", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await page.keyboard.press("Escape");
    const bytes = await saveAndRead(env, page, id);
    expect(partNames(bytes).some((n) => /^xl\/charts\/chart\d+\.xml$/.test(n))).toBe(true);
    // Placed beside the data, inside what the page shows, not over it: LibreOffice places a new
    // chart in the view's visible area, which it knows only when told (setClientVisibleArea).
    const drawing = Object.entries(unzipSync(bytes)).find(([n]) => /^xl\/drawings\/drawing\d+\.xml$/.test(n));
    const fromCol = Number(/<xdr:from><xdr:col>(\d+)<\/xdr:col>/.exec(strFromU8(drawing![1]))?.[1]);
    expect(fromCol).toBeGreaterThanOrEqual(3);
    await close();
  }, scaled(120_000));
});
