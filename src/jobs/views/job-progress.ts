import { z } from "zod";

/**
 * A running job's progress, as its runner reads it from ffmpeg's `-progress` blocks
 * (container/src/progress.ts) and as the API shows it: one schema for the runner's report, the
 * job's answers and the OpenAPI document.
 */
export const progressSchema = z.object({
  /** Of the inputs' duration (a split job's: of its segments' frames, then the join); null when unknown. */
  percent: z.number().nullable(),
  /** ffmpeg's output time (`out_time`); null for a split job, whose segments keep the input's timestamps. */
  outTimeSeconds: z.number().nullable(),
  speed: z.number().nullable(),
  /** Frames written so far by the command (or step) running (ffmpeg's `frame`); null when ffmpeg reports none, and for a split job cut into segments. */
  frames: z.number().int().nullable(),
});

export type JobProgress = z.infer<typeof progressSchema>;

/**
 * Progress as the API shows it, from what was stored or pushed: a figure saved before `frames` was
 * reported (or by an older runner during a deploy) shows it as null; anything else unreadable, as none.
 */
export function progressView(json: string): JobProgress | null {
  const parsed = progressSchema.safeParse({ frames: null, ...(JSON.parse(json) as object) });
  return parsed.success ? parsed.data : null;
}
