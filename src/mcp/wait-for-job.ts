import { isTerminal, type JobStatus } from "../jobs/transitions/job-states.ts";
import { answerOf, invalidArguments } from "./tool-answers.ts";
import type { ToolAnswer, ToolContext } from "./tool.ts";

/**
 * How long one tool call may wait for a job. Below the official SDK client's default request timeout
 * (60 s), so a call answers before its client gives up on it; a job still running by then comes back
 * with its id and status, and the agent waits again with `wait_for_job`. A Worker invocation is never
 * held for the job's whole run.
 */
export const MCP_MAX_WAIT_SECONDS = 45;
/** How often a waiting tool reads the job's progress (each read is one API GET that holds this long). */
const PROGRESS_EVERY_SECONDS = 2;

/** A tool's `waitSeconds`: absent is the most; anything but a whole number from 0 to the most is refused. */
export function waitSecondsOf(value: unknown): { seconds: number } | { refused: ToolAnswer } {
  if (value === undefined) return { seconds: MCP_MAX_WAIT_SECONDS };
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MCP_MAX_WAIT_SECONDS)
    return { seconds: value };
  return { refused: invalidArguments("waitSeconds", `a whole number of seconds from 0 to ${MCP_MAX_WAIT_SECONDS}`) };
}

/**
 * Waits up to `seconds` for the job to end, telling the client its progress on the way; answers with
 * the job as `GET /v1/jobs/{id}` shows it (a finished job's outputs carry their download URLs). A job
 * not finished in time is answered as it is, with `stillRunning: true` and what to call next. `id` is a
 * UUID (the tools check it) and `seconds` at most MCP_MAX_WAIT_SECONDS (waitSecondsOf).
 */
export async function waitForJob(
  id: string,
  seconds: number,
  ctx: Pick<ToolContext, "api" | "progress" | "signal">,
  now: () => number = Date.now,
): Promise<ToolAnswer> {
  const deadline = now() + seconds * 1000;
  let lastProgress = -1;
  for (;;) {
    const leftSeconds = Math.max(0, Math.floor((deadline - now()) / 1000));
    const waitSeconds = Math.min(leftSeconds, PROGRESS_EVERY_SECONDS);
    const answer = answerOf(await ctx.api("GET", `/v1/jobs/${id}?wait=${waitSeconds}`));
    if (!answer.ok) return answer;
    const job = answer.value as {
      status: JobStatus;
      progress: { percent: number | null; speed: number | null } | null;
    };
    if (isTerminal(job.status)) return answer;
    if (leftSeconds === 0 || ctx.signal.aborted) {
      return { ok: true, value: { ...job, stillRunning: true, next: `call wait_for_job with id ${id}` } };
    }
    const percent = job.progress?.percent ?? 0;
    if (percent > lastProgress) {
      lastProgress = percent;
      await ctx.progress({ progress: percent, total: 100, message: progressMessage(job) });
    }
  }
}

function progressMessage(job: { status: string; progress: { percent: number | null; speed: number | null } | null }) {
  if (job.status !== "running" || !job.progress) return job.status;
  const percent = job.progress.percent === null ? "" : ` ${job.progress.percent.toFixed(1)}%`;
  const speed = job.progress.speed === null ? "" : ` at ${job.progress.speed}x`;
  return `running${percent}${speed}`;
}
