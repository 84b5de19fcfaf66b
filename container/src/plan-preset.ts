import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { declaredNames } from "../../src/jobs/policy/declared-names.ts";
import { mediaFactsOf } from "../../src/presets/media-facts.ts";
import { RECIPE_BOOK } from "../../src/presets/recipes/recipe-book.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { ended } from "./job-ended.ts";
import type { Prober } from "./probe.ts";
import { ownValue } from "../../src/own-key.ts";
import type { PlanReport } from "../../src/presets/recipes/recipe.ts";
import { answerQuestions, type MeasureInput } from "./answer-questions.ts";

/**
 * A preset job's command planned from what its inputs are: each input probed in the
 * sandbox, the recipe's questions answered (a key frame, a loudness: answer-questions.ts), the preset's
 * recipe run on the facts and answers, and the plan checked by the same argument policy as any command. A recipe's refusal (no video for a video preset, say) ends the job before anything runs.
 */
export async function planPresetJob(
  req: RunnerJobRequest,
  probe: Prober,
  measure: MeasureInput,
  pathOf: (name: string) => string | undefined,
): Promise<PlannedJob> {
  const preset = req.preset;
  const recipe = preset && ownValue(RECIPE_BOOK, preset.name);
  if (!preset || !recipe?.looksAtInputs) return { job: req, report: null };
  const inputs = await Promise.all(
    preset.inputNames.map(async (name) => {
      const facts = mediaFactsOf(await probe(name));
      if (!facts)
        throw ended(
          "INPUT_UNREADABLE",
          `Input "${name}" is not media ffprobe can read, so preset ${preset.name} cannot plan its command`,
        );
      return { name, facts };
    }),
  );
  const ctx = { inputs, outputs: Object.fromEntries(req.outputs.map((o) => [o.name, o.fileName])) };
  const questions = recipe.asks?.(preset.params, ctx) ?? [];
  const located = inputs.flatMap((i) => {
    const path = pathOf(i.name);
    return path ? [{ ...i, path }] : [];
  });
  const answers = questions.length ? await answerQuestions(questions, located, measure) : undefined;
  const plan = recipe.plan(preset.params, { ...ctx, answers });
  if ("refused" in plan) throw ended(plan.refused.code, plan.refused.message);
  const declared = declaredNames(
    req.inputs.map((i) => i.name),
    req.outputs.map((o) => o.name),
    [],
    false,
    req.outputs.filter((o) => o.kind === "directory").map((o) => o.name),
  );
  const refused = checkArguments(req.binary, plan.args, declared);
  if (refused.length)
    throw ended(
      "ARGUMENTS_REFUSED",
      `Preset ${preset.name} planned argument ${refused[0].index}: ${refused[0].message}`,
      { plannedArgs: plan.args },
    );
  return { job: { ...req, args: plan.args }, report: plan.report ?? null };
}

/** The job as planned, and what the preset measured and decided (the measuring's time: measureInJob). */
export type PlannedJob = { job: RunnerJobRequest; report: PlanReport | null };
