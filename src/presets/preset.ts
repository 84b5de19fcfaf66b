import type { z } from "zod";
import type { OutputChecks } from "../jobs/checks/output-checks.ts";

/**
 * A preset: a common job as data. Its command comes from its recipe (src/presets/recipes/, by the
 * preset's name), planned from the parameters and what the inputs are: the Worker plans it for a
 * typical input to check it and show it; the runner plans it again from its probe of the real
 * inputs and runs that. Either way it is raw arguments that pass the same policy.
 * Placeholders name the preset's inputs (`inputs`) and outputs (`outputs`).
 */
export type Preset<P extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  binary: "ffmpeg" | "ffprobe";
  /** Input names the job must provide (map form), or "list" for N inputs given as `input` (input0…). */
  inputs: string[] | "list";
  /** Input names the job may also provide (a sidecar subtitle file, say); the recipe sees those given, after the others. */
  optionalInputs?: string[];
  params: P;
  /**
   * `checks`: what its policy promises of the output, from the job's parameters, measured before the
   * job completes (src/jobs/checks/); `GET /v1/presets` lists them for the default parameters.
   */
  outputs: Record<
    string,
    {
      fileName: string;
      contentType: string;
      kind: "file" | "directory";
      /** `split`: the job is a split encode, whose join does not read the input (no check may compare with it). */
      checks?: (params: Record<string, unknown>, output: { fileName: string; split: boolean }) => OutputChecks;
    }
  >;
  /** How it decides: what it adapts to, what it refuses (shown in `GET /v1/presets`). */
  policy: string;
};

export const definePreset = <P extends z.ZodType>(p: Preset<P>): Preset => p as unknown as Preset;
