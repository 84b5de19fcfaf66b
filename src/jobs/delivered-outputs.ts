import type { RunnerOutcome } from "../runner/runner-protocol.ts";
import { z } from "zod";
import { outputMetadataSchema } from "./output-metadata.ts";
import type { JobSpec } from "./job-request.ts";

/** An output the runner sent to the user's own storage (its `destination`): what the job records of it. */
export const deliveredOutputSchema = z.object({
  label: z.string(),
  /** The destination's URL without its query and fragment (they hold the signature). */
  url: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  /** The storage's answer's ETag, if it gave one. */
  etag: z.string().nullable(),
  metadata: outputMetadataSchema.nullable(),
});
export type DeliveredOutput = z.infer<typeof deliveredOutputSchema>;

/** A destination URL as it may be shown and kept: no query (a presigned URL's signature), no fragment, no credentials. */
export function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export function deliveredOutputs(spec: JobSpec, outputs: RunnerOutcome["outputs"]): DeliveredOutput[] {
  return outputs.flatMap((o) => {
    const declared = spec.outputs[o.name];
    if (!o.delivered || !declared?.destination) return [];
    return [{ label: o.name, url: shownUrl(declared.destination.url), contentType: declared.contentType, size: o.size, sha256: o.delivered.sha256, etag: o.delivered.etag, metadata: o.metadata }];
  });
}

/** Written with the job's end, in its batch: only onto a job that completed (a late or duplicate end writes nothing). */
export function recordDeliveredStatement(db: D1Database, jobId: string, delivered: DeliveredOutput[]): D1PreparedStatement {
  return db.prepare("UPDATE jobs SET delivered_json = ?2 WHERE id = ?1 AND status = 'completed' AND delivered_json IS NULL").bind(jobId, JSON.stringify(delivered));
}

/** What a job's row holds of its delivered outputs (none before it completed). */
export function deliveredOutputsOf(deliveredJson: string | null | undefined): DeliveredOutput[] {
  return deliveredJson ? (JSON.parse(deliveredJson) as DeliveredOutput[]) : [];
}
