import type { z } from "zod";

/**
 * A preset: a recipe for a common job, as data plus a pure expansion into the same raw arguments a
 * client could send (so every preset job is reproducible as a raw job and passes the same policy).
 * Placeholders name the preset's inputs (`inputs`) and outputs (`outputs`).
 */
export type Preset<P extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  binary: "ffmpeg" | "ffprobe";
  /** Input names the job must provide (map form), or "list" for N inputs given as `input` (input0…). */
  inputs: string[] | "list";
  params: P;
  outputs: Record<string, { fileName: string; contentType: string; kind: "file" | "directory" }>;
  expand: (params: z.output<P>, inputNames: string[]) => string[];
};

export const definePreset = <P extends z.ZodType>(p: Preset<P>): Preset => p as unknown as Preset;
