import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";

const axeSource = readFileSync(join(resolve(import.meta.dirname, "../.."), "node_modules/axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page as it is now. */
export async function accessibilityProblems(p: Page): Promise<string[]> {
  // Evaluated by the browser's debugger, not as a page script: the dashboard's CSP allows none inline.
  await p.evaluate(axeSource);
  const result = await p.evaluate(async () => (globalThis as any).axe.run({ resultTypes: ["violations"] }));
  return (result.violations as { id: string; impact: string; help: string }[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help}`);
}
