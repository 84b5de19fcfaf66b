import type { RunnerOutcome } from "../runner/runner-protocol.ts";
import { z } from "zod";
import { outputMetadataSchema } from "./output-metadata.ts";
import type { JobSpec, OutputDestination } from "./job-request.ts";

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
  /** A directory output: every file, by its path under the prefix (`sha256` and `etag` above are its main file's). */
  files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string(), etag: z.string().nullable() })).optional(),
});
export type DeliveredOutput = z.infer<typeof deliveredOutputSchema>;

/** The URL of the object a destination makes: its PUT URL, or a multipart upload's (its completion's, whose query is the upload's id). */
export function objectUrlOf(d: OutputDestination): string {
  return d.url ?? d.parts!.completeUrl;
}

/** A destination URL as it may be shown and kept: no query (a presigned URL's signature), no fragment, no credentials. */
export function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export function deliveredOutputs(spec: JobSpec, outputs: RunnerOutcome["outputs"]): DeliveredOutput[] {
  return outputs.flatMap((o) => {
    const declared = spec.outputs[o.name];
    if (!o.delivered || !declared?.destination) return [];
    const files = o.delivered.files ? { files: o.delivered.files } : {};
    return [{ label: o.name, url: shownUrl(objectUrlOf(declared.destination)), contentType: declared.contentType, size: o.size, sha256: o.delivered.sha256, etag: o.delivered.etag, metadata: o.metadata, ...files }];
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
