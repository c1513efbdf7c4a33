// axe-core in a page or frame of the browser tests: the accessibility rules a person with a screen
// reader or a keyboard depends on (WCAG 2.1 A and AA), as the browser sees the page.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Frame, Page } from "playwright-core";

const AXE_SOURCE = readFileSync(path.join(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * The serious and critical violations on what `target` shows now. The page's CSP forbids inline
 * scripts: the browser context must be made with `bypassCSP: true`.
 */
export async function seriousViolations(target: Page | Frame): Promise<AxeViolation[]> {
  await target.evaluate(AXE_SOURCE);
  const result = await target.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}
