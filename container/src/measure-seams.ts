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

/**
 * A split segment's seams (src/jobs/split/seam-quality.ts): its encode's edge frames against the frames
 * its command fed the encoder there, compared by one ffmpeg run as every measuring process is
 * (measureInSandbox: the job's sandbox, CPU and deadline). Answers the per-frame SSIM, or null when the
 * files were not there or did not compare frame for frame, and the time it took (billed as run time).
 */
export async function measureSeams(
  ctx: PassContext,
  task: NonNullable<RunnerJobRequest["task"]>,
): Promise<{ seams: SegmentSeams | null; runtimeMs: number }> {
  const request = task.seams;
  const encoded = request ? ctx.folder.visiblePath(request.output) : null;
  const edges = request ? ctx.folder.visiblePath(request.scratch) : null;
  if (!request || !encoded || !edges) return { seams: null, runtimeMs: 0 };
  const ssim: number[] = [];
  let partial = "";
  const read = (line: string) => {
    const match = SSIM_LINE.exec(line);
    // At most a frame more than asked: more means the two did not pair, and the result is refused anyway.
    if (match && ssim.length <= 2 * SEAM_FRAMES) ssim.push(Number(match[2]));
  };
  const done = await measureInSandbox(
    ctx,
    "ffmpeg",
    seamComparisonArguments(encoded, edges, request.windows, inputSafetyOptions),
    {
      onStdoutText: (text) => {
        const lines = (partial + text).split("\n");
        partial = lines.pop()!.slice(0, 512);
        for (const line of lines) read(line);
      },
    },
  );
  read(partial);
  return {
    seams: done.exitCode === 0 ? segmentSeamsOf(ssim, request.windows) : null,
    runtimeMs: done.runtimeMs,
  };
}
