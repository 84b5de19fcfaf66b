import type { VideoFacts } from "../media-facts.ts";
import { needVideo, planned, type Plan, type PlanInput, type RecipeContext } from "./recipe.ts";
import { keyframeAnswer, keyframeQuestion } from "./input-questions.ts";
import { audioEncoding, vp9Encoding, seconds, seekTo, stillPictureFilters, webPictureFilters } from "./stream-rules.ts";
import { hdrTags, toSdrFilters } from "./tone-map.ts";
import { withKeptSubtitles } from "./subtitle-rules.ts";

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
  return p.subtitles ? withKeptSubtitles(plan, "web-mp4", ctx, ctx.outputs.mp4) : plan;
}

/** `hdr: "keep"`: an HDR input stays HDR as VP9 profile 2 (10-bit), tagged with its own transfer. */
export function webmRecipe(p: { height: number; crf: number; hdr: "sdr" | "keep" }, ctx: RecipeContext): Plan {
  const vp9 = (v: VideoFacts) =>
    vp9Encoding(p.crf, p.hdr === "keep" && v.hdr ? ["-profile:v", "2", ...hdrTags(v.hdr)] : []);
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
