import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import { z } from "zod";
import { outputMetadataSchema } from "../views/output-metadata.ts";
import type { JobSpec, OutputDestination } from "../request/job-request.ts";
import { JOB_COLUMN_MAX_BYTES } from "./row-budget.ts";
import { headBytes, utf8Bytes } from "./stored-bytes.ts";

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
  /** A directory output: every file, by its path under the prefix (`sha256` and `etag` above are its main file's), while the job's row has room (storedDelivered). */
  files: z
    .array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string(), etag: z.string().nullable() }))
    .optional(),
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
    return [
      {
        label: o.name,
        url: shownUrl(objectUrlOf(declared.destination)),
        contentType: declared.contentType,
        size: o.size,
        sha256: o.delivered.sha256,
        etag: o.delivered.etag,
        metadata: o.metadata,
        ...files,
      },
    ];
  });
}

/** Written with the job's end, in its batch: only onto a job that completed (a late or duplicate end writes nothing). */
export function recordDeliveredStatement(
  db: D1Database,
  jobId: string,
  delivered: DeliveredOutput[],
): D1PreparedStatement {
  return db
    .prepare("UPDATE jobs SET delivered_json = ?2 WHERE id = ?1 AND status = 'completed' AND delivered_json IS NULL")
    .bind(jobId, JSON.stringify(storedDelivered(delivered)));
}

/** An ETag is a short quoted token; a destination may answer anything, which the runner reports as it came. */
const REPORTED_TEXT_MAX_BYTES = 1024;

/**
 * What the job's row keeps of its deliveries, within its share (src/jobs/store/row-budget.ts): the
 * runner's reported strings cut to 1 KiB, then, while the whole is larger, a directory's file list
 * left out (the longest first), then an output's summary. Without them every output fits: 16
 * outputs of a label, a URL, a type, a size, a hash and an ETag.
 */
export function storedDelivered(
  delivered: DeliveredOutput[],
  maxBytes: number = JOB_COLUMN_MAX_BYTES.delivered_json,
): DeliveredOutput[] {
  const cut = (text: string | null) => (text === null ? null : headBytes(text, REPORTED_TEXT_MAX_BYTES));
  const out: DeliveredOutput[] = delivered.map((d) => ({
    ...d,
    sha256: headBytes(d.sha256, REPORTED_TEXT_MAX_BYTES),
    etag: cut(d.etag),
    ...(d.files
      ? {
          files: d.files.map((f) => ({
            path: headBytes(f.path, REPORTED_TEXT_MAX_BYTES),
            size: f.size,
            sha256: headBytes(f.sha256, REPORTED_TEXT_MAX_BYTES),
            etag: cut(f.etag),
          })),
        }
      : {}),
  }));
  const fits = () => utf8Bytes(JSON.stringify(out)) <= maxBytes;
  const bySize = (part: (d: DeliveredOutput) => unknown) =>
    out.map((d, i) => ({ i, bytes: utf8Bytes(JSON.stringify(part(d)) ?? "") })).sort((a, b) => b.bytes - a.bytes);
  for (const { i } of bySize((d) => d.files)) {
    if (fits()) return out;
    delete out[i].files;
  }
  for (const { i } of bySize((d) => d.metadata)) {
    if (fits()) return out;
    out[i] = { ...out[i], metadata: null };
  }
  return out;
}

/** What a job's row holds of its delivered outputs (none before it completed). */
export function deliveredOutputsOf(deliveredJson: string | null | undefined): DeliveredOutput[] {
  return deliveredJson ? (JSON.parse(deliveredJson) as DeliveredOutput[]) : [];
}
