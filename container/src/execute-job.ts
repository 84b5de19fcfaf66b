import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { declaredNames } from "../../src/jobs/policy/declared-names.ts";
import type { RunnerJobRequest, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { createJobFolder, openJobFolder, removeJobFolder, type JobFolder } from "./job-folder.ts";
import { createProber } from "./probe.ts";
import { inputFirst, runSteps } from "./run-steps.ts";
import type { JobHooks } from "./job-hooks.ts";
import type { RunnerSettings } from "./settings.ts";
import { JobEnded, ended } from "./job-ended.ts";
import { storeOutputs } from "./store-outputs.ts";
import { createPhaseClock } from "./phase-clock.ts";
import { planPresetJob } from "./plan-preset.ts";
import { measureInJob } from "./answer-questions.ts";
import { presetReportWithOutputs } from "./preset-report.ts";
import type { PlanReport } from "../../src/presets/recipes/recipe.ts";
import { openJobInputs, streamedInputNames, type JobInputs } from "./job-inputs.ts";
import { startEarlyProbes, type EarlyProbes } from "./early-output-probes.ts";
import { startOutputStreams, type OutputStreams } from "./output-streams.ts";
import { measureSeams } from "./measure-seams.ts";
import type { SegmentSeams } from "../../src/jobs/split/seam-quality.ts";

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
  // What its preset measured before it planned: billed however the job ends, and what it decided.
  const measured = { ms: 0 };
  let report: PlanReport | null = null;
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
    const planned = await planPresetJob(
      req,
      createProber(folder, settings),
      measureInJob(measuring, measured),
      (name) => jobFolder.visiblePath(name),
    );
    const job = planned.job;
    report = planned.report;
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
      runtimeMs: stored.ran.runtimeMs + measured.ms,
      ...(report ? { presetReport: presetReportWithOutputs(report, stored.outputs) } : {}),
      ...clock.stop(),
      ...plannedArgs,
      ...read(),
      ...seams,
    });
  } catch (err) {
    if (err instanceof JobEnded) {
      const o = inputFirst(err, inputs).outcome;
      const checked = Object.values(o.checks ?? {}).map((checks) => ({ checks }));
      return reported({
        ...o,
        runtimeMs: o.runtimeMs + measured.ms,
        ...clock.stop(),
        ...plannedArgs,
        ...read(),
        ...(report ? { presetReport: presetReportWithOutputs(report, checked) } : {}),
      });
    }
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
