import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { splitShape, type SplitShape } from "../../src/jobs/split/split-eligibility.ts";
import type { SplitFacts } from "../../src/jobs/split/split-facts.ts";

/* The jobs and probe facts the split planner's unit tests share. */

/** A one-input ffmpeg job with these arguments, writing `fileName` (an MP4 unless said otherwise). */
export const spec = (args: string[], fileName = "out.mp4"): JobSpec => ({
  binary: "ffmpeg",
  args,
  inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } },
  outputs: { out: { fileName, contentType: "video/mp4" } },
  webhookUrl: null,
});
/** The split shape of such a job; throws with the issues where it cannot be split. */
export const shapeOf = (args: string[], fileName?: string): SplitShape => {
  const s = splitShape(spec(args, fileName));
  if (!("shape" in s)) throw new Error(JSON.stringify(s.issues));
  return s.shape;
};
/** An H.264 encode that keeps the audio, as AAC. */
export const withAudio = shapeOf(["-i", "{{video}}", "-c:v", "libx264", "-c:a", "aac", "{{out}}"]);
/** What a plan reads of a 61 s MP4 with audio whose video starts 0.5 s in, at 30000/1001 frames a second. */
export const mp4: SplitFacts = {
  format: "mov,mp4,m4a,3gp,3g2,mj2",
  formatStartSeconds: 0,
  formatDurationSeconds: 61,
  video: { startSeconds: 0.5, durationSeconds: 60.5, frameRate: "30000/1001" },
  hasAudio: true,
  videoStreams: 1,
  audioStreams: 1,
};
