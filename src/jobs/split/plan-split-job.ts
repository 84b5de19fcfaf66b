import type { Services } from "../../services.ts";
import { RunnerBusy } from "../../runner/runner-client.ts";
import { DRY_RUN_PROBE_TIMEOUT_MS } from "../limits.ts";
import { jobSpecOf, type JobRow } from "../job-store.ts";
import { runnerInputs } from "../runner-inputs.ts";
import { splitShape } from "./split-eligibility.ts";
import { planSplitTasks, WHOLE_TASK } from "./split-tasks.ts";
import { insertTasks } from "./task-store.ts";

export type PlanOutcome = { kind: "planned" } | { kind: "busy" } | { kind: "unreachable"; message: string } | { kind: "failed"; message: string };

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
    await insertTasks(s.db, job.id, [{ name: WHOLE_TASK, needs: [], params: { kind: "whole", reason: "the job is no longer a split encode" } }]);
    return { kind: "planned" };
  }
  const inputs = (await runnerInputs(s, spec, job.account_id)).filter((i) => i.name === shape.shape.input);
  let probed;
  try {
    probed = await s.runner.probe({ probeId: crypto.randomUUID(), inputs, allowedPrivateHosts: s.config.allowedPrivateHosts, timeoutMs: DRY_RUN_PROBE_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof RunnerBusy) return { kind: "busy" };
    return { kind: "unreachable", message: err instanceof Error ? err.message : String(err) };
  }
  const result = probed.inputs[shape.shape.input];
  if (!result) return { kind: "unreachable", message: "the runner did not probe the input" };
  if (!result.ok) return { kind: "failed", message: `Input "${shape.shape.input}" ${result.error}` };
  const tasks = result.split
    ? planSplitTasks(result.split, shape.shape, spec.parallel)
    : [{ name: WHOLE_TASK, needs: [], params: { kind: "whole" as const, reason: "ffprobe could not read the input's streams" } }];
  await insertTasks(s.db, job.id, tasks);
  return { kind: "planned" };
}
