import { timePlaceholder } from "../../src/jobs/request/placeholders.ts";
import type { RunnerStep } from "../../src/runner/runner-protocol.ts";
import { ended } from "./job-ended.ts";
import type { Prober } from "./probe.ts";

/**
 * Writes the seconds into every `{{input@P%}}` of the job's commands, probing each input named that
 * way once. An input without a known duration (a still image) fails the job before anything runs.
 */
export async function resolveTimes(steps: RunnerStep[], probe: Prober): Promise<RunnerStep[]> {
  const names = new Set(steps.flatMap((s) => s.args.flatMap((a) => timePlaceholder(a)?.name ?? [])));
  if (names.size === 0) return steps;
  const durations = new Map<string, number>();
  await Promise.all(
    [...names].map(async (name) => {
      const d = Number((await probe(name))?.format?.duration);
      if (!Number.isFinite(d) || d <= 0)
        throw ended(
          "INPUT_DURATION_UNKNOWN",
          `Input "${name}" has no known duration, so {{${name}@…%}} cannot be worked out`,
        );
      durations.set(name, d);
    }),
  );
  return steps.map((s) => ({
    ...s,
    args: s.args.map((a) => {
      const t = timePlaceholder(a);
      return t ? (Math.floor(durations.get(t.name)! * t.percent * 10) / 1000).toFixed(3) : a;
    }),
  }));
}
