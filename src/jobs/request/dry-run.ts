import type { RunnerInput, RunnerProbeResult } from "../../runner/runner-protocol.ts";
import { buildArgv } from "../runner-request/command-line.ts";
import { jobLayout, visiblePaths } from "../runner-request/job-paths.ts";
import { jobSteps, type JobSpec } from "./job-request.ts";

/**
 * The command lines a job would run, as the runner builds them: placeholders resolved to the paths
 * inside its sandbox (`/job/in/…`, `/job/out/…`, `/job/work/…`), the service's own options added.
 * `{{input@P%}}` stays as written: the runner works it out from the input's duration.
 */
export function dryRunCommands(spec: JobSpec, inputs: RunnerInput[], maxOutputBytes: number) {
  const outputs = Object.entries(spec.outputs).map(([name, o]) => ({ name, fileName: o.fileName, kind: o.kind }));
  const scratch = Object.entries(spec.scratch ?? {}).map(([name, fileName]) => ({ name, fileName }));
  const pathOf = visiblePaths(jobLayout(inputs, outputs, scratch), "/job");
  return jobSteps(spec).map((step) => ({
    binary: step.binary,
    argv: [step.binary, ...buildArgv(step.binary, step.args, pathOf, maxOutputBytes)],
  }));
}

/**
 * What the job would cost if it ran as long as its longest input plays (real time). Transcodes run
 * faster or slower than real time with their settings, so this is a guide, not a quote.
 */
export function creditEstimate(probe: RunnerProbeResult, creditsPerSecond: number, steps: number) {
  const durations = Object.values(probe.inputs).flatMap((i) => (i.ok && i.durationSeconds ? [i.durationSeconds] : []));
  if (durations.length === 0) return null;
  const seconds = Math.ceil(Math.max(...durations)) * steps;
  return {
    seconds,
    credits: seconds * creditsPerSecond,
    basis: "each command running as long as the longest input plays (real time)",
  };
}
