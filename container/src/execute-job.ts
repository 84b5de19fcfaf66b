import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { declaredNames } from "../../src/jobs/policy/declared-names.ts";
import type {
  RunnerJobRequest,
  RunnerJobState,
  RunnerOutcome,
  RunnerProgress,
} from "../../src/runner/runner-protocol.ts";
import { createJobFolder, openJobFolder, removeJobFolder, type JobFolder } from "./job-folder.ts";
import { createProber, longestDurationSeconds } from "./probe.ts";
import { runCommand, type RunResult } from "./run-command.ts";
import { resolveTimes } from "./resolve-times.ts";
import type { RunnerSettings } from "./settings.ts";
import { JobEnded, ended } from "./job-ended.ts";
import { storeOutputs } from "./store-outputs.ts";
import { createPhaseClock } from "./phase-clock.ts";
import { planPresetJob } from "./plan-preset.ts";
import { measureInJob } from "./answer-questions.ts";
import { presetReportWithOutputs } from "./preset-report.ts";
import { openJobInputs, streamedInputNames, type JobInputs } from "./job-inputs.ts";
import { startEarlyProbes, type EarlyProbes } from "./early-output-probes.ts";
import { startOutputStreams, type OutputStreams } from "./output-streams.ts";
import { measureSeams } from "./measure-seams.ts";
import type { SegmentSeams } from "../../src/jobs/split/seam-quality.ts";

export type JobHooks = {
  setState: (s: RunnerJobState) => void;
  setProgress: (p: RunnerProgress) => void;
  /** Called once the process runs, with a function that kills it. */
  onCancelable: (cancel: () => void) => void;
  /** Aborted when the job is canceled. */
  canceled: AbortSignal;
  /** The CPU the job's commands are pinned to (RUNNER_PIN_CPUS), or null. */
  cpu?: number | null;
  /**
   * The outcome, as soon as it is known: before the job's probes, input server and folder are cleaned
   * up (executeJob returns after that), so its coordinator hears of the end without waiting on them.
   */
  reportOutcome?: (outcome: RunnerOutcome) => void;
};

/**
 * The inputs' duration (for progress percent) is probed only once a job has run this long, and
 * beside it, not before it: short jobs never pay for the extra ffprobe, which reads the inputs again
 * (from their origin, for streamed ones) while the job itself reads them.
 */
const DURATION_PROBE_DELAY_MS = 2000;

