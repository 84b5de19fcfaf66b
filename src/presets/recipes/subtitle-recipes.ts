import { needVideo, planned, type Plan, type RecipeContext } from "./recipe.ts";
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
  const graph = track.subtitle.text
    ? `[0:V:0]${[...picture, `subtitles=filename={{${source.name}}}:si=${p.track}:force_style='${burnStyle(p)}'`].join(",")}[v]`
    : // A bitmap track becomes pictures on a canvas of its own size (ffmpeg's sub2video): scaled to the picture's.
      `[0:V:0]${picture.join(",")}[base];[${sourceIndex}:s:${p.track}]scale=${width}:${height}[subs];[base][subs]overlay=eof_action=pass,format=yuv420p[v]`;
  const a = input.facts.audio;
  return planned([
    "-i",
    `{{${input.name}}}`,
    ...(sidecar && !track.subtitle.text ? ["-i", `{{${sidecar.name}}}`] : []),
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
