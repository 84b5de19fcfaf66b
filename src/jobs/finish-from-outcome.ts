import type { RunnerOutcome } from "../runner/runner-protocol.ts";
import type { Services } from "../services.ts";
import { objectKeys } from "../storage/presigner.ts";
import { jobSpecOf, type JobRow } from "./job-store.ts";
import { finishFromOutcome } from "./billing.ts";
import { endJob } from "./end-job.ts";
import { recordOutputsStatements } from "./output-store.ts";
import { jobTimings } from "./job-timings.ts";

/** Moves a job to the terminal state its runner reported, recording its outputs in the same batch. */
export async function applyOutcome(s: Services, job: JobRow, outcome: RunnerOutcome): Promise<boolean> {
  const now = s.now().toISOString();
  const spec = jobSpecOf(job);
  const outputs = outcome.status !== "completed" ? [] : recordOutputsStatements(
    s.db,
    { id: job.id, accountId: job.account_id },
    outcome.outputs.map((o) => {
      const decl = spec.outputs[o.name];
      return { label: o.name, fileName: decl.fileName, contentType: decl.contentType, objectKey: objectKeys.output(job.id, o.name, decl.fileName), size: o.size, metadata: o.metadata };
    }),
    now,
  );
  const timings = jobTimings(job.created_at, job.started_at, outcome, now);
  return endJob(s, job.id, { ...finishFromOutcome(outcome, s.config.creditsPerSecond), timings }, { now, alongside: outputs });
}
