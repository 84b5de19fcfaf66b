import type { z } from "zod";
import type { CreateJobRequest, jobInputSchema } from "../api/schemas.ts";
import { contentTypeFor } from "../storage/content-types.ts";
import { arrayInputName, scanPlaceholders } from "./placeholders.ts";
import { checkArguments } from "./policy/argument-policy.ts";

export type JobInput = z.infer<typeof jobInputSchema>;
export type OutputDeclaration = { fileName: string; contentType: string };

/** A validated job request in one shape, whichever of `input` / `inputs` the client used. */
export type JobSpec = {
  binary: "ffmpeg" | "ffprobe";
  args: string[];
  inputs: Record<string, JobInput>;
  outputs: Record<string, OutputDeclaration>;
  webhookUrl: string | null;
  /** Preset jobs: which recipe, with which parameters (args holds its expansion). */
  mode?: "raw" | "preset";
  preset?: string;
  params?: Record<string, unknown>;
};

export type RequestIssue = { path: string[]; message: string };

/** Cross-field rules the schema cannot express: input forms, placeholder names, unused outputs. */
export function checkJobRequest(req: CreateJobRequest): RequestIssue[] {
  const issues: RequestIssue[] = [];
  if (req.input && req.inputs) {
    issues.push({ path: ["input"], message: "use either `input` (array) or `inputs` (map), not both" });
    return issues;
  }
  const inputNames = new Set(req.input ? req.input.map((_, i) => arrayInputName(i)) : Object.keys(req.inputs ?? {}));
  const outputNames = Object.keys(req.outputs ?? {});
  for (const name of outputNames) {
    if (inputNames.has(name)) issues.push({ path: ["outputs", name], message: `"${name}" is already the name of an input` });
  }
  const { uses, problems } = scanPlaceholders(req.ffmpegArgs);
  for (const p of problems) issues.push({ path: ["ffmpegArgs", String(p.index)], message: p.message });
  const referenced = new Set<string>();
  for (const use of uses) {
    if (inputNames.has(use.name) || outputNames.includes(use.name)) referenced.add(use.name);
    else issues.push({ path: ["ffmpegArgs", String(use.index)], message: `{{${use.name}}} matches no declared input or output` });
  }
  for (const name of outputNames) {
    if (!referenced.has(name)) issues.push({ path: ["outputs", name], message: `output "${name}" is never referenced as {{${name}}} in ffmpegArgs` });
  }
  const names = { inputs: inputNames, outputs: new Set(outputNames) };
  for (const p of checkArguments(req.binary, req.ffmpegArgs, names)) issues.push({ path: ["ffmpegArgs", String(p.index)], message: p.message });
  return firstPerPath(issues);
}

/** One issue per location: the first found is the most basic (placeholders before policy). */
function firstPerPath(issues: RequestIssue[]): RequestIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = JSON.stringify(i.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function toJobSpec(req: CreateJobRequest): JobSpec {
  const inputs: Record<string, JobInput> = req.input
    ? Object.fromEntries(req.input.map((input, i) => [arrayInputName(i), input]))
    : { ...(req.inputs ?? {}) };
  const outputs = Object.fromEntries(
    Object.entries(req.outputs ?? {}).map(([name, o]) => [name, { fileName: o.fileName, contentType: o.contentType ?? contentTypeFor(o.fileName) }]),
  );
  return { binary: req.binary, args: [...req.ffmpegArgs], inputs, outputs, webhookUrl: req.webhookUrl ?? null };
}
