import { copyOrEncode } from "./copy-or-encode.ts";
import { keyframeAnswer, keyframeQuestion } from "./input-questions.ts";
import { colourRefusal, planned, type Plan, type PlanInput, type RecipeContext } from "./recipe.ts";
import { canCopy, KEYFRAME_SEEK_MARGIN_SECONDS, seconds, seekTo } from "./stream-rules.ts";
import { withKeptSubtitles } from "./subtitle-rules.ts";

type TrimParams = { start: number; duration: number; subtitles?: boolean };

/** A copied cut from an input without an index: from just before its key frame to the trim's end. */
function copySeek(p: TrimParams, keyframe: number): { before: string[]; after: string[]; duration: string } {
  const from = Math.max(0, keyframe - KEYFRAME_SEEK_MARGIN_SECONDS);
  return {
    before: from > 0 ? ["-ss", seconds(from)] : [],
    after: [],
    duration: seconds(p.start + p.duration - from),
  };
}

/** Copying the video out of an input without an index needs the key frame its cut starts at. */
const copiesWithoutIndex = (input: PlanInput, fileName: string) =>
  !input.facts.seekIndex && input.facts.video !== null && canCopy(fileName, "video", input.facts.video.codec);

export const trimQuestions = (p: TrimParams, ctx: RecipeContext) => keyframeQuestion(ctx.inputs[0], p.start);

export function trimRecipe(p: TrimParams, ctx: RecipeContext): Plan {
  const plan = trimPlan(p, ctx);
  return p.subtitles ? withKeptSubtitles(plan, "trim", ctx, ctx.outputs.clip) : plan;
}

function trimPlan(p: TrimParams, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const { video, audio } = input.facts;
  if (!video && !audio)
    return {
      refused: {
        code: "INPUT_HAS_NO_VIDEO",
        message: `Preset trim needs a video or audio stream and input "${input.name}" has neither`,
      },
    };
  // Without a seek index (MPEG-TS) a copied cut starts at the key frame the runner found at or before the
  // start (the copy drops what comes before a key frame, so the seek lands just before it); where it found
  // none, a copy would have no picture until the next one, so the video is re-encoded, cut exactly.
  const keyframe = p.start > 0 ? keyframeAnswer(ctx.answers, input.name, p.start) : 0;
  const copyVideo = input.facts.seekIndex || (copiesWithoutIndex(input, ctx.outputs.clip) && keyframe !== null);
  // A re-encoded picture is shown, so its colour must be one the filters convert (not Dolby Vision 5).
  const reencodes = video !== null && !(copyVideo && canCopy(ctx.outputs.clip, "video", video.codec));
  const colour = reencodes ? colourRefusal("trim", input) : null;
  if (colour) return colour;
  const seek: { before: string[]; after: string[]; duration?: string } =
    copyVideo && !input.facts.seekIndex ? copySeek(p, keyframe!) : seekTo(input.facts, p.start, keyframe);
  return planned([
    ...seek.before,
    "-i",
    `{{${input.name}}}`,
    ...seek.after,
    "-t",
    seek.duration ?? String(p.duration),
    ...(video ? ["-map", "0:V:0"] : []),
    ...(audio ? ["-map", "0:a:0"] : []),
    ...copyOrEncode(ctx.outputs.clip, video, audio?.codec ?? null, copyVideo),
    "-avoid_negative_ts",
    "make_zero",
    "{{clip}}",
  ]);
}
