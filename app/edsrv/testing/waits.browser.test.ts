// A browser wait that times out says what it waited for and what the page showed last (issue 31),
// whichever test wrote it: startChromium makes Playwright's waitForFunction do so.
import { expect, test } from "bun:test";
import { startChromium } from "./chromium";
import { scaled } from "../../testing/until";

test("a timed-out waitForFunction names its condition and what the editor's state showed last", async () => {
  const chrome = await startChromium();
  try {
    const page = await (await chrome.browser.newContext()).newPage();
    await page.setContent("<script>window.edState = { loaded: true, connected: true, modified: false, errors: ['e1'], received: { status: 1 }, tilesDrawn: 2, tilesRequested: 3 }</script>");
    const err = (await page.waitForFunction(() => window.edState.tilesDrawn > 5, undefined, { timeout: 300 }).catch((e: Error) => e)) as Error;
    expect(err.message).toContain("never: () => window.edState.tilesDrawn > 5");
    expect(err.message).toContain('"tilesDrawn":2');
    expect(err.message).toContain('"errors":["e1"]');
    // A page without the editor: the host page's messages, or where it is.
    await page.goto("about:blank");
    await page.setContent("<script>window.msgs = [{ MessageId: 'App_LoadingStatus' }]</script>");
    const host = (await page.mainFrame().waitForFunction(() => false, undefined, { timeout: 200 }).catch((e: Error) => e)) as Error;
    expect(host.message).toContain('"hostMessages":["App_LoadingStatus"]');
  } finally {
    await chrome.close();
  }
}, scaled(60_000));
