import type { RunnerJobRequest, RunnerProgress } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
import { createProber, longestDurationSeconds } from "./probe.ts";
import { runCommand, type RunResult } from "./run-command.ts";
import { resolveTimes } from "./resolve-times.ts";
import type { RunnerSettings } from "./settings.ts";
import { JobEnded, ended } from "./job-ended.ts";
import type { JobInputs } from "./job-inputs.ts";
import type { JobHooks } from "./job-hooks.ts";

/**
 * The inputs' duration (for progress percent) is probed only once a job has run this long, and
 * beside it, not before it: short jobs never pay for the extra ffprobe, which reads the inputs again
 * (from their origin, for streamed ones) while the job itself reads them.
 */
const DURATION_PROBE_DELAY_MS = 2000;

/**
 * Runs the job's commands in order in its folder (a one-command job is one step). The inputs'
 * duration (for progress percent) is probed once, beside the first ffmpeg step; progress is spread
 * over the steps. The first step that fails ends the job, and a multi-step job says which one.
 */
export async function runSteps(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
  deadline: number,
  hooks: JobHooks,
  inputs: JobInputs,
): Promise<RunResult> {
  const steps = await resolveTimes(
    req.steps ?? [{ binary: req.binary, args: req.args }],
    createProber(folder, settings),
  );
  let duration: number | null = null;
  // No percent is wanted where progress is not reported (a split job's segments): no probe for it either.
  const durationProbe =
    steps.some((s) => s.binary === "ffmpeg") && req.notifyProgress !== false
      ? setTimeout(
          () =>
            void longestDurationSeconds(
              createProber(folder, settings),
              req.inputs.map((i) => i.name),
            ).then((d) => (duration = d)),
          DURATION_PROBE_DELAY_MS,
        )
      : undefined;
  let runtimeMs = 0;
  let last: RunResult | null = null;
  try {
    for (const [k, step] of steps.entries()) {
      if (hooks.canceled.aborted)
        throw ended("CANCELED", "The job was canceled", { runtimeMs, failedStep: req.steps ? k : undefined });
      const spread = (p: RunnerProgress): RunnerProgress => ({
        ...p,
        percent: p.percent === null ? null : Math.round(((k * 100 + p.percent) / steps.length) * 10) / 10,
      });
      try {
        last = await runCommand(step, {
          req,
          folder,
          settings,
          deadline,
          durationSeconds: () => duration,
          onProgress: (p) => hooks.setProgress(spread(p)),
          onCancelable: hooks.onCancelable,
          cpu: hooks.cpu ?? null,
        });
      } catch (err) {
        throw req.steps && err instanceof JobEnded ? inStep(inputFirst(err, inputs), k, runtimeMs) : err;
      }
      runtimeMs += last.runtimeMs;
      // ffmpeg may finish "successfully" on an input cut short: what the inputs went through decides.
      const inputFailure = inputs.failure();
      if (inputFailure) {
        const failedRun = new JobEnded({ ...inputFailure.outcome, ...last });
        throw req.steps ? inStep(failedRun, k, runtimeMs - last.runtimeMs) : failedRun;
      }
    }
  } finally {
    clearTimeout(durationProbe);
  }
  return { ...last!, runtimeMs };
}

/** A step's failure as the job's: the time of the steps before it counts, and the message names the step. */
function inStep(err: JobEnded, k: number, runtimeBeforeMs: number): JobEnded {
  const o = err.outcome;
  const errorMessage = o.errorCode === "CANCELED" ? o.errorMessage : `steps[${k}]: ${o.errorMessage}`;
  return new JobEnded({ ...o, runtimeMs: runtimeBeforeMs + o.runtimeMs, failedStep: k, errorMessage });
}

/**
 * An input that could not be read as it is (its origin failed, stalled or changed the file) is why the
 * job ended, whatever ffmpeg said of the bytes it got: its code and message, the run's time and output.
 */
export function inputFirst(err: JobEnded, inputs: JobInputs | null): JobEnded {
  const failure = inputs?.failure();
  // A cancel or the deadline also ends the reads in flight: their breaking is not the cause.
  if (!failure || err.outcome.errorCode === "CANCELED" || err.outcome.errorCode === "JOB_TIMEOUT") return err;
  // Already said (a step's failure carries it, named by its step).
  if (err.outcome.errorCode === failure.outcome.errorCode) return err;
  const { status, errorCode, errorMessage } = failure.outcome;
  return new JobEnded({ ...err.outcome, status, errorCode, errorMessage });
}
