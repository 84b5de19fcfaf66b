import { colourRefusal, needAudio, planned, type Plan, type RecipeContext } from "./recipe.ts";
import type { InputQuestion } from "./input-questions.ts";
import { loudnessFilter } from "./loudness-plan.ts";
import { audioEncoding, canCopy, keepCopiedVideo, webPictureFilters } from "./stream-rules.ts";

type AudioCodec = "aac" | "libopus" | "libmp3lame";

/**
 * The first audio track alone, re-encoded at a standard rate: MP3 at most stereo (the format's own
 * limit), AAC and Opus keep up to 7.1. Cover art and video are left out.
 */
export function audioExtractionRecipe(preset: string, codec: AudioCodec, maxChannels: number, extra: string[] = []) {
  return (p: { bitrateKbps: number }, ctx: RecipeContext): Plan => {
    const input = ctx.inputs[0];
    const need = needAudio(preset, input);
    if ("refused" in need) return need;
    return planned([
      "-i",
      `{{${input.name}}}`,
      "-map",
      "0:a:0",
      ...audioEncoding(need.audio, codec, p.bitrateKbps, maxChannels),
      ...extra,
      "{{audio}}",
    ]);
  };
}

type LoudnessParams = { target: number; truePeak: number; range: number };
const targetOf = (p: LoudnessParams) => ({ integratedLufs: p.target, truePeakDbtp: p.truePeak, rangeLu: p.range });

/** loudnorm's question: the first audio track's loudness, measured before the job plans its gain. */
export function loudnessQuestions(p: LoudnessParams, ctx: RecipeContext): InputQuestion[] {
  const input = ctx.inputs[0];
  return input?.facts.audio ? [{ kind: "loudness", input: input.name, target: targetOf(p) }] : [];
}

/**
 * EBU R128 loudness on the first audio track, in two passes (loudness-plan.ts): measured by the runner,
 * then one linear gain where the true peak allows, loudnorm's dynamic mode where not. loudnorm works at
 * 192 kHz inside, so the rate is set back to the input's (or a standard one); the video is copied when
 * the output's container holds it.
 */
export function loudnessRecipe(p: LoudnessParams, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needAudio("loudnorm", input);
  if ("refused" in need) return need;
  const measured = ctx.answers?.loudness.get(input.name);
  if (measured && measured.integratedLufs === null)
    return {
      refused: {
        code: "INPUT_SILENT",
        message: `Preset loudnorm measured input "${input.name}" as silent (below EBU R128's −70 LUFS gate, true peak ${measured.truePeakDbtp} dBTP): no gain brings silence to a loudness`,
      },
    };
  const { filter, report } = loudnessFilter(targetOf(p), measured);
  const v = input.facts.video;
  const colour = v && !canCopy(ctx.outputs.normalized, "video", v.codec) ? colourRefusal("loudnorm", input) : null;
  if (colour) return colour;
  const video = !v
    ? []
    : canCopy(ctx.outputs.normalized, "video", v.codec)
      ? ["-map", "0:V:0", "-c:v", "copy", ...keepCopiedVideo(ctx.outputs.normalized, v)]
      : [
          "-map",
          "0:V:0",
          "-c:v",
          "libx264",
          "-preset",
          "veryfast",
          "-crf",
          "18",
          "-vf",
          webPictureFilters(v, null).join(","),
        ];
  return planned(
    [
      "-i",
      `{{${input.name}}}`,
      ...video,
      "-map",
      "0:a:0",
      "-af",
      filter,
      ...audioEncoding(need.audio, "aac", 192, 8),
      "-movflags",
      "+faststart",
      "{{normalized}}",
    ],
    { loudness: report },
  );
}

export function waveformRecipe(p: { width: number; height: number; color: string }, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needAudio("waveform", input);
  if ("refused" in need) return need;
  return planned([
    "-i",
    `{{${input.name}}}`,
    "-filter_complex",
    `[0:a:0]showwavespic=s=${p.width}x${p.height}:colors=${p.color.replace("#", "0x")}`,
    "-frames:v",
    "1",
    "{{picture}}",
  ]);
}
