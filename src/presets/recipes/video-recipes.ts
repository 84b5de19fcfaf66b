import type { VideoFacts } from "../media-facts.ts";
import { colourRefusal, needVideo, planned, type Plan, type PlanInput, type RecipeContext } from "./recipe.ts";
import { keyframeAnswer, keyframeQuestion } from "./input-questions.ts";
import {
  audioEncoding,
  canCopy,
  reencoded,
  KEYFRAME_SEEK_MARGIN_SECONDS,
  keepCopiedVideo,
  pictureSize,
  seconds,
  seekTo,
  stillPictureFilters,
  webPictureFilters,
} from "./stream-rules.ts";
import { hdrTags, toSdrFilters } from "./tone-map.ts";
import { keptSubtitles } from "./subtitle-rules.ts";

/** A still's size for a given width: square pixels, the picture's display aspect, even height. */
function stillScale(v: VideoFacts, width: number, flags = ""): string {
  const height = Math.max(2, Math.round((width * v.height) / (v.width * v.pixelAspect) / 2) * 2);
  return `scale=${width}:${height}${flags ? `:flags=${flags}` : ""},setsar=1`;
}

/** A time past the input's end is taken as its middle (a 1 s default on a half-second clip still gets a frame). */
function within(at: number, duration: number | null): number {
  return duration !== null && at >= duration ? duration / 2 : at;
}

type ThumbnailParams = { at?: number; percent?: number; width: number };

/** The thumbnail's time in seconds, or a placeholder the runner works out when the input's length is unknown. */
function thumbnailTime(p: ThumbnailParams, input: PlanInput): number | string {
  const { durationSeconds } = input.facts;
  if (p.percent === undefined) return Number(seconds(within(p.at ?? 1, durationSeconds)));
  // Unknown length: the runner works the seconds out from its probe ({{video@P%}}, src/jobs/request/placeholders.ts).
  return durationSeconds === null
    ? `{{${input.name}@${Math.round(p.percent * 1000) / 1000}%}}`
    : Number(seconds((durationSeconds * p.percent) / 100));
}

export const thumbnailQuestions = (p: ThumbnailParams, ctx: RecipeContext) =>
  keyframeQuestion(ctx.inputs[0], thumbnailTime(p, ctx.inputs[0]));

export function thumbnailRecipe(p: ThumbnailParams, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needVideo("thumbnail", input);
  if ("refused" in need) return need;
  const at = thumbnailTime(p, input);
  const seek = seekTo(input.facts, at, typeof at === "number" ? keyframeAnswer(ctx.answers, input.name, at) : null);
  const filters = [...stillPictureFilters(need.video), stillScale(need.video, p.width), ...toSdrFilters(need.video)];
  return planned([
    ...seek.before,
    "-i",
    `{{${input.name}}}`,
    ...seek.after,
    "-map",
    "0:V:0",
    "-frames:v",
    "1",
    "-vf",
    filters.join(","),
    "{{thumbnail}}",
  ]);
}

export function contactSheetRecipe(
  p: { columns: number; rows: number; everyFrames: number; tileWidth: number },
  ctx: RecipeContext,
): Plan {
  const input = ctx.inputs[0];
  const need = needVideo("contact-sheet", input);
  if ("refused" in need) return need;
  const filters = [
    ...stillPictureFilters(need.video),
    `select=not(mod(n\\,${p.everyFrames}))`,
    stillScale(need.video, p.tileWidth),
    ...toSdrFilters(need.video),
    `tile=${p.columns}x${p.rows}`,
  ];
  return planned([
    "-i",
    `{{${input.name}}}`,
    "-map",
    "0:V:0",
    "-vf",
    filters.join(","),
    "-frames:v",
    "1",
    "-fps_mode",
    "vfr",
    "{{sheet}}",
  ]);
}

/** web-mp4 and webm: one picture for the web, the first audio track (if any) in the codec the container plays. */
function webVideo(
  preset: string,
  output: string,
  video: string[] | ((v: VideoFacts) => string[]),
  audio: { codec: "aac" | "libopus"; kbps: number },
  picture: { height: number; keepHdr?: boolean },
  ctx: RecipeContext,
  extra: string[],
): Plan {
  const input = ctx.inputs[0];
  const need = needVideo(preset, input, "audio-aac or audio-opus extracts it");
  if ("refused" in need) return need;
  const a = input.facts.audio;
  return planned([
    "-i",
    `{{${input.name}}}`,
    "-map",
    "0:V:0",
    ...(a ? ["-map", "0:a:0"] : []),
    "-vf",
    webPictureFilters(need.video, picture.height, picture.keepHdr).join(","),
    ...(typeof video === "function" ? video(need.video) : video),
    ...(a ? audioEncoding(a, audio.codec, audio.kbps, 2) : ["-an"]),
    ...extra,
    `{{${output}}}`,
  ]);
}

export function webMp4Recipe(
  p: { height: number; crf: number; speed: string; subtitles?: boolean },
  ctx: RecipeContext,
): Plan {
  const plan = webVideo(
    "web-mp4",
    "mp4",
    ["-c:v", "libx264", "-preset", p.speed, "-crf", String(p.crf)],
    { codec: "aac", kbps: 128 },
    { height: p.height },
    ctx,
    ["-movflags", "+faststart"],
  );
  return p.subtitles ? withSubtitles(plan, "web-mp4", ctx, ctx.outputs.mp4) : plan;
}

