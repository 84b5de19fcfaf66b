import { needVideo, planned, type Plan, type RecipeContext, type Refusal } from "./recipe.ts";
import { needSubtitles } from "./subtitle-rules.ts";
import { audioEncoding, pictureSize, scaleTo, sdrPixels, seconds } from "./stream-rules.ts";

/** The bitrate a rendition gets, by its height (H.264, for typical web content). */
function videoKbps(height: number): number {
  return Math.round(Math.max(200, (height * height) / 250));
}

/**
 * An HLS ladder. Renditions taller than the input are left out (upscaling adds bytes, not detail); if
 * all are, one rendition at the input's own height. Audio in every rendition when the input has any
 * and `audio` is not false. Key frames at every segment boundary whatever the frame rate.
 */
export function hlsLadderRecipe(
  p: { renditions: number[]; segmentSeconds: number; audio: boolean; subtitles?: boolean },
  ctx: RecipeContext,
): Plan {
  const input = ctx.inputs[0];
  const need = needVideo("hls-ladder", input);
  if ("refused" in need) return need;
  const subs = subtitleSource(p.subtitles === true, ctx);
  if (subs && "refused" in subs) return subs;
  const v = need.video;
  const fitting = p.renditions.filter((h) => h <= v.height);
  const heights = [...new Set((fitting.length ? fitting : [v.height]).map((h) => pictureSize(v, h).height))];
  const a = p.audio ? input.facts.audio : null;
  const n = heights.length;
  const prepare = [...(v.interlaced ? ["yadif=mode=send_frame"] : []), `split=${n}`].join(",");
  const graph = [
    `[0:V:0]${prepare}${heights.map((_, i) => `[s${i}]`).join("")}`,
    ...heights.map((h, i) => {
      const { width, height } = pictureSize(v, h);
      return `[s${i}]${[scaleTo(v, width, height), ...sdrPixels(v)].join(",")}[v${i}]`;
    }),
  ];
  return planned([
    "-i",
    `{{${input.name}}}`,
    ...(subs?.sidecar ? ["-i", `{{${subs.sidecar}}}`] : []),
    "-filter_complex",
    graph.join(";"),
    ...heights.flatMap((h, i) => [
      "-map",
      `[v${i}]`,
      ...(a ? ["-map", "0:a:0"] : []),
      ...(subs ? ["-map", subs.map] : []),
      `-b:v:${i}`,
      `${videoKbps(h)}k`,
      `-maxrate:v:${i}`,
      `${Math.round(videoKbps(h) * 1.2)}k`,
      `-bufsize:v:${i}`,
      `${videoKbps(h) * 2}k`,
    ]),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-force_key_frames",
    `expr:gte(t,n_forced*${seconds(p.segmentSeconds)})`,
    "-sc_threshold",
    "0",
    ...(a ? audioEncoding(a, "aac", 128, 2) : []),
    ...(subs ? ["-c:s", "webvtt"] : []),
    "-f",
    "hls",
    "-hls_time",
    String(p.segmentSeconds),
    "-hls_playlist_type",
    "vod",
    "-hls_flags",
    "independent_segments",
    "-var_stream_map",
    heights
      .map((_, i) =>
        [`v:${i}`, ...(a ? [`a:${i}`] : []), ...(subs ? subtitleRendition(i, subs.language) : [])].join(","),
      )
      .join(" "),
    "-master_pl_name",
    "master.m3u8",
    "-hls_segment_filename",
    "{{hls/seg_%v_%03d.ts}}",
    "{{hls/stream_%v.m3u8}}",
  ]);
}

/**
 * The WebVTT rendition's source: the `subtitles` input (a sidecar SRT, WebVTT or ASS file) when given,
 * else with `subtitles: true` the input's first text track; null for none.
 */
function subtitleSource(
  wanted: boolean,
  ctx: RecipeContext,
): { map: string; language: string | null; sidecar: string | null } | { refused: Refusal } | null {
  const sidecar = ctx.inputs.find((i) => i.name === "subtitles");
  const input = sidecar ?? ctx.inputs[0];
  if (!sidecar && !wanted) return null;
  const first = input.facts.subtitles.findIndex((t) => t.kind === "text");
  const need = needSubtitles("hls-ladder", input, Math.max(0, first), true);
  if ("refused" in need) return need;
  return { map: `${sidecar ? 1 : 0}:s:${first}`, language: need.subtitle.language, sidecar: sidecar?.name ?? null };
}

/**
 * Each variant's subtitle rendition in a group of its own (ffmpeg 5.1's HLS muxer writes one rendition per
 * variant, and two in one group would both be its default); players switch groups with the variant.
 */
function subtitleRendition(variant: number, language: string | null): string[] {
  return [`s:${variant}`, `sgroup:subs${variant}`, ...(language ? [`language:${language}`] : [])];
}