/** Fetch inputs, check the arguments, run the binary sandboxed, store declared outputs, clean up. Never throws. */
export async function executeJob(
  req: RunnerJobRequest,
  settings: RunnerSettings,
  hooks: JobHooks,
): Promise<RunnerOutcome> {
  const deadline = Date.now() + req.timeoutMs;
  if (settings.isolation === null) {
    // The operator reads this on the job: what failed, and the setting that decides (docs/security.md).
    const reason = `The runner's sandbox cannot start on this host, so it runs no jobs: ${(settings.sandboxProblem ?? "").slice(0, 300)}`;
    return ended(
      "SANDBOX_UNAVAILABLE",
      `${reason}. Operators: allow user namespaces, or set CONTAINER_RUNNER_SANDBOX=off`,
    ).outcome;
  }
  const declared = declaredNames(
    req.inputs.map((i) => i.name),
    req.outputs.map((o) => o.name),
    (req.scratch ?? []).map((f) => f.name),
    req.steps !== undefined,
    req.outputs.filter((o) => o.kind === "directory").map((o) => o.name),
  );
  for (const [k, step] of (req.steps ?? [{ binary: req.binary, args: req.args }]).entries()) {
    const refused = checkArguments(step.binary, step.args, declared, { concatInputs: req.task?.kind === "join" });
    const where = req.steps ? `steps[${k}] argument` : "Argument";
    if (refused.length)
      return ended(
        "ARGUMENTS_REFUSED",
        `${where} ${refused[0].index}: ${refused[0].message}`,
        req.steps ? { failedStep: k } : {},
      ).outcome;
  }
  const clock = createPhaseClock();
  let folder: JobFolder | null = null;
  let inputs: JobInputs | null = null;
  let probes: EarlyProbes | null = null;
  let streams: OutputStreams | null = null;
  let plannedArgs: { plannedArgs?: string[] } = {};
  const read = () => (inputs ? { inputReads: inputs.reads() } : {});
  const reported = (outcome: RunnerOutcome): RunnerOutcome => {
    hooks.reportOutcome?.(outcome);
    return outcome;
  };
  try {
    const streamed = streamedInputNames(req, settings);
    folder = await createJobFolder(settings.workDir, req, settings.isolation, streamed);
    hooks.setState("fetching");
    inputs = await openJobInputs(req, folder, settings, deadline, hooks.canceled, streamed);
    if (hooks.canceled.aborted) throw ended("CANCELED", "The job was canceled");
    await openJobFolder(folder);
    const measuring = { folder, settings, deadline, canceled: hooks.canceled, cpu: hooks.cpu ?? null };
    const jobFolder = folder;
    const planned = await planPresetJob(req, createProber(folder, settings), measureInJob(measuring), (name) =>
      jobFolder.visiblePath(name),
    );
    const job = planned.job;
    if (job.preset) plannedArgs = { plannedArgs: job.args };
    clock.next("runMs");
    hooks.setState("running");
    probes = await startEarlyProbes(job, folder, settings);
    streams = startOutputStreams(job, folder, settings, hooks.canceled, deadline);
    const ran = await runSteps(job, folder, settings, deadline, hooks, inputs);
    let seams: { seams?: SegmentSeams | null } = {};
    if (req.task?.seams) seams = { seams: await measureSeams(measuring, req.task) };
    clock.next("storeMs");
    hooks.setState("uploading");
    const stored = await storeOutputs(job, folder, settings, ran, hooks.canceled, deadline, {
      probes,
      streams,
      cpu: hooks.cpu ?? null,
    });
    return reported({
      status: "completed",
      errorCode: null,
      errorMessage: null,
      outputs: stored.outputs,
      ...stored.ran,
      // The measuring its preset did before it planned is the first of its passes.
      runtimeMs: stored.ran.runtimeMs + planned.measuredMs,
      ...(planned.report ? { presetReport: presetReportWithOutputs(planned.report, stored.outputs) } : {}),
      ...clock.stop(),
      ...plannedArgs,
      ...read(),
      ...seams,
    });
  } catch (err) {
    if (err instanceof JobEnded)
      return reported({ ...inputFirst(err, inputs).outcome, ...clock.stop(), ...plannedArgs, ...read() });
    console.error(`job ${req.jobId}: unexpected runner error`, err);
    return reported({ ...ended("INTERNAL", "The runner failed unexpectedly").outcome, ...clock.stop() });
  } finally {
    await probes?.close().catch((err) => console.error(`job ${req.jobId}: output probes not stopped`, err));
    await streams?.close().catch((err) => console.error(`job ${req.jobId}: output streams not closed`, err));
    await inputs?.close().catch((err) => console.error(`job ${req.jobId}: input server not closed`, err));
    // A folder that cannot be removed now is removed when the runner next starts.
    if (folder)
      await removeJobFolder(folder).catch((err) => console.error(`job ${req.jobId}: job folder not removed`, err));
  }
}

/**
 * Runs the job's commands in order in its folder (a one-command job is one step). The inputs'
 * duration (for progress percent) is probed once, beside the first ffmpeg step; progress is spread
 * over the steps. The first step that fails ends the job, and a multi-step job says which one.
 */
async function runSteps(
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
function inputFirst(err: JobEnded, inputs: JobInputs | null): JobEnded {
  const failure = inputs?.failure();
  // A cancel or the deadline also ends the reads in flight: their breaking is not the cause.
  if (!failure || err.outcome.errorCode === "CANCELED" || err.outcome.errorCode === "JOB_TIMEOUT") return err;
  // Already said (a step's failure carries it, named by its step).
  if (err.outcome.errorCode === failure.outcome.errorCode) return err;
  const { status, errorCode, errorMessage } = failure.outcome;
  return new JobEnded({ ...err.outcome, status, errorCode, errorMessage });
}