/** A plan with the input's subtitle tracks kept in its output (subtitle-rules.ts), or the refusal that says why not. */
function withSubtitles(plan: Plan, preset: string, ctx: RecipeContext, fileName: string): Plan {
  if ("refused" in plan) return plan;
  const subtitles = keptSubtitles(preset, ctx.inputs[0], 0, fileName);
  if ("refused" in subtitles) return subtitles;
  return { ...plan, args: [...plan.args.slice(0, -1), ...subtitles.args, ...plan.args.slice(-1)] };
}

/** `hdr: "keep"`: an HDR input stays HDR as VP9 profile 2 (10-bit), tagged with its own transfer. */
export function webmRecipe(p: { height: number; crf: number; hdr: "sdr" | "keep" }, ctx: RecipeContext): Plan {
  const vp9 = (v: VideoFacts) => [
    "-c:v",
    "libvpx-vp9",
    ...(p.hdr === "keep" && v.hdr ? ["-profile:v", "2", ...hdrTags(v.hdr)] : []),
    "-b:v",
    "0",
    "-crf",
    String(p.crf),
    "-deadline",
    "realtime",
    "-cpu-used",
    "8",
    "-row-mt",
    "1",
  ];
  const picture = { height: p.height, keepHdr: p.hdr === "keep" };
  return webVideo("webm", "webm", vp9, { codec: "libopus", kbps: 96 }, picture, ctx, []);
}

type GifParams = { fps: number; width: number; start: number; duration: number };

export const gifQuestions = (p: GifParams, ctx: RecipeContext) => keyframeQuestion(ctx.inputs[0], p.start);

export function gifRecipe(p: GifParams, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needVideo("gif", input);
  if ("refused" in need) return need;
  const seek = seekTo(input.facts, p.start, keyframeAnswer(ctx.answers, input.name, p.start));
  const picture = [
    ...stillPictureFilters(need.video),
    `fps=${p.fps}`,
    stillScale(need.video, p.width, "lanczos"),
    ...toSdrFilters(need.video),
  ].join(",");
  return planned([
    ...seek.before,
    "-i",
    `{{${input.name}}}`,
    ...seek.after,
    "-t",
    String(p.duration),
    "-filter_complex",
    `[0:V:0]${picture},split[a][b];[a]palettegen[pal];[b][pal]paletteuse`,
    "{{gif}}",
  ]);
}

/**
 * Streams copied when the output's container holds them (and `copyVideo`); otherwise re-encoded in codecs
 * it holds: H.264 near-lossless and AAC, or in WebM VP9 and Opus.
 */
function copyOrEncode(
  fileName: string,
  video: VideoFacts | null,
  audioCodec: string | null,
  copyVideo = true,
): string[] {
  const v = !video
    ? []
    : copyVideo && canCopy(fileName, "video", video.codec)
      ? ["-c:v", "copy", ...keepCopiedVideo(fileName, video)]
      : [...reencoded(fileName).video, "-vf", webPictureFilters(video, null).join(",")];
  const a =
    audioCodec === null ? [] : canCopy(fileName, "audio", audioCodec) ? ["-c:a", "copy"] : reencoded(fileName).audio;
  return [...v, ...a];
}

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
  return p.subtitles ? withSubtitles(plan, "trim", ctx, ctx.outputs.clip) : plan;
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

const CORNERS = {
  "top-left": ["M", "M"],
  "top-right": ["W-w-M", "M"],
  "bottom-left": ["M", "H-h-M"],
  "bottom-right": ["W-w-M", "H-h-M"],
} as const;

export function watermarkRecipe(p: { position: keyof typeof CORNERS; margin: number }, ctx: RecipeContext): Plan {
  const [input, logo] = ctx.inputs;
  const need = needVideo("watermark", input);
  if ("refused" in need) return need;
  const picture = needVideo("watermark", logo);
  if ("refused" in picture) return picture;
  const [x, y] = CORNERS[p.position].map((c) => c.replace("M", String(p.margin)));
  const { width, height } = pictureSize(need.video, null);
  const base = [
    ...(need.video.interlaced ? ["yadif=mode=send_frame"] : []),
    `scale=${width}:${height}`,
    "setsar=1",
    ...toSdrFilters(need.video),
  ].join(",");
  const a = input.facts.audio;
  return planned([
    "-i",
    `{{${input.name}}}`,
    "-i",
    `{{${logo.name}}}`,
    // eof_action=repeat: a still logo stays for the whole video. The output lasts as long as the longer
    // input (overlay's `shortest` would end it after a still logo's one frame), so -t holds it to the video's.
    "-filter_complex",
    `[0:V:0]${base}[base];[base][1:V:0]overlay=${x}:${y}:eof_action=repeat,format=yuv420p[v]`,
    ...(input.facts.durationSeconds !== null ? ["-t", seconds(input.facts.durationSeconds)] : []),
    "-map",
    "[v]",
    ...(a ? ["-map", "0:a:0"] : []),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    ...(a ? copyOrEncode(ctx.outputs.watermarked, null, a.codec) : []),
    "-movflags",
    "+faststart",
    "{{watermarked}}",
  ]);
}
