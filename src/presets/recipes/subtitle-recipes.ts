import { MAX_PIXELS } from "../../jobs/policy/option-tables.ts";
import type { SubtitleFacts } from "../subtitle-facts.ts";
import { needVideo, planned, type Plan, type PlanInput, type RecipeContext, type Refusal } from "./recipe.ts";
import { audioEncoding, pictureSize, scaleTo, sdrPixels } from "./stream-rules.ts";
import { burnStyle, needSubtitles, type BurnStyle } from "./subtitle-rules.ts";

/** A subtitle track as WebVTT, the text format browsers and HLS players read. */
export function subtitlesVttRecipe(p: { track: number }, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needSubtitles("subtitles-vtt", input, p.track, true);
  if ("refused" in need) return need;
  return planned(["-i", `{{${input.name}}}`, "-map", `0:s:${p.track}`, "-c:s", "webvtt", "{{subtitles}}"]);
}

type BurnParams = BurnStyle & { track: number };

/**
 * Subtitles drawn into the picture: a text track by libass (the input's own, or the `subtitles` input's,
 * an SRT, WebVTT or ASS file) in the preset's style; a bitmap track laid over it, scaled to the picture.
 * Drawn after the picture is upright, scaled to even dimensions and SDR, so they sit where a viewer
 * expects on a rotated or odd-sized input. H.264/AAC MP4, like web-mp4 at the input's own size.
 */
export function burnSubtitlesRecipe(p: BurnParams, ctx: RecipeContext): Plan {
  const input = ctx.inputs[0];
  const need = needVideo("burn-subtitles", input);
  if ("refused" in need) return need;
  const sidecar = ctx.inputs.find((i) => i.name === "subtitles");
  const source = sidecar ?? input;
  const track = needSubtitles("burn-subtitles", source, p.track, false);
  if ("refused" in track) return track;
  const v = need.video;
  const { width, height } = pictureSize(v, null);
  const picture = [...(v.interlaced ? ["yadif=mode=send_frame"] : []), scaleTo(v, width, height), ...sdrPixels(v)];
  const sourceIndex = sidecar ? 1 : 0;
  const text = track.subtitle.kind === "text";
  const bitmap = text ? null : bitmapProblem(track.subtitle, source, `track ${p.track} of input "${source.name}"`);
  if (bitmap) return bitmap;
  const graph = text
    ? `[0:V:0]${[...picture, `subtitles=filename={{${source.name}}}:si=${p.track}:force_style='${burnStyle(p)}'`].join(",")}[v]`
    : // A bitmap track becomes pictures on its file's video canvas (ffmpeg's sub2video): scaled to the picture's.
      `[0:V:0]${picture.join(",")}[base];[${sourceIndex}:s:${p.track}]scale=${width}:${height}[subs];[base][subs]overlay=eof_action=pass,format=yuv420p[v]`;
  const a = input.facts.audio;
  return planned([
    "-i",
    `{{${input.name}}}`,
    ...(sidecar && !text ? ["-i", `{{${sidecar.name}}}`] : []),
    "-filter_complex",
    graph,
    "-map",
    "[v]",
    ...(a ? ["-map", "0:a:0"] : []),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "20",
    ...(a ? audioEncoding(a, "aac", 128, 2) : []),
    "-movflags",
    "+faststart",
    "{{burned}}",
  ]);
}

/**
 * Why a bitmap track cannot be drawn, or null. ffmpeg 5.1 draws one on a canvas the size of the largest
 * video stream its file declares (`-canvas_size` and the track's own size aside), one never decoded and so
 * never held to the pixel limit: 16000 x 16000 from a crafted file is a gigabyte a picture. A PGS track
 * always declares its canvas, so one ffprobe could not size declared one over the limit, and every picture
 * of it would fail to decode (a job that completes with no captions).
 */
function bitmapProblem(subtitle: SubtitleFacts, source: PlanInput, which: string): { refused: Refusal } | null {
  const over = source.facts.largestVideoPixels > MAX_PIXELS;
  const unsized = subtitle.codec === "hdmv_pgs_subtitle" && subtitle.width === null;
  if (!over && !unsized) return null;
  return {
    refused: {
      code: "INPUT_UNREADABLE",
      message: `Preset burn-subtitles cannot draw ${which}: ${over ? "its file declares a video stream" : "its pictures declare a canvas"} over the ${MAX_PIXELS}-pixel limit`,
    },
  };
}
