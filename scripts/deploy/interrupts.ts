// An interrupted deploy (Ctrl-C, a closed terminal, `kill`) must not leave the R2 token behind in the
// temp folder: Node's default for these signals ends the process at once, skipping every `finally`.
import { rmSync } from "node:fs";
import { constants } from "node:os";

const INTERRUPTS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Until the returned function is called, an interrupt removes `folder` (and all in it), then ends the
 * process as the signal would have (exit 128 + its number). A signal that arrives while a wrangler
 * step blocks the event loop is handled when the step returns (executePlan yields between steps).
 */
export function removeOnInterrupt(folder: string): () => void {
  const onInterrupt = (signal: NodeJS.Signals) => {
    rmSync(folder, { recursive: true, force: true });
    console.error(`\ndeploy interrupted (${signal}): its temporary files are removed`);
    process.exit(128 + constants.signals[signal]);
  };
  for (const s of INTERRUPTS) process.on(s, onInterrupt);
  return () => {
    for (const s of INTERRUPTS) process.off(s, onInterrupt);
  };
}
