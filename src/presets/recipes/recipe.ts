import type { MediaFacts } from "../media-facts.ts";
import type { InputAnswers } from "./input-questions.ts";
import type { LoudnessReport } from "./loudness-plan.ts";

/**
 * A preset's recipe: its command planned from its parameters and what its inputs are.
 * Zod-free, like everything under recipes/: the runner plans a preset job once it has probed the
 * inputs; the Worker plans it for a typical input to show and check the command before it runs.
 */
export type PlanInput = { name: string; facts: MediaFacts };

export type RecipeContext = {
  /** The preset's inputs in its own order (a list preset: input0, input1, …). */
  inputs: PlanInput[];
  /** The output file names, by output name (the client may rename them). */
  outputs: Record<string, string>;
  /** What the runner measured of the inputs for the recipe's questions; absent where nothing was asked (the Worker's plan). */
  answers?: InputAnswers;
};

export type PresetErrorCode =
  | "INPUT_HAS_NO_VIDEO"
  | "INPUT_HAS_NO_AUDIO"
  | "INPUT_HAS_NO_SUBTITLES"
  | "SUBTITLES_NOT_TEXT"
  | "INPUT_SILENT"
  | "INPUT_UNREADABLE"
  | "INPUT_COLOUR_UNSUPPORTED";

/** A preset that cannot make what it promises from these inputs: the job fails at once with this. */
export type Refusal = { code: PresetErrorCode; message: string };

/** What a preset measured and decided as it planned, for the job's result (`presetReport`). */
export type PlanReport = { loudness?: LoudnessReport };

export type Plan = { args: string[]; report?: PlanReport } | { refused: Refusal };

export type Recipe<P> = (params: P, ctx: RecipeContext) => Plan;

export const planned = (args: string[], report?: PlanReport): Plan => (report ? { args, report } : { args });

/** The input's video, or the refusal that says this preset needs one. */
export function needVideo(
  preset: string,
  input: PlanInput,
  instead = "",
): { video: NonNullable<MediaFacts["video"]> } | { refused: Refusal } {
  const video = input.facts.video;
  const colour = colourRefusal(preset, input);
  if (colour) return colour;
  if (video) return { video };
  const also = input.facts.audio ? ` (it holds audio only${instead ? `: ${instead}` : ""})` : "";
  return {
    refused: {
      code: "INPUT_HAS_NO_VIDEO",
      message: `Preset ${preset} needs a video stream and input "${input.name}" has none${also}`,
    },
  };
}

/** The input's audio, or the refusal that says this preset needs some. */
export function needAudio(
  preset: string,
  input: PlanInput,
): { audio: NonNullable<MediaFacts["audio"]> } | { refused: Refusal } {
  if (input.facts.audio) return { audio: input.facts.audio };
  return {
    refused: {
      code: "INPUT_HAS_NO_AUDIO",
      message: `Preset ${preset} needs an audio stream and input "${input.name}" has none`,
    },
  };
}

/**
 * The refusal for a picture whose colour no filter here converts: Dolby Vision profile 5, whose base layer
 * is Dolby's IPT-PQ-c2 with no HDR10 or HLG picture beside it (tone-mapped as PQ it comes out green and purple).
 */
export function colourRefusal(preset: string, input: PlanInput): { refused: Refusal } | null {
  const dolby = input.facts.video?.hdr?.dolbyVision;
  if (dolby?.compatibility !== 0) return null;
  return {
    refused: {
      code: "INPUT_COLOUR_UNSUPPORTED",
      message: `Preset ${preset} cannot show input "${input.name}": it is Dolby Vision profile ${dolby.profile} without an HDR10 or HLG base layer, which only a Dolby Vision decoder renders right`,
    },
  };
}
