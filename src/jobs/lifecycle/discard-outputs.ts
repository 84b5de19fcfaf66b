import type { Services } from "../../services.ts";
import { deletePrefix } from "../../storage/delete-objects.ts";

/**
 * A job that ended without completing has no outputs, but its runner may have stored some files
 * before it was stopped (a cancel or a timeout during the upload). Once the runner has let the job
 * go, those bytes are deleted: no record points at them, so retention never would.
 */
export async function discardUnrecordedOutputs(s: Services, jobId: string): Promise<void> {
  const row = await s.db.prepare("SELECT status FROM jobs WHERE id = ?1").bind(jobId).first<{ status: string }>();
  if (!row || row.status === "completed") return;
  await deletePrefix(s.bucket, `outputs/${jobId}/`).catch((err) =>
    console.error(`job ${jobId}: its unrecorded outputs were not deleted`, err),
  );
}
