import { z } from "zod";

/**
 * What a stored output is, from the runner's ffprobe of it (container/src/probe.ts summarizes it):
 * enough for a client to show or check it. One schema for the runner's report, the API's answers and
 * the OpenAPI document; null where ffprobe could not read the file, or where it is over
 * OUTPUT_METADATA_MAX_BYTES (src/jobs/store/row-budget.ts: it is kept in the output's row).
 */
export const outputMetadataSchema = z.object({
  /** ffprobe's format name (a demuxer's: `mov,mp4,m4a,3gp,3g2,mj2` for MP4). */
  format: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  size: z.number().int(),
  bitRate: z.number().nullable(),
  streams: z.array(
    z.object({
      index: z.number().int().nullable(),
      type: z.string().nullable(),
      codec: z.string().nullable(),
      width: z.number().int().nullable().optional(),
      height: z.number().int().nullable().optional(),
      frameRate: z.number().nullable().optional(),
      sampleRate: z.number().int().nullable().optional(),
      channels: z.number().int().nullable().optional(),
    }),
  ),
});
export type OutputMetadata = z.infer<typeof outputMetadataSchema>;
