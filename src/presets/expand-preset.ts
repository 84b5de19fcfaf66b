import type { CreateJobRequest } from "../api/schemas/job-request.ts";
import type { PresetJobRequest } from "../api/schemas/presets.ts";
import type { RequestIssue } from "../jobs/request/job-request.ts";
import { contentTypeFor } from "../storage/content-types.ts";
import { PRESETS } from "./catalog.ts";
import type { Preset } from "./preset.ts";
import { typicalInputFor } from "./media-facts.ts";
import { planPreset, RECIPE_BOOK } from "./recipes/recipe-book.ts";
import { ownValue } from "../own-key.ts";

export type ExpandedPreset = { request: CreateJobRequest; preset: string; params: Record<string, unknown> };

/**
 * A preset job as the raw job it stands for: the preset's arguments for these parameters planned for
 * a typical input (the runner plans them again from the real inputs), its outputs (with the client's
 * file names, if it renamed them), the client's inputs. The result goes through the same checks as
 * any raw job.
 */
export function expandPresetJob(req: PresetJobRequest): { issues: RequestIssue[] } | ExpandedPreset {
  const preset = PRESETS.get(req.preset);
  if (!preset)
    return { issues: [{ path: ["preset"], message: `no preset "${req.preset}": GET /v1/presets lists them` }] };
  const issues: RequestIssue[] = [];
  const parsed = preset.params.safeParse(req.params ?? {});
  if (!parsed.success) {
    for (const i of parsed.error.issues) issues.push({ path: ["params", ...i.path.map(String)], message: i.message });
  }
  let inputNames: string[] = [];
  if (preset.inputs === "list") {
    if (!req.input || req.input.length < 2 || req.inputs)
      issues.push({
        path: ["input"],
        message: `preset ${preset.name} takes its inputs as a list: "input": [ … ], at least 2`,
      });
    else inputNames = req.input.map((_, i) => `input${i}`);
  } else {
    const given = req.inputs ?? {};
    if (req.input)
      issues.push({
        path: ["input"],
        message: `preset ${preset.name} takes named inputs: "inputs": { ${preset.inputs.join(", ")} }`,
      });
    for (const name of preset.inputs)
      if (!given[name]) issues.push({ path: ["inputs", name], message: `preset ${preset.name} needs input "${name}"` });
    const optional = preset.optionalInputs ?? [];
    for (const name of Object.keys(given))
      if (!preset.inputs.includes(name) && !optional.includes(name))
        issues.push({ path: ["inputs", name], message: `preset ${preset.name} has no input "${name}"` });
    inputNames = presetInputNames(preset, given);
  }
  for (const name of Object.keys(req.outputs ?? {})) {
    if (!preset.outputs[name])
      issues.push({ path: ["outputs", name], message: `preset ${preset.name} has no output "${name}"` });
  }
  if (issues.length || !parsed.success) return { issues };
  const outputs = Object.fromEntries(
    Object.entries(preset.outputs).map(([name, o]) => {
      const fileName = req.outputs?.[name]?.fileName ?? o.fileName;
      const kind = o.kind === "directory" ? { kind: "directory" as const } : {};
      // The preset's own checks (what its policy promises), unless the client gave its own.
      const checks =
        req.outputs?.[name]?.checks ??
        o.checks?.(parsed.data as Record<string, unknown>, { fileName, split: req.parallel !== undefined });
      return [
        name,
        {
          fileName,
          contentType: fileName === o.fileName ? o.contentType : contentTypeFor(fileName),
          ...kind,
          ...(checks ? { checks } : {}),
        },
      ];
    }),
  );
  const plan = planPreset(preset.name, parsed.data, {
    inputs: inputNames.map((name) => ({ name, facts: typicalInputFor(parsed.data as Record<string, unknown>) })),
    outputs: Object.fromEntries(Object.entries(outputs).map(([name, o]) => [name, o.fileName])),
  });
  if ("refused" in plan) return { issues: [{ path: ["preset"], message: plan.refused.message }] };
  return {
    preset: preset.name,
    params: parsed.data as Record<string, unknown>,
    request: {
      binary: preset.binary,
      ...(preset.inputs === "list" ? { input: req.input } : { inputs: req.inputs }),
      outputs,
      ffmpegArgs: plan.args,
      ...(req.webhookUrl ? { webhookUrl: req.webhookUrl } : {}),
      ...(req.onFailedCheck ? { onFailedCheck: req.onFailedCheck } : {}),
    },
  };
}

/**
 * What the runner needs to plan a preset job again from its real inputs (RunnerJobRequest.preset):
 * nothing for raw jobs and for presets whose command is the same for any input.
 */
export function presetForRunner(spec: {
  mode?: string;
  preset?: string;
  params?: Record<string, unknown>;
  inputs: Record<string, unknown>;
}): { preset?: { name: string; params: Record<string, unknown>; inputNames: string[] } } {
  const preset = spec.mode === "preset" && spec.preset ? PRESETS.get(spec.preset) : undefined;
  if (!preset || !ownValue(RECIPE_BOOK, preset.name)?.looksAtInputs) return {};
  const inputNames = preset.inputs === "list" ? Object.keys(spec.inputs) : presetInputNames(preset, spec.inputs);
  return { preset: { name: preset.name, params: spec.params ?? {}, inputNames } };
}

/** A map-form preset's inputs in the recipe's order: its own, then the optional ones the job gave. */
function presetInputNames(preset: Preset, given: Record<string, unknown>): string[] {
  const inputs = preset.inputs === "list" ? [] : preset.inputs;
  return [...inputs, ...(preset.optionalInputs ?? []).filter((name) => Object.hasOwn(given, name))];
}
