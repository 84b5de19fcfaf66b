import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { Services } from "../../services.ts";
import { objectKeys } from "../../storage/presigner.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { jobEndOutboxStatement, newEventId } from "../../webhooks/job-end-event.ts";
import { recordFinishedJob } from "../../metrics/metric-store.ts";
import { jobSpecOf } from "../store/job-store.ts";
import { recordOutputsStatements } from "../store/output-store.ts";
import { deliveredOutputs, recordDeliveredStatement } from "../store/delivered-outputs.ts";
import { jobTimings } from "../views/job-timings.ts";
import { writeEnding } from "../transitions/write-ending.ts";
import { endingFromRunner, type JobEnding } from "./job-endings.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * The one way a job reaches a terminal state: the guarded update, the charge, (for jobs with a
 * webhookUrl) the end event's outbox row and any `alongside` statements (a completed job's outputs),
 * in one D1 batch. A late or duplicate end changes and sends
 * nothing. If the queue send fails, the row is still there and the sweeper sends it; the same for
 * the job's metrics (counted once, after the end: the sweeper counts an end whose count was lost).
 */
export async function endJob(
  s: Services,
  jobId: string,
  ending: JobEnding,
  opts: { now?: string; alongside?: D1PreparedStatement[] } = {},
): Promise<boolean> {
  const ids = { deliveryId: crypto.randomUUID(), eventId: newEventId() };
  const now = opts.now ?? s.now().toISOString();
  const statements = [jobEndOutboxStatement(s.db, jobId, ids, now), ...(opts.alongside ?? [])];
  const { moved, alongside } = await writeEnding(s.db, jobId, ending, now, statements);
  if (moved) s.onJobEnded?.(jobId);
  if (alongside[0]?.meta.changes === 1) {
    await s.webhooksQueue.send({ deliveryId: ids.deliveryId }).catch((err) => {
      console.error(`job ${jobId}: end event queued later by the sweeper (send failed)`, err);
    });
  }
  if (moved) {
    await recordFinishedJob(s.db, jobId, s.metrics).catch((err) => {
      console.error(`job ${jobId}: metrics counted later by the sweeper`, err);
    });
  }
  return moved;
}

/** Ends a job the way its runner reported, recording its outputs (and `alongside`) in the same batch. */
export async function endJobFromRunner(
  s: Services,
  job: JobRow,
  outcome: RunnerOutcome,
  alongside: D1PreparedStatement[] = [],
): Promise<boolean> {
  const now = s.now().toISOString();
  const spec = jobSpecOf(job);
  const completed = outcome.status === "completed";
  const stored = outcome.outputs.filter((o) => !o.delivered);
  const delivered = completed ? deliveredOutputs(spec, outcome.outputs) : [];
  const outputs = !completed
    ? []
    : recordOutputsStatements(
        s.db,
        { id: job.id, accountId: job.account_id },
        stored.map((o) => {
          const decl = spec.outputs[o.name];
          // A directory's asset is its main file (what its URL opens); the rest are listed beside it.
          const fileName = decl.kind === "directory" && o.mainFile ? o.mainFile : decl.fileName;
          const directory =
            decl.kind === "directory" && o.files && o.mainFile ? { files: o.files, mainFile: o.mainFile } : undefined;
          const contentType = directory ? contentTypeFor(fileName) : decl.contentType;
          return {
            label: o.name,
            fileName,
            contentType,
            objectKey: objectKeys.output(job.id, o.name, fileName),
            size: o.size,
            metadata: o.metadata,
            directory,
            sha256: o.sha256,
          };
        }),
        now,
        new Date(Date.parse(now) + s.config.outputRetentionMs).toISOString(),
      );
  const timings = jobTimings(job.created_at, job.started_at, outcome, now);
  const deliveries = delivered.length ? [recordDeliveredStatement(s.db, job.id, delivered)] : [];
  return endJob(
    s,
    job.id,
    { ...endingFromRunner(outcome, s.config.creditsPerSecond), timings },
    { now, alongside: [...outputs, ...deliveries, ...alongside] },
  );
}
