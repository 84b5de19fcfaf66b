import type { Services } from "../../services.ts";
import { jobEndOutboxStatement, newEventId } from "../../webhooks/job-end-event.ts";
import { recordFinishedJob } from "../../metrics/metric-store.ts";
import { finishJob, type JobFinish } from "../store/job-store.ts";

/**
 * The one way a job reaches a terminal state: the guarded update, the charge, (for jobs with a
 * webhookUrl) the end event's outbox row and any `alongside` statements (a completed job's outputs),
 * in one D1 batch. A late or duplicate end changes and sends
 * nothing. If the queue send fails, the row is still there and the sweeper sends it; the same for
 * the job's metrics (counted once, after the end: the sweeper counts an end whose count was lost).
 */
export async function endJob(s: Services, jobId: string, finish: JobFinish, opts: { now?: string; alongside?: D1PreparedStatement[] } = {}): Promise<boolean> {
  const ids = { deliveryId: crypto.randomUUID(), eventId: newEventId() };
  const now = opts.now ?? s.now().toISOString();
  const statements = [jobEndOutboxStatement(s.db, jobId, ids, now), ...(opts.alongside ?? [])];
  const { moved, alongside } = await finishJob(s.db, jobId, finish, now, statements);
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

export function canceledFinish(runtimeSeconds = 0, creditsPerSecond = 0): JobFinish {
  return {
    status: "canceled", exitCode: null, runtimeSeconds, creditsCharged: runtimeSeconds * creditsPerSecond, errorCode: "CANCELED",
    errorMessage: "The job was canceled", stdout: null, stderrTail: null,
  };
}
