import type { MediaFacts } from "../media-facts.ts";
import { colourRefusal, planned, type Plan, type PlanInput, type RecipeContext } from "./recipe.ts";
import { even, pictureSize, scaleTo, seconds } from "./stream-rules.ts";
import { toSdrFilters } from "./tone-map.ts";

const MAX_FRAME_RATE = 60;
const DEFAULT_FRAME_RATE = 30;

/**
 * The inputs joined in order into one H.264/AAC MP4. The concat filter needs every segment alike, so
 * each is made so first: the first video input's size (others fitted inside it, letterboxed) and
 * frame rate, square pixels, 8-bit 4:2:0 (HDR tone-mapped to SDR), timestamps from zero; audio 48 kHz stereo. An input without
 * video shows black for its length, one without audio is silent for its length; with no video (or no
 * audio) in any input the output has none. One frame rate for all is also what keeps the filter from
 * duplicating frames without end when the inputs' rates differ.
 */
export function concatRecipe(_p: Record<string, never>, ctx: RecipeContext): Plan {
  const empty = ctx.inputs.find((i) => !i.facts.video && !i.facts.audio);
  if (empty)
    return {
      refused: {
        code: "INPUT_HAS_NO_VIDEO",
        message: `Preset concat needs video or audio in every input and input "${empty.name}" has neither`,
      },
    };
  for (const input of ctx.inputs) {
    const colour = colourRefusal("concat", input);
    if (colour) return colour;
  }
  const first = ctx.inputs.find((i) => i.facts.video)?.facts.video ?? null;
  const withAudio = ctx.inputs.some((i) => i.facts.audio);
  const size = first ? pictureSize(first, null) : null;
  const rate = first?.frameRate ? Math.min(first.frameRate, MAX_FRAME_RATE) : DEFAULT_FRAME_RATE;
  const parts = ctx.inputs.flatMap((input, i) => [
    ...(size ? [videoPart(input, i, size, rate)] : []),
    ...(withAudio ? [audioPart(input, i)] : []),
  ]);
  const labels = ctx.inputs.map((_, i) => `${size ? `[v${i}]` : ""}${withAudio ? `[a${i}]` : ""}`).join("");
  const graph = [
    ...parts,
    `${labels}concat=n=${ctx.inputs.length}:v=${size ? 1 : 0}:a=${withAudio ? 1 : 0}${size ? "[v]" : ""}${withAudio ? "[a]" : ""}`,
  ];
  return planned([
    ...ctx.inputs.flatMap((input) => ["-i", `{{${input.name}}}`]),
    "-filter_complex",
    graph.join(";"),
    ...(size ? ["-map", "[v]", "-c:v", "libx264", "-preset", "veryfast"] : []),
    ...(withAudio ? ["-map", "[a]", "-c:a", "aac", "-b:a", "160k"] : []),
    "-movflags",
    "+faststart",
    "{{joined}}",
  ]);
}

/** Length of an input for a stream it lacks (black or silence); a typical input's is unknown until probed. */
const lengthOf = (f: MediaFacts) => seconds(f.durationSeconds ?? 1);

function videoPart({ facts }: PlanInput, i: number, size: { width: number; height: number }, rate: number): string {
  const v = facts.video;
  const common = `fps=${seconds(rate)},format=yuv420p,setpts=PTS-STARTPTS[v${i}]`;
  if (!v)
    return `color=c=black:s=${size.width}x${size.height}:r=${seconds(rate)}:d=${lengthOf(facts)},setsar=1,${common}`;
  const shown = pictureSize(v, null);
  const fit = Math.min(size.width / shown.width, size.height / shown.height);
  const [w, h] = [Math.min(size.width, even(shown.width * fit)), Math.min(size.height, even(shown.height * fit))];
  const deinterlace = v.interlaced ? "yadif=mode=send_frame," : "";
  const sdr = toSdrFilters(v)
    .map((f) => `${f},`)
    .join("");
  return `[${i}:V:0]${deinterlace}${scaleTo(v, w, h)},${sdr}pad=${size.width}:${size.height}:(ow-iw)/2:(oh-ih)/2,${common}`;
}

function audioPart({ facts }: PlanInput, i: number): string {
  const tail = `asetpts=PTS-STARTPTS[a${i}]`;
  if (!facts.audio) return `anullsrc=r=48000:cl=stereo:d=${lengthOf(facts)},${tail}`;
  return `[${i}:a:0]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,${tail}`;
}
