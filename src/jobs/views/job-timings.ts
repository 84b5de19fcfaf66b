import { z } from "zod";
import type { RunnerOutcome } from "../../runner/runner-protocol.ts";

/**
 * Where a job's wall time went, in ms, end to end: queued (created → its binary got a runner slot),
 * fetch (inputs in place), run (the binary), store (outputs uploaded and probed) and finish (the
 * runner done → the job recorded terminal). The phases meet, so they add up to finishedAt − createdAt
 * (up to the clock difference between the runner and the Worker). One schema for the job's answers
 * and the OpenAPI document, as job-progress.ts and output-metadata.ts have theirs.
 */
export const timingsSchema = z.object({
  queuedMs: z.number().int(),
  fetchMs: z.number().int(),
  runMs: z.number().int(),
  storeMs: z.number().int(),
  finishMs: z.number().int(),
});
export type JobTimings = z.infer<typeof timingsSchema>;

export function jobTimings(
  createdAt: string,
  startedAt: string | null,
  outcome: RunnerOutcome,
  finishedAt: string,
): JobTimings {
  const started = Date.parse(startedAt ?? outcome.finishedAt);
  return {
    queuedMs: Math.max(0, started - Date.parse(createdAt)),
    ...outcome.timings,
    finishMs: Math.max(0, Date.parse(finishedAt) - Date.parse(outcome.finishedAt)),
  };
}
