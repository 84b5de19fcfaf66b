import type { Services } from "../../services.ts";
import { RunnerBusy } from "../../runner/runner-client.ts";
import { DRY_RUN_PROBE_TIMEOUT_MS } from "../request/limits.ts";
import { jobSpecOf } from "../store/job-store.ts";
import { runnerInputs } from "../runner-request/runner-inputs.ts";
import type { JobSpec } from "../request/job-request.ts";
import type { SplitFacts } from "./split-facts.ts";
import type { MediaFacts } from "../../presets/media-facts.ts";
import { planPreset } from "../../presets/recipes/recipe-book.ts";
import { splitShape, type SplitShape } from "./split-eligibility.ts";
import { planSplitTasks, WHOLE_TASK } from "./split-tasks.ts";
import { insertTasks } from "./task-store.ts";
import type { JobRow } from "../store/job-row.ts";
import type { PlannedTask } from "./split-task.ts";
import type { RunnerInput, RunnerProbeResult } from "../../runner/runner-protocol.ts";
import { sceneScanOf, type CutScan, type SceneScan } from "./scene-cuts.ts";

export type PlanOutcome =
  | { kind: "planned" }
  | { kind: "busy" }
  | { kind: "unreachable"; message: string }
  | { kind: "failed"; code: "INPUT_FETCH_FAILED" | "SPLIT_PLAN_FAILED"; message: string };

/**
 * Plans a split job from a probe of its input on a runner of its own (the dry run's probe: headers and
 * index only, read by range), and writes its tasks. The cut is exact, not at keyframes the probe
 * found: each segment seeks to a keyframe at or before its start and trims on the frames' own
 * timestamps (split-plan.ts), so no keyframe scan of the whole input is needed.
 */
export async function planSplitJob(s: Services, job: JobRow): Promise<PlanOutcome> {
  const spec = jobSpecOf(job);
  const shape = splitShape(spec);
  if (!("shape" in shape) || !spec.parallel) {
    // Creation checked it: a job stored before its rules changed runs as one.
    await insertTasks(s.db, job.id, [
      { name: WHOLE_TASK, needs: [], params: { kind: "whole", reason: "the job is no longer a split encode" } },
    ]);
    return { kind: "planned" };
  }
  const inputs = (await runnerInputs(s, spec, job.account_id)).filter((i) => i.name === shape.shape.input);
  let probed: RunnerProbeResult;
  try {
    probed = await s.runner.probe({
      probeId: crypto.randomUUID(),
      inputs,
      allowedPrivateHosts: s.config.allowedPrivateHosts,
      timeoutMs: DRY_RUN_PROBE_TIMEOUT_MS,
      measureVideoEnd: true,
    });
  } catch (err) {
    if (err instanceof RunnerBusy) return { kind: "busy" };
    return { kind: "unreachable", message: err instanceof Error ? err.message : String(err) };
  }
  const result = probed.inputs[shape.shape.input];
  if (!result) return { kind: "unreachable", message: "the runner did not probe the input" };
  // An input that cannot be fetched fails the job as it would unsplit; one ffprobe cannot read runs whole,
  // to fail (or not) with ffmpeg's own words.
  if (!result.ok && result.error.startsWith("could not be fetched"))
    return { kind: "failed", code: "INPUT_FETCH_FAILED", message: `Input "${shape.shape.input}" ${result.error}` };
  const plan = (cutScans?: (CutScan | null)[]) =>
    result.ok ? planFrom(spec, shape.shape, result, cutScans) : whole(`the input's probe: ${result.error}`);
  let tasks: PlannedTask[];
  try {
    tasks = plan();
    const scan = sceneScanFor(tasks, result.ok ? result.split : null);
    if (scan) {
      const scanned = await scanScenes(s, inputs, shape.shape.input, scan);
      if (scanned.kind !== "scanned") return scanned;
      if (scanned.cutScans) tasks = plan(scanned.cutScans);
    }
  } catch (err) {
    // The same probe would plan the same way at every tick: the job fails once, saying why.
    console.error(`job ${job.id}: planning the split failed`, err);
    return {
      kind: "failed",
      code: "SPLIT_PLAN_FAILED",
      message: `The split could not be planned from what the input's probe read: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  await insertTasks(s.db, job.id, tasks);
  return { kind: "planned" };
}

const whole = (reason: string): PlannedTask[] => [{ name: WHOLE_TASK, needs: [], params: { kind: "whole", reason } }];

/**
 * The tasks, from what the probe read. A preset's command is planned again for this input first, as
 * its runner would (a deinterlaced picture, say, is no longer frame by frame): the split runs that command.
 */
function planFrom(
  spec: JobSpec,
  shape: SplitShape,
  probed: { split?: SplitFacts | null; media?: MediaFacts | null },
  cutScans?: (CutScan | null)[],
): PlannedTask[] {
  if (!probed.split) return whole("ffprobe could not read the input's streams");
  if (spec.mode !== "preset" || !spec.preset)
    return planSplitTasks(probed.split, shape, spec.parallel!, undefined, cutScans);
  // A preset that cannot plan for this input runs whole, and says why there as it would unsplit.
  if (!probed.media) return whole(`preset ${spec.preset} could not read the input's streams`);
  const plan = planPreset(spec.preset, spec.params ?? {}, {
    inputs: [{ name: shape.input, facts: probed.media }],
    outputs: Object.fromEntries(Object.entries(spec.outputs).map(([n, o]) => [n, o.fileName])),
  });
  if ("refused" in plan) return whole(plan.refused.message);
  const planned = splitShape({ ...spec, args: plan.args });
  if (!("shape" in planned))
    return whole(`preset ${spec.preset}'s command for this input cannot be split: ${planned.issues[0].message}`);
  return planSplitTasks(probed.split, planned.shape, spec.parallel!, plan.args, cutScans);
}

/** The scene scan of a plan with segments (scene-cuts.ts), or null. */
function sceneScanFor(tasks: PlannedTask[], facts: SplitFacts | null | undefined): SceneScan | null {
  const segments = tasks.flatMap((t) => (t.params.kind === "segment" ? [t.params.segment] : []));
  if (segments.length < 2 || !facts) return null;
  return sceneScanOf(segments, segments[1].startSeconds - segments[0].startSeconds, facts.formatStartSeconds);
}

/**
 * The runner's scan for changes of scene around the cuts: a probe of its own (the plan's first one is
 * already made). A busy or lost runner is a retry of the whole plan at the next tick, as the first probe's;
 * a scan that could not read the input leaves every cut where it was planned.
 */
async function scanScenes(
  s: Services,
  inputs: RunnerInput[],
  input: string,
  sceneScan: SceneScan,
): Promise<
  { kind: "scanned"; cutScans: (CutScan | null)[] | null } | { kind: "busy" } | { kind: "unreachable"; message: string }
> {
  try {
    const probed = await s.runner.probe({
      probeId: crypto.randomUUID(),
      inputs,
      allowedPrivateHosts: s.config.allowedPrivateHosts,
      timeoutMs: DRY_RUN_PROBE_TIMEOUT_MS,
      sceneScan,
    });
    const result = probed.inputs[input];
    return { kind: "scanned", cutScans: result?.ok ? (result.cutScans ?? null) : null };
  } catch (err) {
    if (err instanceof RunnerBusy) return { kind: "busy" };
    return { kind: "unreachable", message: err instanceof Error ? err.message : String(err) };
  }
}
