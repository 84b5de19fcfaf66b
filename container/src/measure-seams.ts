import { SSIM_LINE } from "../../src/jobs/checks/quality-report.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import {
  SEAM_FRAMES,
  seamComparisonArguments,
  segmentSeamsOf,
  type SegmentSeams,
} from "../../src/jobs/split/seam-quality.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { measureInSandbox, type PassContext } from "./analysis-pass.ts";
import { JobEnded } from "./job-ended.ts";

/** The longest a segment's seams comparison may take: it decodes one segment's encode, seconds of video. */
const SEAMS_MAX_MS = 30_000;

/**
 * A split segment's seams (src/jobs/split/seam-quality.ts): its encode's edge frames against the frames
 * its command fed the encoder there, compared by one ffmpeg run as every measuring process is
 * (measureInSandbox: the job's sandbox and CPU), within SEAMS_MAX_MS and the job's deadline. Answers the
 * per-frame SSIM, or null when the files were not there, did not compare frame for frame, or the time ran
 * out: the report is the service's look at its own joins, so it never fails the segment, and it is not
 * billed (the client pays for the encode, as for one run).
 */
export async function measureSeams(
  ctx: PassContext,
  task: NonNullable<RunnerJobRequest["task"]>,
): Promise<SegmentSeams | null> {
  const request = task.seams;
  const encoded = request ? ctx.folder.visiblePath(request.output) : null;
  const edges = request ? ctx.folder.visiblePath(request.scratch) : null;
  if (!request || !encoded || !edges) return null;
  const ssim: number[] = [];
  let partial = "";
  const read = (line: string) => {
    const match = SSIM_LINE.exec(line);
    // At most a frame more than asked: more means the two did not pair, and the result is refused anyway.
    if (match && ssim.length <= 2 * SEAM_FRAMES) ssim.push(Number(match[2]));
  };
  const bounded = { ...ctx, deadline: Math.min(ctx.deadline, Date.now() + SEAMS_MAX_MS) };
  const done = await measureInSandbox(
    bounded,
    "ffmpeg",
    seamComparisonArguments(encoded, edges, request.windows, inputSafetyOptions),
    {
      onStdoutText: (text) => {
        const lines = (partial + text).split("\n");
        partial = lines.pop()!.slice(0, 512);
        for (const line of lines) read(line);
      },
    },
  ).catch((err) => {
    // Out of its time (measureInSandbox ends a measure that runs out of it JOB_TIMEOUT): no report.
    if (err instanceof JobEnded && err.outcome.errorCode === "JOB_TIMEOUT") return null;
    throw err;
  });
  read(partial);
  return done?.exitCode === 0 ? segmentSeamsOf(ssim, request.windows) : null;
}
