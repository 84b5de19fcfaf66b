import type { Services } from "../services.ts";
import { announceJobEnd } from "../webhooks/announce-job-end.ts";
import { finishJob, type JobFinish } from "./job-store.ts";

/**
 * The one way a job reaches a terminal state: the guarded update (and charge), then, only if this
 * call made the move, the end-of-job webhook. A late or duplicate end changes and sends nothing.
 */
export async function endJob(s: Services, jobId: string, finish: JobFinish): Promise<boolean> {
  const moved = await finishJob(s.db, jobId, finish, s.now().toISOString());
  if (moved) await announceJobEnd(s, jobId);
  return moved;
}

export function canceledFinish(runtimeSeconds = 0, creditsPerSecond = 0): JobFinish {
  return {
    status: "canceled", exitCode: null, runtimeSeconds, creditsCharged: runtimeSeconds * creditsPerSecond, errorCode: "CANCELED",
    errorMessage: "The job was canceled", stdout: null, stderrTail: null,
  };
}
