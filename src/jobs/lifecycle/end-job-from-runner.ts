import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { Services } from "../../services.ts";
import { objectKeys } from "../../storage/presigner.ts";
import { jobSpecOf, type JobRow } from "../store/job-store.ts";
import { finishFromOutcome } from "./job-endings.ts";
import { endJob } from "./end-job.ts";
import { recordOutputsStatements } from "../store/output-store.ts";
import { deliveredOutputs, recordDeliveredStatement } from "../store/delivered-outputs.ts";
import { jobTimings } from "../views/job-timings.ts";
import { contentTypeFor } from "../../storage/content-types.ts";

/** Moves a job to the terminal state its runner reported, recording its outputs (and `alongside`) in the same batch. */
export async function applyOutcome(s: Services, job: JobRow, outcome: RunnerOutcome, alongside: D1PreparedStatement[] = []): Promise<boolean> {
  const now = s.now().toISOString();
  const spec = jobSpecOf(job);
  const completed = outcome.status === "completed";
  const stored = outcome.outputs.filter((o) => !o.delivered);
  const delivered = completed ? deliveredOutputs(spec, outcome.outputs) : [];
  const outputs = !completed ? [] : recordOutputsStatements(
    s.db,
    { id: job.id, accountId: job.account_id },
    stored.map((o) => {
      const decl = spec.outputs[o.name];
      // A directory's asset is its main file (what its URL opens); the rest are listed beside it.
      const fileName = decl.kind === "directory" && o.mainFile ? o.mainFile : decl.fileName;
      const directory = decl.kind === "directory" && o.files && o.mainFile ? { files: o.files, mainFile: o.mainFile } : undefined;
      const contentType = directory ? contentTypeFor(fileName) : decl.contentType;
      return { label: o.name, fileName, contentType, objectKey: objectKeys.output(job.id, o.name, fileName), size: o.size, metadata: o.metadata, directory };
    }),
    now,
    new Date(Date.parse(now) + s.config.outputRetentionMs).toISOString(),
  );
  const timings = jobTimings(job.created_at, job.started_at, outcome, now);
  const deliveries = delivered.length ? [recordDeliveredStatement(s.db, job.id, delivered)] : [];
  return endJob(s, job.id, { ...finishFromOutcome(outcome, s.config.creditsPerSecond), timings }, { now, alongside: [...outputs, ...deliveries, ...alongside] });
}
