// Runs a plan's steps in order. A failed step stops the plan (later steps depend on it), except the
// steps marked `always` (revoking the smoke key), which run regardless.
import { rmSync, writeFileSync } from "node:fs";
import { describeStep, type Step } from "./plan.ts";
import { DeployError } from "./inventory.ts";
import type { RunWrangler } from "./run-wrangler.ts";

export type Executors = {
  wrangler: RunWrangler;
  buildDashboard: () => void;
  smoke: (step: Extract<Step, { kind: "smoke" }>) => Promise<void>;
  log: (line: string) => void;
  accountId: string;
};

export async function executePlan(steps: Step[], x: Executors): Promise<void> {
  let failure: Error | undefined;
  for (const step of steps) {
    if (failure && !(step.kind === "wrangler" && step.always)) continue;
    x.log(`→ ${step.why}\n  ${describeStep(step)}`);
    try {
      await runStep(step, x);
    } catch (err) {
      failure ??= err as Error;
    }
    // A wrangler step blocks the event loop: an interrupt that came meanwhile is handled here, before the next step.
    await new Promise((r) => setImmediate(r));
  }
  if (failure) throw failure;
}

async function runStep(step: Step, x: Executors): Promise<void> {
  if (step.kind === "build-dashboard") return x.buildDashboard();
  if (step.kind === "smoke") return x.smoke(step);
  // 0600: the secrets file holds the R2 token until wrangler has read it.
  for (const f of step.files ?? []) writeFileSync(f.path, f.content, { mode: 0o600 });
  try {
    const r = x.wrangler(step.args, { show: step.show, env: { CLOUDFLARE_ACCOUNT_ID: x.accountId, ...step.env } });
    if (r.status !== 0)
      throw new DeployError(
        `${describeStep(step)} failed (exit ${r.status})${step.show ? "" : `:\n${r.stdout}${r.stderr}`}`.trimEnd(),
      );
  } finally {
    for (const f of step.files ?? []) if (f.secret) rmSync(f.path, { force: true });
  }
}
